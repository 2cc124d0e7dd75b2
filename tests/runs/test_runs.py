"""lostmid_jax.runs, the package: importing it loads nothing heavy and no experiment."""

import subprocess
import sys


def test_runs_loads_no_heavy_package_and_imports_no_experiment():
    code = ("import sys, lostmid_jax.runs; "
            "print(sorted(m for m in ('jax', 'numpy', 'pandas', 'matplotlib', 'lostmid_jax.experiments') "
            "if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
