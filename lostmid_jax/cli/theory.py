"""``lostmid theory``: the exact Step-0 profile for one (L, H, a)."""

from __future__ import annotations

import math

from ..experiments.arguments import float_list


def _alpha(text: str):
    """A number, or comma-separated per-layer values."""
    values = float_list(text)
    if not values:
        raise ValueError(f"--alpha must be a number or comma-separated numbers, got {text!r}")
    return values[0] if len(values) == 1 else list(values)


def add_arguments(p) -> None:
    """The flags of ``lostmid theory``."""
    p.description = ("Exact last-row influence of N_H...N_1, N = (1-a)I + aM (Cesàro M), "
                     "summarized as recency weight, primacy mass, middle density, valley and peak-to-trough.")
    p.add_argument("--length", type=int, default=2048, help="L, number of positions (>= 1)")
    p.add_argument("--depth", type=int, default=24, help="H, number of blocks (>= 0)")
    p.add_argument("--alpha", type=str, default="0.5", help="a in [0, 1], or H comma-separated values")
    p.add_argument(
        "--backend",
        choices=["float64", "log", "jax", "mpmath", "arb"],
        default="log",
        help="row backend (log: float64 in log space, never underflows)",
    )
    p.add_argument("--dps", type=int, default=50, help="digits for mpmath / arb")
    p.add_argument("--band", type=float, default=0.1, help="primacy / late band width in x")
    from ..experiments.script import add_limits_argument

    add_limits_argument(p)


def _log_row(args, alpha):
    import numpy as np

    from .. import theory

    if args.backend == "log":
        return theory.log_influence_row(args.length, args.depth, alpha)
    row = theory.influence_row(args.length, args.depth, alpha, backend=args.backend, dps=args.dps)
    if args.backend in ("mpmath", "arb"):
        import mpmath

        ctx = mpmath.MPContext()
        ctx.dps = args.dps
        logs = []
        for value in row:
            mid = ctx.mpf(value.mid().str(args.dps + 5, radius=False)) if args.backend == "arb" else value
            logs.append(float(ctx.log(mid)) if mid > 0 else -math.inf)
        return np.asarray(logs)
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(row, dtype=np.float64))


def run(args) -> int:
    from .. import theory
    from ..experiments.script import apply_limits
    from ..validation import check_int

    apply_limits(args)
    check_int("--dps", args.dps, 5)
    alpha = _alpha(args.alpha)
    log_row = _log_row(args, alpha)
    discrete = theory.summarize_log_row(log_row, band=args.band)
    continuum = theory.continuum_summary(args.depth, alpha, band=args.band)
    print(f"Step-0 influence on the last token: L={args.length}, H={args.depth}, a={args.alpha}, backend={args.backend}")
    print(f"{'quantity':<34}{'discrete L':>16}{'continuum':>16}")
    rows = [
        ("recency weight (last token)", discrete.recency_weight, continuum.recency_weight),
        (f"primacy mass (x <= {args.band:g})", discrete.primacy_mass, continuum.primacy_mass),
        ("middle mass", discrete.middle_mass, continuum.middle_mass),
        (f"late mass (x >= {1 - args.band:g}, not last)", discrete.late_mass, continuum.late_mass),
        (f"log10 middle density (x={discrete.middle_x:.3g})", discrete.log10_middle_density, continuum.log10_middle_density),
        ("valley position x", discrete.valley_x, continuum.valley_x),
        ("log10 valley density", discrete.log10_valley_density, continuum.log10_valley_density),
    ]
    for name, d, c in rows:
        print(f"{name:<34}{d:>16.6g}{c:>16.6g}")
    print(f"{'log10 peak-to-trough':<34}{discrete.log10_peak_to_trough:>16.6g}{'(infinite)':>16}")
    return 0
