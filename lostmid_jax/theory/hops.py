"""Hop-count distribution: how many of the H blocks route through attention.

Expanding N_H ... N_1 with N_l = (1 - a_l) I + a_l M gives
N^H = sum_k P(hops = k) M^k, where the hop count ``hops`` is the number of
layers whose attention branch is taken: Binomial(H, a) for constant a,
Poisson-binomial(a_1..a_H) in general. (The letter K is kept for the
Jacobian engine's cotangents.)
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from ..validation import check_choice, python_scalar
from . import _costs
from ._validate import alpha_schedule, check_depth, check_dps, to_fraction


def hop_distribution(depth: int, alpha, *, backend: str = "float64", dps: int = 50):
    """P(hops = k) for k = 0..H.

    Args:
      depth: H >= 0.
      alpha: a in [0, 1] or a sequence of H per-layer values.
      backend: "float64" (numpy [H+1]), "mpmath" (list of mpf at ``dps``
        digits) or "exact" (list of Fraction).
      dps: digits for "mpmath", an int in [5, max_dps] (checked for every backend).

    Raises:
      ValueError: naming the argument; also when the O(H^2) recursion is over
        the limits of :mod:`.resources`.

    >>> hop_distribution(2, 0.5)
    array([0.25, 0.5 , 0.25])
    >>> hop_distribution(2, [Fraction(1, 3), 1], backend="exact")
    [Fraction(0, 1), Fraction(2, 3), Fraction(1, 3)]
    """
    depth = check_depth(depth)
    backend = check_choice("backend", python_scalar(backend), ("float64", "mpmath", "exact"))
    dps = check_dps(dps)
    _costs.check_hops(depth, "log" if backend == "float64" else backend, dps=dps)
    schedule = alpha_schedule(depth, alpha)
    if backend == "float64":
        return np.exp(log_hop_distribution(depth, schedule))
    if backend == "exact":
        _costs.check_hops(depth, backend, schedule=schedule)
    return field_hop_distribution(schedule, backend, dps)


def field_hop_distribution(schedule: tuple, backend: str, dps: int = 50) -> list:
    """P(hops = k), k = 0..H, for a validated schedule: Fractions ("exact") or mpf at ``dps`` digits ("mpmath")."""
    depth = len(schedule)
    if backend == "exact":
        values = [to_fraction(a) for a in schedule]
        one, zero = Fraction(1), Fraction(0)
    else:
        ctx = mpmath.MPContext()
        ctx.dps = dps
        values = [ctx.mpf(to_fraction(a).numerator) / to_fraction(a).denominator for a in schedule]
        one, zero = ctx.one, ctx.zero
    probs = [one] + [zero] * depth
    for n, a in enumerate(values, start=1):
        for k in range(n, 0, -1):
            probs[k] = probs[k] * (one - a) + probs[k - 1] * a
        probs[0] = probs[0] * (one - a)
    return probs


def log_hop_distribution(depth: int, alpha) -> np.ndarray:
    """log P(hops = k), k = 0..H, by a log-space Poisson-binomial recursion (float64).

    Stays finite where P(hops = k) underflows (e.g. a^H for large H); exact
    zeros (a = 0 or 1 layers) are -inf.
    """
    depth = check_depth(depth)
    _costs.check_hops(depth, "log")
    schedule = alpha_schedule(depth, alpha)
    log_p = np.full(depth + 1, -np.inf)
    log_p[0] = 0.0
    with np.errstate(divide="ignore"):
        for a in schedule:
            a = float(a)
            stay, hop = np.log1p(-a) if a < 1 else -np.inf, np.log(a)
            shifted = np.concatenate([[-np.inf], log_p[:-1]])
            log_p = np.logaddexp(log_p + stay, shifted + hop)
    return log_p
