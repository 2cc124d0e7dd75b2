"""cli/plot.py: `lostmid plot RUN_DIR` arguments, and its refusals in one line."""

import argparse

import pytest

from lostmid_jax import cli
from lostmid_jax.cli import plot


def test_arguments():
    parser = argparse.ArgumentParser()
    plot.add_arguments(parser)
    args = parser.parse_args(["runs/x", "--format", "pdf,svg", "--out", "figs"])
    assert (args.run_dir, args.format, args.out) == ("runs/x", "pdf,svg", "figs")
    assert parser.parse_args(["runs/x"]).format == "png"


def test_a_missing_run_or_a_bad_format_exits_2_in_one_line(tmp_path, capsys):
    for argv, named in ((["plot", str(tmp_path / "none")], "none"), (["plot", str(tmp_path), "--format", "gif"], "gif")):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert named in err
