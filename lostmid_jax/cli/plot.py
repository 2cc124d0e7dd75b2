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
    """Redraw and save; prints each file written."""
    from ..runs.load import load_run
    from ..runs.plot import draw, parse_formats, save_figures

    from ..runs.claim import resolve_out
    from ..runs.config_file import CONFIG_FILE

    formats = parse_formats(args.format)
    loaded = load_run(args.run_dir)
    if args.out is None:  # into the run itself, however its path was spelled (".", relative, a symlink)
        out = loaded.path
    else:
        out = resolve_out(args.out)
        if out != loaded.path.resolve() and (out / CONFIG_FILE).exists():
            raise ValueError(f"out: {out} holds another run (its config.json); its figures are never overwritten: "
                             "choose a new --out, or omit it to redraw into RUN_DIR")
    written = save_figures(draw(loaded), out, formats)
    for path in written:
        print(path)
    print(f"{len(written)} figure files from {loaded.path} ({loaded.experiment})")
    return 0
