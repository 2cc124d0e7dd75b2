"""The old module paths stay for one release as aliases of lostmid_jax.runs."""

import subprocess
import sys

from lostmid_jax import io, report, results, runs
from lostmid_jax.experiments import configs


def test_old_names_are_the_new_objects():
    for module in (io, results, report, configs):
        for name in module.__all__:
            assert getattr(module, name) is getattr(runs, name), (module.__name__, name)


def test_runs_loads_no_heavy_package_and_imports_no_experiment():
    code = ("import sys, lostmid_jax.runs; "
            "print(sorted(m for m in ('jax', 'numpy', 'pandas', 'matplotlib', 'lostmid_jax.experiments') "
            "if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
