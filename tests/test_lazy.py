"""lostmid_jax/_lazy.py: a package's exports are imported on first use, then cached on the package."""

import sys

import pytest

from lostmid_jax._lazy import lazy_exports


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package 'lazypkg' whose __init__ exports 'value' from submodule 'heavy' lazily."""
    root = tmp_path / "lazypkg"
    root.mkdir()
    (root / "__init__.py").write_text(
        "from lostmid_jax._lazy import lazy_exports\n"
        "__getattr__, __dir__ = lazy_exports(__name__, {'value': '.heavy'}, submodules=('other',))\n")
    (root / "heavy.py").write_text("value = 42\n")
    (root / "other.py").write_text("name = 'other'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("lazypkg")
    for name in [m for m in sys.modules if m == "lazypkg" or m.startswith("lazypkg.")]:
        del sys.modules[name]


def test_an_export_is_imported_on_first_use_and_then_cached(package):
    assert "lazypkg.heavy" not in sys.modules
    assert package.value == 42
    assert "lazypkg.heavy" in sys.modules and vars(package)["value"] == 42


def test_submodules_unknown_names_and_dir(package):
    assert package.other.name == "other"
    with pytest.raises(AttributeError, match="'lazypkg' has no attribute 'missing'"):
        package.missing  # noqa: B018
    assert {"value", "other"} <= set(dir(package))


def test_lazy_exports_returns_the_two_module_hooks():
    getattr_, dir_ = lazy_exports("lostmid_jax", {})
    with pytest.raises(AttributeError):
        getattr_("nothing_here")
    import lostmid_jax

    assert set(vars(lostmid_jax)) <= set(dir_())
