"""lostmid_jax.runs, the package: its names, the guards it adds to every atomic write, and what importing it loads
(the old module paths, aliases for one release: tests/test_moved.py)."""

import subprocess
import sys

from lostmid_jax import atomic, runs
from lostmid_jax.runs import ledger


def test_every_name_resolves_and_none_is_presentation():
    assert all(hasattr(runs, name) for name in runs.__all__)
    assert not {"build_html", "write_report", "draw", "save_figures"} & set(runs.__all__)  # lostmid_jax.present


def test_importing_runs_guards_every_write_signal_first_then_the_ledger():
    """A received SIGINT or SIGTERM stops a write before the run's record lists its file."""
    assert atomic._guards[-2:] == [runs._stop_check, ledger.note]


def test_runs_loads_no_heavy_package_and_imports_no_experiment():
    code = ("import sys, lostmid_jax.runs; "
            "print(sorted(m for m in ('jax', 'numpy', 'pandas', 'matplotlib', 'lostmid_jax.experiments', "
            "'lostmid_jax.present', 'lostmid_jax.plots', 'lostmid_jax.stats') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
