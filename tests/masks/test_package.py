"""lostmid_jax.masks sits at the bottom: no jax or scipy at import, imports only the package's base
modules (resources, validation), and no import circle through masks, theory, nn or kernels (by ast)."""

import ast
import pathlib
import subprocess
import sys

import lostmid_jax

ROOT = pathlib.Path(lostmid_jax.__file__).parent


def test_import_loads_no_jax_or_scipy():
    code = "import sys, lostmid_jax.masks; print(sorted(m for m in ('jax', 'scipy', 'mpmath') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def _modules() -> dict[str, tuple[pathlib.Path, bool]]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


def _imports(modules) -> dict[str, set[str]]:
    """Module -> the package modules it imports (module level or inside functions)."""
    edges = {}
    for name, (path, package) in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = name.split(".") if package else name.split(".")[:-1]
                target = ".".join(base[:len(base) - node.level + 1] + [node.module or ""]).rstrip(".") \
                    if node.level else node.module
                subs = {f"{target}.{a.name}" for a in node.names} & set(modules)
                found.update(subs if len(subs) == len(node.names) else subs | {target})
        edges[name] = {m for m in found if m in modules and m != name}
    return edges


def _reach(edges, start) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in edges[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_masks_imports_only_the_bottom_and_nothing_circles_through_masks_theory_nn():
    modules = _modules()
    edges = _imports(modules)
    below = {m for name in modules if name.startswith("lostmid_jax.masks") for m in edges[name]}
    assert {m for m in below if not m.startswith("lostmid_jax.masks")} <= {"lostmid_jax.resources",
                                                                          "lostmid_jax.validation"}
    for name in modules:
        if name.startswith(("lostmid_jax.masks", "lostmid_jax.theory", "lostmid_jax.nn", "lostmid_jax.kernels")):
            assert name not in _reach(edges, name), f"{name} imports itself through a circle"
