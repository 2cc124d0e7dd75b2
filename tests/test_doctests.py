"""The docstring examples of every library module run and give what they show."""

import doctest
import importlib
import pkgutil

import pytest

import lostmid_jax
from lostmid_jax._moved import MODULES as ALIASES

MODULES = sorted(m.name for m in pkgutil.walk_packages(lostmid_jax.__path__, "lostmid_jax.")
                 if not m.name.endswith("__main__") and m.name not in ALIASES)  # aliases warn: tests/test_moved.py


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed in {name}"
