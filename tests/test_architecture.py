"""The package's layering, read from its source with ``ast`` (nothing is imported):

- no import circle among lostmid_jax's packages (package level: lostmid_jax.<first part>; relative and
  absolute imports, including function-local ones);
- no experiment module imports another experiment;
- runs/ (storing a run) imports only the bottom modules (atomic, untrusted, validation), nothing by name
  at run time (no import_module, no string naming the experiments); kernels/ imports no runs/;
- library code never switches float64 process-wide (``jax.config.update("jax_enable_x64", ...)``);
- the written maps (the package docstring, the README's Layout section, the CLI docstring) list every
  package and every registered subcommand, and their layer order holds for every import (an alias module
  kept for one release at an old path is no edge);
- the share of library modules with logic that have a test file at the mirrored path
  (tests/<package>/test_<module>.py), printed and kept above a floor.

The graph is read from the source; only the subcommands come from the live registry
(lostmid_jax.cli, which imports no jax). ``python tests/test_architecture.py`` prints the
package-level edges, any circles, and the mirrored-test share with the modules that lack one.
"""

from __future__ import annotations

import ast
import functools
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1] / "lostmid_jax"
TESTS = ROOT.parent / "tests"
README = ROOT.parent / "README.md"
PACKAGE = "lostmid_jax"
MIRRORED_FLOOR = 0.75  # 80% (138 of 172) when set; slack for modules landing from concurrent branches

# Package-level edges that still close a circle in an area another move owns, each with its reason, to be
# removed when that move lands (none left: kernels <-> nn closed when MaskSpec moved to masks/).
ALLOWED_EDGES: set[tuple[str, str]] = set()

# Modules of lostmid_jax/experiments/ that belong to no experiment: the registry, the runner, the flags, and the
# config groups several experiments nest (issue 34).
SHARED = {"lostmid_jax.experiments", "lostmid_jax.experiments.arguments", "lostmid_jax.experiments.runner",
          "lostmid_jax.experiments.script", "lostmid_jax.experiments.influence_settings",
          "lostmid_jax.experiments.preset_settings"}


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


@functools.cache
def module_graph() -> dict[str, set[str]]:
    """{module: lostmid_jax modules it imports} (read once per session; do not change it)."""
    known = _modules()
    return {name: _imported(name, path, known) for name, path in known.items()}


@functools.cache
def alias_modules() -> frozenset[str]:
    """The alias modules kept for one release at a moved module's old path (docstring "Alias ..."): each
    re-exports its new home, wherever that now sits, so it is no edge of the layers."""
    return frozenset(name for name, path in _modules().items() if _is_alias(path))


def package_edges() -> dict[tuple[str, str], list[str]]:
    """{(package, package it imports): the importing modules} between distinct packages (alias modules left out)."""
    edges: dict[tuple[str, str], list[str]] = {}
    for module, targets in module_graph().items():
        if module in alias_modules():
            continue
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


def _lazy_targets(name: str, path: pathlib.Path) -> set[str]:
    """The modules a package's lazy tables name (``_EXPORTS`` values, ``_SUBMODULES``), resolved."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) in ("_EXPORTS", "_SUBMODULES")
                                                for t in node.targets):
            value = ast.literal_eval(node.value)
            for target in (value.values() if isinstance(value, dict) else (f".{v}" for v in value)):
                dots = len(target) - len(target.lstrip("."))
                base = name.split(".")[:len(name.split(".")) - dots + 1]
                found.add(".".join(base + [target.lstrip(".")]))
    return found


def test_nothing_imports_an_alias_module():
    """An alias module (kept for one release, lostmid_jax._moved) is imported by no module, function-local
    imports and the packages' lazy tables included: every internal import uses the new address."""
    known = _modules()
    aliases = alias_modules()
    assert len(aliases) >= 20
    found = sorted(f"{module} -> {target}" for module, targets in module_graph().items() if module not in aliases
                   for target in targets | (_lazy_targets(module, known[module]) if known[module].name == "__init__.py"
                                            else set()) if target in aliases)
    assert not found, "imports of alias modules (use the new address, lostmid_jax._moved.MODULES):\n" + "\n".join(found)


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


