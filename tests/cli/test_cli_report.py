"""cli/report.py: `lostmid report RUN_DIR` arguments, and a refusal in one line."""

import argparse

import pytest

from lostmid_jax import cli
from lostmid_jax.cli import report


def test_arguments():
    parser = argparse.ArgumentParser()
    report.add_arguments(parser)
    args = parser.parse_args(["runs/x", "--rows", "5", "--out", "r.html"])
    assert (args.run_dir, args.rows, args.out) == ("runs/x", 5, "r.html")
    assert parser.parse_args(["runs/x"]).rows == 20


def test_a_missing_run_exits_2_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["report", str(tmp_path / "none")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1 and "none" in err
