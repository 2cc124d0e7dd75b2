"""The old module paths stay for one release as aliases of lostmid_jax.runs, lostmid_jax.present and
lostmid_jax.atomic."""

import subprocess
import sys

import importlib

import pytest

from lostmid_jax import io, present, report, results, runs
from lostmid_jax.experiments import configs


def test_old_names_are_the_new_objects():
    for module in (io, results, report, configs):
        for name in module.__all__:
            new = getattr(runs, name) if hasattr(runs, name) else getattr(present, name)
            assert getattr(module, name) is new, (module.__name__, name)


@pytest.mark.parametrize("old, new", [("runs.atomic", "atomic"), *((f"runs.{m}", f"present.{m}") for m in (
    "report", "plot", "mathml", "page", "paste", "verdict_table"))])
def test_moved_modules_keep_their_old_path_for_one_release(old, new):
    before, after = (importlib.import_module(f"lostmid_jax.{m}") for m in (old, new))
    assert before.__doc__.startswith("Alias for one release: ") and f"lives in lostmid_jax.{new}." in before.__doc__
    assert before.__all__ and all(getattr(before, name) is getattr(after, name) for name in before.__all__)
    assert set(before.__all__) <= set(after.__all__)


def test_runs_loads_no_heavy_package_and_imports_no_experiment():
    code = ("import sys, lostmid_jax.runs; "
            "print(sorted(m for m in ('jax', 'numpy', 'pandas', 'matplotlib', 'lostmid_jax.experiments', "
            "'lostmid_jax.present', 'lostmid_jax.plots', 'lostmid_jax.stats') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
