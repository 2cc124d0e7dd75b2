"""present.paste: a table as Markdown, LaTeX (booktabs) or CSV, each escaped for its format."""

import pytest

from lostmid_jax.present.paste import check_format, needed, render


def test_markdown_escapes_the_pipe():
    assert render(["a|b", "c"], [["1", "x|y"]], "md") == "| a\\|b | c |\n| --- | --- |\n| 1 | x\\|y |\n"


def test_latex_escapes_its_special_characters_in_a_booktabs_table():
    assert render(["a_b", "50%"], [["$1", "x&y"]], "tex") == (
        "\\begin{tabular}{ll}\n\\toprule\na\\_b & 50\\% \\\\\n\\midrule\n\\$1 & x\\&y \\\\\n\\bottomrule\n"
        "\\end{tabular}\n")


def test_csv_quotes_as_the_csv_module_does():
    assert render(["a", "b,c"], [["1", 'say "hi"']], "csv") == 'a,"b,c"\n1,"say ""hi"""\n'


def test_refusals_name_the_format_and_the_missing_table():
    assert check_format("tex") == "tex"
    with pytest.raises(ValueError, match="^format must be one of md, tex, csv, got 'xls'$"):
        render(["a"], [], "xls")
    with pytest.raises(ValueError, match="^run_dir: this remedies run holds no effects.csv"):
        needed({"results": 1}, "effects", "remedies")
    assert needed({"effects": 7}, "effects", "remedies") == 7