RUNS_IMPORT = {"atomic", "untrusted", "validation"}
"""All that runs/ (storing a run) may import: how a run is shown (present/, plots/, stats/) sits above it."""


def test_runs_store_and_import_only_the_bottom_modules():
    found = sorted(f"{a} -> {b}: {'; '.join(sources)}" for (a, b), sources in package_edges().items()
                   if a == f"{PACKAGE}.runs" and b.removeprefix(PACKAGE + ".") not in RUNS_IMPORT)
    assert not found, found


def _dynamic_imports(path: pathlib.Path) -> list[str]:
    """Where ``path`` imports by name at run time (importlib.import_module, __import__) or names a module of the
    experiments as a string of its own (a dotted path: what such a call or a registry default would take)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__"):
                found.append(f"{path.name}:{node.lineno}: {name}(...)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                re.fullmatch(r"(lostmid_jax)?\.*experiments(\.\w+)*", node.value.strip()):
            found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    return found


def test_runs_name_no_experiment_and_import_nothing_by_name():
    """The experiments a run may name are passed in (runs.registry.register, which lostmid_jax.experiments
    calls): runs/ imports no module by name, so no import hides from the graph."""
    assert _dynamic_imports(ROOT / "experiments" / "__init__.py")  # the check sees import_module(...)
    found = [hit for path in sorted((ROOT / "runs").rglob("*.py")) if not _is_alias(path)
             for hit in _dynamic_imports(path)]
    assert not found, found


def test_kernels_import_no_run_directories():
    """A compiled kernel's builder writes through lostmid_jax.atomic, not through runs/."""
    found = sorted(f"{a} -> {b}" for (a, b) in package_edges() if a == f"{PACKAGE}.kernels" and b == f"{PACKAGE}.runs")
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
    assert "lostmid_jax.runs.inside" in graph["lostmid_jax.runs.config_file"]  # from .inside import
    assert "lostmid_jax.validation" in graph["lostmid_jax.runs.config"]  # from ..validation import
    assert "lostmid_jax.plots.style" in graph["lostmid_jax.present.plot"]  # function-local from ..plots import style


def top_level_nodes() -> set[str]:
    """lostmid_jax's packages and top-level modules, read from the tree (the nodes of :func:`package_edges`)."""
    return {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()} | \
        {p.stem for p in ROOT.glob("*.py") if p.name != "__init__.py"}


def _package_doc() -> str:
    return ast.get_docstring(ast.parse((ROOT / "__init__.py").read_text())) or ""


def _cli_doc() -> str:
    return ast.get_docstring(ast.parse((ROOT / "cli" / "__init__.py").read_text())) or ""


