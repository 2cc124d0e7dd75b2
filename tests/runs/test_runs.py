"""lostmid_jax.runs, the package: its names, and the guards it adds to every atomic write."""

from lostmid_jax import atomic, runs
from lostmid_jax.runs import ledger


def test_every_name_resolves_and_none_is_presentation():
    assert all(hasattr(runs, name) for name in runs.__all__)
    assert not {"build_html", "write_report", "draw", "save_figures"} & set(runs.__all__)  # lostmid_jax.present


def test_importing_runs_guards_every_write_signal_first_then_the_ledger():
    """A received SIGINT or SIGTERM stops a write before the run's record lists its file."""
    assert atomic._guards[-2:] == [runs._stop_check, ledger.note]
