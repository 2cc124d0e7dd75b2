"""lostmid_jax/_moved.py: every old address warns once (MovedWarning naming the new one and the end release),
gives the objects at the new address, is listed in CHANGELOG.md, and nothing in the package routes through one."""

import importlib
import pathlib
import re
import subprocess
import sys
import warnings

import pytest

from lostmid_jax import _moved
from lostmid_jax._moved import END, MODULES, MOVED, NAMES, MovedWarning

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lostmid_jax"


def _file(module: str) -> pathlib.Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _expected(address: str):
    """The object at a dotted address, looked up here (not with _moved.resolve)."""
    module, _, name = address.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.fixture
def fresh(monkeypatch):
    """No old address has warned yet in this process (the registry of warnings shown, emptied)."""
    monkeypatch.setattr(_moved, "_warned", set())


def _moved_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, MovedWarning)]


def test_every_alias_file_is_registered_and_three_lines_over_the_helper():
    files = {str(p.relative_to(ROOT).with_suffix("")).replace("/", ".") for p in PACKAGE.rglob("*.py")
             if p.read_text().startswith('"""Alias')}  # the docstring test_architecture reads as an alias's
    assert files == set(MODULES)
    for module, entry in MODULES.items():
        text = _file(module).read_text()
        assert "__getattr__, __dir__, __all__ = alias(__name__)" in text, module
        assert text.startswith('"""Alias for one release: ') and entry.home in text.split("\n")[0], module
        assert entry.end == END and entry.names, module


@pytest.mark.parametrize("name", sorted(MODULES))
def test_an_alias_warns_once_and_gives_the_new_objects(name, fresh, monkeypatch):
    monkeypatch.delitem(sys.modules, name, raising=False)  # imported afresh here; the old one is put back after
    entry = MODULES[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        __import__(name)
        module = sys.modules[name]
        values = {old: getattr(module, old) for old in entry.names}
        monkeypatch.delitem(sys.modules, name)
        __import__(name)  # a second import in this process: no second warning
        from_again = sys.modules[name]
    moved = [w for w in caught if issubclass(w.category, MovedWarning)]
    assert len(moved) == 1, _moved_warnings(caught)
    text = str(moved[0].message)
    assert name in text and entry.home in text and END in text
    assert moved[0].filename == __file__  # it points at the line that imported the old address
    for old, new in entry.names.items():
        assert values[old] is _expected(new), (name, old, new)
    assert all(callable(getattr(from_again, kept)) or isinstance(getattr(from_again, kept), dict)
               for kept in entry.kept)
    assert module.__all__ == sorted({*entry.names, *entry.kept}) and set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018


@pytest.mark.parametrize("old", sorted(NAMES))
def test_an_old_name_in_a_live_module_warns_once_on_use(old, fresh):
    module_name, _, name = old.rpartition(".")
    module = importlib.import_module(module_name)
    assert name not in vars(module) and name not in getattr(module, "__all__", ())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = getattr(module, name), getattr(module, name)
    assert len(_moved_warnings(caught)) == 1 and caught[0].filename == __file__
    new, end = NAMES[old]
    assert old in str(caught[0].message) and new in str(caught[0].message) and end == END
    assert first is second is _expected(new)


def test_an_old_address_under_the_error_filter_fails_at_each_use(fresh, monkeypatch):
    """What the test suite does (pyproject: error::MovedWarning): every route through an alias fails, not
    only the first one (a warning raised as an error is not counted as shown)."""
    name = "lostmid_jax.theory.prior_specs"
    monkeypatch.delitem(sys.modules, name, raising=False)
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("error", MovedWarning)
            with pytest.raises(MovedWarning, match="use lostmid_jax.masks.text"):
                __import__(name)
        assert name not in sys.modules


def test_a_package_face_reaches_an_old_submodule_with_the_warning(fresh, monkeypatch):
    from lostmid_jax import theory

    monkeypatch.delitem(sys.modules, "lostmid_jax.theory.priors", raising=False)
    monkeypatch.delattr(theory, "priors", raising=False)
    assert "priors" not in dir(theory)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert theory.priors.Causal is _expected("lostmid_jax.masks.Causal")
    assert len(_moved_warnings(caught)) == 1


def _changelog_moves() -> dict[str, tuple[str, str]]:
    """{old: (new, end)} of the lines "- old -> new (until END)" under "## Moved in 0.2.0" of CHANGELOG.md."""
    text = (ROOT / "CHANGELOG.md").read_text()
    start = text.index("\n## Moved in 0.2.0")
    end = text.find("\n## ", start + 1)
    found = {}
    for match in re.finditer(r"^- `?([\w.]+)`? -> `?([\w.]+)`?(?: \(removed in ([\d.]+)\))?", text[start:end if end > 0 else None],
                             re.M):
        found[match.group(1)] = (match.group(2), match.group(3))
    return found


def test_the_changelog_lists_every_old_address_with_its_new_one_and_end():
    listed = _changelog_moves()
    registered = {**{m: (e.home, e.end) for m, e in MODULES.items()}, **NAMES}
    assert {old: listed.get(old) for old in registered} == registered
    renamed = {f"{m}.{old}": new for m, e in MODULES.items() for old, new in e.names.items()
               if new != f"{e.home}.{old}"}  # a name whose new address is not its module's home + the name
    assert {old: listed.get(old, (None,))[0] for old in renamed} == renamed
    assert set(renamed) | set(registered) <= set(MOVED)


def _walk_code(strict_fresh: bool) -> str:
    return (
        "import importlib, pkgutil, sys, warnings\n"
        "import lostmid_jax\n"
        "from lostmid_jax import _moved\n"
        "warnings.simplefilter('error', _moved.MovedWarning)\n"
        "_moved._warned.clear()\n"
        "names = [m.name for m in pkgutil.walk_packages(lostmid_jax.__path__, 'lostmid_jax.')\n"
        "         if m.name not in _moved.MODULES and not m.name.endswith('__main__')]\n"
        "for name in names:\n"
        "    module = importlib.import_module(name)\n"
        "    for attr in getattr(module, '__all__', ()):\n"  # the package faces' lazy names too
        "        getattr(module, attr, None)\n"
        + ("print(sorted(set(_moved.MODULES) & set(sys.modules)))\n" if strict_fresh else ""))


def test_importing_every_module_and_face_name_routes_through_no_alias(fresh):
    """In this process (cheap: most modules are loaded by now): a MovedWarning raised as an error fails it."""
    exec(_walk_code(strict_fresh=False), {})


@pytest.mark.extended
def test_a_fresh_interpreter_importing_everything_loads_no_alias_module():
    """import lostmid_jax, then every non-alias module and every name of every __all__: no alias in
    sys.modules (about 5 CPU-seconds: -m extended)."""
    out = subprocess.run([sys.executable, "-c", _walk_code(strict_fresh=True)], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout == "[]\n", out.stderr[-2000:]
