"""Damaged CSV files of a run are named (file and line), never read as good: a number cut short, a ragged row,
a damaged number in a numeric column, an empty line."""

import pytest

from lostmid_jax import runs
from lostmid_jax.runs import read_table

GOOD = "a,b,label\r\n1,1.2108926,x\r\n2,3.5,y\r\n"


def _write(tmp_path, text):
    path = tmp_path / "results.csv"
    path.write_bytes(text.encode())
    return path


def test_a_good_file_reads_back(tmp_path):
    frame = read_table(_write(tmp_path, GOOD))
    assert frame["b"].tolist() == [1.2108926, 3.5]


def test_a_number_cut_short_names_the_file_and_line(tmp_path):
    """A file truncated mid-number (1.2108926 -> 1.2): before, read as 1.2; now refused."""
    path = _write(tmp_path, GOOD[:GOOD.index("1.2108926") + 3])
    with pytest.raises(ValueError, match=rf"{path} line 2 is cut short"):
        read_table(path)


def test_a_ragged_row_is_refused(tmp_path):
    path = _write(tmp_path, "a,b,label\r\n1,2,x\r\n2,y\r\n")
    with pytest.raises(ValueError, match=rf"{path} line 3 has 2 fields, the header has 3"):
        read_table(path)
    path = _write(tmp_path, "a,b,label\r\n1,2,x,extra\r\n")
    with pytest.raises(ValueError, match="line 2 has 4 fields"):
        runs.read_csv(path)


def test_a_damaged_number_in_a_numeric_column_is_named(tmp_path):
    path = _write(tmp_path, "a,b,label\r\n1,2.5,x\r\n2,2.5e,y\r\n")
    with pytest.raises(ValueError, match=r"line 3 column 'b': '2.5e' is not a number"):
        read_table(path)


def test_empty_lines_and_empty_files_are_refused(tmp_path):
    with pytest.raises(ValueError, match="line 3 is empty"):
        read_table(_write(tmp_path, "a,b\r\n1,2\r\n\r\n3,4\r\n"))
    with pytest.raises(ValueError, match="is empty"):
        read_table(_write(tmp_path, ""))


def test_a_damaged_table_of_a_run_is_one_line_from_report(tmp_path, capsys):
    from lostmid_jax import cli

    out = tmp_path / "run"
    assert cli.main(["sweep", "--depths", "1,2", "--alphas", "0.5", "--power-b", "none", "--lengths", "16",
                     "--no-progress", "--no-figures", "--out", str(out)]) == 0
    text = (out / "results.csv").read_bytes()
    (out / "results.csv").write_bytes(text[:-7])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        cli.main(["report", str(out)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "results.csv line" in err and "cut short" in err and "Traceback" not in err


@pytest.mark.parametrize("text, match", [
    # a quote left open at EOF: csv's lenient mode swallowed every row after it into one field
    ('a,label\r\n1,"x\r\n2,y\r\n', r"line 2 is not valid CSV \(unexpected end of data; an unterminated quote\?\)"),
    # closed rows later: the rows in between became part of one field
    ('a,label\r\n1,"x\r\n2,y"\r\n3,z\r\n', "line 2 opens a quote that runs to line 3: an unterminated quote"),
])
def test_an_unterminated_quote_is_refused_with_its_line(tmp_path, text, match):
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    with pytest.raises(ValueError, match=match):
        runs.read_csv(path)


def test_a_grid_of_cells_must_be_complete_and_square(tmp_path):
    import pandas as pd

    from lostmid_jax.runs.tables import check_grid

    full = pd.DataFrame([dict(q=q, k=k) for q in range(3) for k in range(3)])
    check_grid("h.csv", full, ("q", "k"))
    with pytest.raises(ValueError, match=r"h.csv line 8: the cell q=2, k=0 is missing; the grid has 3 x 3"):
        check_grid("h.csv", full.iloc[:6], ("q", "k"))  # the last query bin cut: still a 3 x 3 grid (k up to 2)
    with pytest.raises(ValueError, match=r"h.csv line 3 repeats the cell q=0, k=0 of line 2"):
        check_grid("h.csv", pd.concat([full.iloc[:1], full]).reset_index(drop=True), ("q", "k"))
    with pytest.raises(ValueError, match=r"h.csv line 2: q=-1, k=0 must be bin numbers"):
        check_grid("h.csv", pd.DataFrame([dict(q=-1, k=0)]), ("q", "k"))


def test_json_lines_read_back_with_nan_and_refuse_damage_by_line(tmp_path):
    """read_records: NaN (json.dumps writes it) reads as a float; a cut last line, a line that is not an
    object, bad JSON and bytes that are not UTF-8 are each one ValueError naming the file's line."""
    import math

    from lostmid_jax.runs.tables import read_records

    assert read_records(tmp_path, "absent.jsonl") is None
    (tmp_path / "good.jsonl").write_text('{"a": 1}\n{"a": NaN}\n')
    rows = read_records(tmp_path, "good.jsonl")
    assert rows[0] == {"a": 1} and math.isnan(rows[1]["a"])
    cases = {"cut.jsonl": (b'{"a": 1}\n{"a": 2', "line 2 is cut short"),
             "list.jsonl": (b'{"a": 1}\n[1, 2]\n', "line 2 is not a JSON object"),
             "bad.jsonl": (b'{"a": 1\n', "line 1 is not valid JSON"),
             "latin.jsonl": (b'{"a": "\xe9"}\n', "not UTF-8")}
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=message):
            read_records(tmp_path, name)
