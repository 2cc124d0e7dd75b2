"""``lostmid table RUN_DIR --format md|tex|csv``: print a run's main table, ready to paste."""

from __future__ import annotations


def add_arguments(p) -> None:
    """The flags of ``lostmid table``."""
    p.description = ("Print the main table of RUN_DIR, read from its files alone (lostmid_jax.runs.load_run: no "
                     "symlink followed): diagnose: accuracy by position with 95% CIs and the closed-book and "
                     "oracle rows; remedies: remedy / verdict / delta middle / delta ends / Step-0 ratio; step0: "
                     "the claims table.")
    p.add_argument("run_dir", help="a run directory (config.json, CSV files)")
    p.add_argument("--format", default="md", help="md (Markdown), tex (LaTeX booktabs) or csv (default: md)")


def experiments_with_tables() -> tuple[str, ...]:
    """The experiments whose module has a main_table (imports their modules, not jax)."""
    from ..experiments import EXPERIMENTS, load

    return tuple(name for name in EXPERIMENTS if hasattr(load(name), "main_table"))


def run(args) -> int:
    from ..present.paste import check_format, render
    from ..runs.load import load_run

    fmt = check_format(args.format)
    loaded = load_run(args.run_dir)
    main_table = getattr(loaded.module, "main_table", None)
    if main_table is None:
        raise ValueError(f"run_dir: {loaded.path} is a {loaded.experiment} run, which has no main table; "
                         f"`lostmid table` prints those of {', '.join(experiments_with_tables())} runs")
    header, rows = main_table(loaded.tables, loaded.verdict)
    print(render(header, rows, fmt), end="")
    return 0
