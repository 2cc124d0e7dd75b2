"""``lostmid plot RUN_DIR``: redraw every figure of a run from its saved files alone."""

from __future__ import annotations


def add_arguments(p) -> None:
    """The flags of ``lostmid plot``."""
    p.description = ("Redraw the figures of RUN_DIR from its CSV files and config.json alone "
                     "(lostmid_jax.runs.load_run, then the experiment's figures(tables, cfg)).")
    p.add_argument("run_dir", help="a run directory (config.json, CSV files)")
    p.add_argument("--format", default="png", metavar="FORMATS",
                   help="comma-separated formats among png, pdf, svg (default: png)")
    p.add_argument("--out", default=None, metavar="DIR", help="where the figures go (default: RUN_DIR)")


def run(args) -> int:
    """Redraw and save; prints each file written. Into the run itself (however its path is spelled) or
    --out; an existing file that is not a figure lostmid wrote, and any other run, are never written."""
    from ..present.plot import draw, parse_formats, save_figures
    from ..runs.load import FIGURE_FORMATS, load_run
    from ..runs.outputs import check_figure_files, figures_dir, tidied

    formats = parse_formats(args.format)
    loaded = load_run(args.run_dir)
    out = figures_dir(loaded, args.out)
    figures = draw(loaded)
    paths = [out / f"{stem}.{fmt}" for stem in figures for fmt in FIGURE_FORMATS if fmt in formats]
    try:
        check_figure_files(loaded, paths, given=args.out is not None)
    except ValueError:
        _close(figures)
        raise
    with tidied(loaded, paths):
        written = save_figures(figures, out, formats)
    for path in written:
        print(path)
    print(f"{len(written)} figure files from {loaded.path} ({loaded.experiment})")
    return 0


def _close(figures: dict) -> None:
    import matplotlib.pyplot as plt

    for fig in figures.values():
        plt.close(fig)
