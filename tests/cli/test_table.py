"""`lostmid table RUN_DIR --format md|tex|csv`: each experiment's main table read back from the shared smoke
runs' files, the three formats holding the same cells, and refusals in one line (exit 2)."""

import csv
import io
import json
import os
import shutil

import pandas as pd
import pytest

from lostmid_jax import cli


def _table(capsys, run, fmt: str) -> str:
    assert cli.main(["table", str(run), "--format", fmt]) == 0
    return capsys.readouterr().out


def _md_cells(text: str) -> list[list[str]]:
    lines = text.splitlines()
    assert set(lines[1].replace("|", "").split()) == {"---"}
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in [lines[0], *lines[2:]]]


def _ci(value, lo, hi, spec=".3f") -> str:
    return f"{value:{spec}} [{lo:{spec}}, {hi:{spec}}]"


def _same_cells_in_every_format(capsys, run) -> list[list[str]]:
    capsys.readouterr()  # what making the shared run printed
    md = _md_cells(_table(capsys, run, "md"))
    assert list(csv.reader(io.StringIO(_table(capsys, run, "csv")))) == md
    tex = _table(capsys, run, "tex").splitlines()
    assert tex[0].startswith(r"\begin{tabular}{") and tex[1] == r"\toprule" and tex[-1] == r"\end{tabular}"
    assert len(tex) == len(md) + 5  # tabular, toprule, header, midrule, rows, bottomrule, end
    assert "%" not in "".join(tex).replace(r"\%", "")  # a bare % would comment out the rest of a LaTeX line
    return md


def test_diagnose_accuracy_by_position_and_baselines(capsys, smoke_runs):
    run = smoke_runs("diagnose")
    md = _same_cells_in_every_format(capsys, run)
    acc, base = pd.read_csv(run / "accuracy.csv"), pd.read_csv(run / "baselines.csv")
    assert md[0][:4] == ["T", "passage", "fact x", "MC accuracy [95% CI]"]
    assert len(md) == 1 + len(acc) + len(base)
    for cells, (_, row) in zip(md[1:], acc.iterrows()):
        assert cells[:2] == [str(int(row["length"])), str(int(row["passage"]))]
        assert cells[3] == _ci(row["accuracy"], row["accuracy_lo"], row["accuracy_hi"])
    assert [c[1] for c in md[-2:]] == ["closed-book", "oracle"]
    assert md[-1][3] == _ci(*base.iloc[1][["accuracy", "accuracy_lo", "accuracy_hi"]])


def test_remedies_effects(capsys, smoke_runs):
    run = smoke_runs("remedies")
    md = _same_cells_in_every_format(capsys, run)
    effects = pd.read_csv(run / "effects.csv", keep_default_na=False, na_values=[""])
    assert md[0] == ["remedy", "verdict", "\u0394 middle [95% CI]", "\u0394 ends [95% CI]", "Step-0 ratio"]
    assert [c[:2] for c in md[1:]] == effects[["remedy", "verdict"]].astype(str).values.tolist()
    for cells, (_, row) in zip(md[1:], effects.iterrows()):
        if pd.notna(row["middle_lo"]):
            assert cells[2] == _ci(row["middle"], row["middle_lo"], row["middle_hi"], "+.3f")
            assert cells[4] == f"{row['step0_ratio']:.3g}"


def test_step0_claims(capsys, smoke_runs):
    run = smoke_runs("step0")
    md = _same_cells_in_every_format(capsys, run)
    verdict = (run / "verdict.txt").read_text()
    assert md[0] == ["preset", "claim", "measured [95% CI]", "outcome", "paper"] and len(md) > 1
    for cells in md[1:]:
        assert cells[3] in ("REPRODUCED", "REFUTED", "inconclusive")
        assert f"  {cells[1]}: {cells[2]}: {cells[3]} (" in verdict  # the claim's own line


def _refused(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1, err
    return err[0]


def test_refusals_are_one_line(capsys, smoke_runs, tmp_path):
    run = smoke_runs("diagnose")
    capsys.readouterr()
    assert "format must be one of md, tex, csv, got 'html'" in _refused(capsys, ["table", str(run), "--format", "html"])
    no_table = tmp_path / "no_table"
    shutil.copytree(run, no_table, ignore=shutil.ignore_patterns("checkpoint", "accuracy.csv"))
    assert "holds no accuracy.csv" in _refused(capsys, ["table", str(no_table)])
    linked = tmp_path / "linked"
    shutil.copytree(run, linked, ignore=shutil.ignore_patterns("checkpoint", "accuracy.csv"))
    outside = tmp_path / "outside.csv"
    shutil.copy(run / "accuracy.csv", outside)
    os.symlink(outside, linked / "accuracy.csv")
    assert "symlink" in _refused(capsys, ["table", str(linked)])
    other = tmp_path / "other"
    shutil.copytree(run, other, ignore=shutil.ignore_patterns("checkpoint"))
    record = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**record, "experiment": "depth_sweep", "config": {}}))
    message = _refused(capsys, ["table", str(other)])
    assert "is a depth_sweep run, which has no main table" in message and "step0, remedies, diagnose runs" in message
    assert "not a run directory" in _refused(capsys, ["table", str(tmp_path / "missing")])
