"""Importing lostmid_jax.stats and each of its modules loads no jax (checked in a fresh interpreter)."""

import subprocess
import sys

import lostmid_jax.stats as stats


def test_stats_imports_no_jax():
    names = " ".join(f"lostmid_jax.stats.{m}" for m in stats._SUBMODULES)
    code = (f"import importlib, sys\nfor name in {names.split()!r}:\n    importlib.import_module(name)\n"
            "assert 'jax' not in sys.modules, sorted(m for m in sys.modules if m.startswith('jax'))")
    subprocess.run([sys.executable, "-c", code], check=True)
