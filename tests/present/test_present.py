"""lostmid_jax.present, the package: its names are its modules' objects, and importing it loads nothing heavy."""

import subprocess
import sys

from lostmid_jax import present
from lostmid_jax.present import page, plot, report


def test_the_package_names_are_its_modules_objects():
    for name in present.__all__:
        assert getattr(present, name) is next(getattr(m, name) for m in (page, plot, report) if hasattr(m, name))


def test_importing_it_loads_no_jax_numpy_pandas_or_matplotlib():
    code = ("import sys, lostmid_jax.present; "
            "print(sorted(m for m in ('jax', 'numpy', 'pandas', 'matplotlib') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
