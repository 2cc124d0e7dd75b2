"""``lostmid report RUN_DIR``: one self-contained HTML page of a run, readable offline."""

from __future__ import annotations


def add_arguments(p) -> None:
    """The flags of ``lostmid report``."""
    p.description = ("Write one HTML file that opens offline in any browser: the run's figures embedded, "
                     "verdict, summary, tables (first rows), column dictionary, config, package versions "
                     "and git revision. Nothing is fetched from elsewhere.")
    p.add_argument("run_dir", help="a run directory (config.json, CSV files)")
    p.add_argument("--out", default=None, metavar="FILE", help="the HTML file (default: RUN_DIR/report.html)")
    p.add_argument("--rows", type=int, default=20, help="rows shown per table (default: 20)")


def run(args) -> int:
    from ..present.report import write_report

    path = write_report(args.run_dir, args.out, rows=args.rows)
    print(path)
    return 0