def _readme_layout() -> str:
    text = README.read_text()
    start = text.index("\n## Layout")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def written_layers(text: str) -> list[set[str]]:
    """The groups of the "Layers, top to bottom" block of ``text``: its indented lines, split at ">" then ","."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Layers, top to bottom"))
    block = []
    for line in lines[start + 1:]:
        if line.startswith("    ") and line.strip():
            block.append(line.strip())
        elif block or line.strip():
            break
    return [{name.strip() for name in group.split(",")} for group in " ".join(block).split(">")]


def written_commands(text: str) -> set[str]:
    """The subcommands named in ``text`` as "lostmid NAME" or "lostmid A | B | ..." (across line breaks)."""
    found = set()
    for match in re.finditer(r"lostmid ([a-z][\w-]*(?:\s*\|\s*[a-z][\w-]*)*)", text):
        found.update(name.strip() for name in match.group(1).split("|"))
    return found


def registered_commands() -> set[str]:
    """The subcommands `lostmid` registers now (lostmid_jax.cli; no jax is imported)."""
    from lostmid_jax.cli import _commands

    return set(_commands())


def test_the_written_layers_hold_for_every_import():
    """One layer order, the same in the package docstring and the README, naming each package once; every
    import points to a later group (an import of the root facade, for __version__, is exempt)."""
    layers = written_layers(_package_doc())
    assert layers == written_layers(_readme_layout())
    names = [name for group in layers for name in group]
    assert sorted(names) == sorted(top_level_nodes()), "the layers must name every package and top-level module once"
    rank = {f"{PACKAGE}.{name}": i for i, group in enumerate(layers) for name in group}
    upward = [f"{a} -> {b}: {'; '.join(sources)}" for (a, b), sources in sorted(package_edges().items())
              if b != PACKAGE and rank[a] >= rank[b]]
    assert not upward, "imports against the written layers:\n" + "\n".join(upward)


def test_the_maps_list_every_package():
    doc = _package_doc()
    block = doc[doc.index("Packages and top-level modules"):doc.index("Layers, top to bottom")]
    described = {name.strip() for match in re.finditer(r"^ {4}(\w[\w, ]*?)\s{2,}\S", block, re.M)
                 for name in match.group(1).split(",")}
    assert described == top_level_nodes()
    layout = _readme_layout()
    missing = [name for name in sorted(top_level_nodes())
               if f"{PACKAGE}/{name}/" not in layout and f"{name}.py" not in layout]
    assert not missing, f"README's Layout section lacks {missing}"


def test_the_maps_list_every_subcommand():
    commands = registered_commands()
    assert {"theory", "sweep", "train", "rerun", "plot", "report"} <= commands
    for where, text in (("lostmid_jax/__init__.py", _package_doc()), ("README.md Layout", _readme_layout()),
                        ("lostmid_jax/cli/__init__.py", _cli_doc())):
        assert written_commands(text) == commands, where


def _has_logic(path: pathlib.Path) -> bool:
    """A module that defines a function or method (not an alias, not constants or dataclass fields only)."""
    tree = ast.parse(path.read_text())
    if (ast.get_docstring(tree) or "").startswith("Alias"):
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) for node in ast.walk(tree))


def mirrored_tests(path: pathlib.Path) -> tuple[pathlib.Path, ...]:
    """Where the test file of library module ``path`` = lostmid_jax/<dirs>/<module>.py may be:
    tests/<dirs>/test_<module>.py, with the innermost package's name prefixed (tests/nn/test_nn_config.py:
    basenames are unique in tests/, tests/conftest.py) or folded in (tests/kernels/test_fused_cpu_build.py
    for kernels/fused_cpu/build.py); a leading underscore is dropped. A package's __init__ is tested as
    the module named after the package, in its parent's folder or its own."""
    rel = path.relative_to(ROOT)
    if rel.name == "__init__.py":
        name = f"test_{rel.parent.name.lstrip('_')}.py"
        return TESTS / rel.parent.parent / name, TESTS / rel.parent / name
    folder, module = rel.parent, rel.stem.lstrip("_")
    out = [TESTS / folder / f"test_{module}.py"]
    if folder.name:
        out += [TESTS / folder / f"test_{folder.name}_{module}.py",
                TESTS / folder.parent / f"test_{folder.name}_{module}.py"]
    return tuple(out)


def mirrored_share() -> tuple[float, list[str]]:
    """(share of library modules with logic that have a mirrored test file, those that have none)."""
    modules = [p for p in sorted(ROOT.rglob("*.py")) if p != ROOT / "__init__.py" and _has_logic(p)]
    lacking = [str(p.relative_to(ROOT.parent)) for p in modules if not any(t.is_file() for t in mirrored_tests(p))]
    return 1 - len(lacking) / len(modules), lacking


def test_test_file_names_are_unique():
    """Test files are imported by their basename (tests/conftest.py): one name, one file."""
    seen: dict[str, list[str]] = {}
    for path in TESTS.rglob("test_*.py"):
        seen.setdefault(path.name, []).append(str(path.relative_to(TESTS)))
    assert not {name: paths for name, paths in seen.items() if len(paths) > 1}


def test_mirrored_test_share():
    share, lacking = mirrored_share()
    print(f"modules with logic that have a mirrored test file: {share:.0%} ({len(lacking)} lack one)")
    assert share >= MIRRORED_FLOOR, f"{share:.0%} < {MIRRORED_FLOOR:.0%}; without one: {lacking}"


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
    share, lacking = mirrored_share()
    print(f"modules with logic that have a mirrored test file (tests/<package>/test_<module>.py): {share:.0%}; "
          f"{len(lacking)} lack one:")
    for name in lacking:
        print("  " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
