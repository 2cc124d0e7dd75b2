"""The package's layering, read from its source with ``ast`` (nothing is imported):

- no import circle among lostmid_jax's packages (package level: lostmid_jax.<first part>; relative and
  absolute imports, including function-local ones);
- no experiment module imports another experiment;
- library code never switches float64 process-wide (``jax.config.update("jax_enable_x64", ...)``).

``python tests/test_architecture.py`` prints the package-level edges and any circles.
"""

from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1] / "lostmid_jax"
PACKAGE = "lostmid_jax"

# Package-level edges that still close a circle in an area another move owns, each with its reason, to be
# removed when that move lands (none left: kernels <-> nn closed when MaskSpec moved to masks/).
ALLOWED_EDGES: set[tuple[str, str]] = set()

# Modules of lostmid_jax/experiments/ that belong to no experiment: the registry, the runner, the flags.
SHARED = {"lostmid_jax.experiments", "lostmid_jax.experiments.arguments", "lostmid_jax.experiments.runner",
          "lostmid_jax.experiments.script"}


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _imported(name: str, path: pathlib.Path, known: dict) -> set[str]:
    """Every lostmid_jax module (or package) that module ``name`` imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:  # `from pkg import module` imports that module
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
    return found


def _node(module: str) -> str:
    """The package-level node: lostmid_jax.<first part> (the root __init__ is "lostmid_jax")."""
    return ".".join(module.split(".")[:2])


def module_graph() -> dict[str, set[str]]:
    """{module: lostmid_jax modules it imports}."""
    known = _modules()
    return {name: _imported(name, path, known) for name, path in known.items()}


def package_edges() -> dict[tuple[str, str], list[str]]:
    """{(package, package it imports): the importing modules} between distinct packages."""
    edges: dict[tuple[str, str], list[str]] = {}
    for module, targets in module_graph().items():
        for target in targets:
            a, b = _node(module), _node(target)
            if a != b and a != PACKAGE:  # the root __init__ is the public facade over every package
                edges.setdefault((a, b), []).append(f"{module} -> {target}")
    return edges


def cycles(edges) -> list[list[str]]:
    """The strongly connected components with more than one package (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def _experiment_of(module: str, names) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "experiments" and parts[2] in names else None


def experiment_names() -> tuple[str, ...]:
    """The keys of lostmid_jax.experiments.EXPERIMENTS, read from the source."""
    tree = ast.parse((ROOT / "experiments" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "EXPERIMENTS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("lostmid_jax/experiments/__init__.py defines no EXPERIMENTS")


def test_no_circle_among_packages():
    edges = {edge: sources for edge, sources in package_edges().items() if edge not in ALLOWED_EDGES}
    found = cycles(edges)
    detail = [f"{' <-> '.join(c)}: " + "; ".join(s for (a, b), src in edges.items() if a in c and b in c for s in src)
              for c in found]
    assert not found, "import circles among packages:\n" + "\n".join(detail)


def _is_alias(path: pathlib.Path) -> bool:
    """An alias module kept for one release (its docstring says so)."""
    return (ast.get_docstring(ast.parse(path.read_text())) or "").startswith("Alias")


def test_no_experiment_imports_another():
    names = experiment_names()
    assert len(names) >= 6
    known = _modules()
    crossing = []
    for module, targets in module_graph().items():
        mine = _experiment_of(module, names)
        if mine is None and module.startswith(PACKAGE + ".experiments") and module not in SHARED:
            assert _is_alias(known[module]), f"{module} belongs to no experiment: move it into one, or to analysis"
            continue
        for target in targets:
            theirs = _experiment_of(target, names)
            if mine is not None and theirs is not None and theirs != mine:
                crossing.append(f"{module} -> {target}")
    assert not crossing, "experiments importing other experiments:\n" + "\n".join(crossing)


def test_runs_hold_files_only():
    """runs/ (run directories) sits below the experiments, training and the CLI: it imports none of them."""
    above = {f"{PACKAGE}.{name}" for name in ("analysis", "cli", "experiments", "nn", "probes", "train")}
    found = sorted(f"{a} -> {b}" for (a, b) in package_edges() if a == f"{PACKAGE}.runs" and b in above)
    assert not found, found


def test_no_process_wide_float64_switch():
    found = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update"
                    and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "jax_enable_x64"):
                found.append(f"{name}:{node.lineno}")
    assert not found, "jax.config.update('jax_enable_x64', ...) in library code (use `with jax.enable_x64(True):`): " \
        + ", ".join(found)


def test_the_graph_sees_relative_absolute_and_local_imports():
    graph = module_graph()
    assert "lostmid_jax.runs.atomic" in graph["lostmid_jax.runs.config_file"]  # from .atomic import
    assert "lostmid_jax.validation" in graph["lostmid_jax.runs.config"]  # from ..validation import
    assert "lostmid_jax.plots.style" in graph["lostmid_jax.runs.plot"]  # function-local from ..plots import style


def main() -> int:
    edges = package_edges()
    print("package-level edges (importer -> imported: modules):")
    for (a, b), sources in sorted(edges.items()):
        print(f"  {a.removeprefix(PACKAGE + '.')} -> {b.removeprefix(PACKAGE + '.')}  ({len(sources)})")
    found = cycles(edges)
    print("circles:" if found else "circles: none")
    for c in found:
        print("  " + " <-> ".join(x.removeprefix(PACKAGE + ".") for x in c))
        for (a, b), sources in sorted(edges.items()):
            if a in c and b in c:
                print("    " + "; ".join(sources))
    return 0


if __name__ == "__main__":
    sys.exit(main())
