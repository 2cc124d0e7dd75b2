"""Exact influence rows w_j = (N_H ... N_1)[L, j] in O(H L).

For a row vector r, (r M)_j = sum_{i >= j} r_i / i is a suffix sum, so one
residual block N = (1 - a) I + a M acts on the last row as

    r <- (1 - a) r + a * suffix_cumsum(r / i),      r_0 = e_L.

All N_l are polynomials in M and commute, so the layer order is irrelevant.
Every term is positive (no cancellation): float64 is accurate to ~1e-15
relative until values underflow; :func:`log_influence_row` covers deep stacks
and the ``mpmath`` / ``arb`` / ``exact`` backends give any precision.
"""

from __future__ import annotations

import numpy as np

from ._validate import alpha_schedule, check_backend, check_depth, check_dps, check_length
from . import influence_exact, influence_jax


def influence_row(length: int, depth: int, alpha, *, backend: str = "float64", dps: int = 50):
    """Influence of each input position 1..L on the last position L after H blocks.

    w_j = (N_H ... N_1)[L, j], N_l = (1 - a_l) I + a_l M (Chowdhury,
    arXiv:2603.10123, with M the Cesàro matrix). The row sums to 1.

    Args:
      length: L >= 1, number of positions.
      depth: H >= 0, number of residual attention blocks.
      alpha: a in [0, 1] for every layer, or a sequence of H per-layer values.
      backend: "float64" (numpy array [L]), "jax" (jitted float64 jax array
        [L]), "mpmath" (list of L mpf at ``dps`` digits, local context),
        "arb" (list of L python-flint arb balls certified to contain the exact
        value), "exact" (list of L ``fractions.Fraction``; small L only).
      dps: decimal digits for "mpmath" and "arb".

    Returns:
      The row, index j-1 holding w_j.

    >>> influence_row(3, 1, 0.5)
    array([0.16666667, 0.16666667, 0.66666667])
    >>> influence_row(3, 2, 1, backend="exact")
    [Fraction(11, 18), Fraction(5, 18), Fraction(1, 9)]
    """
    length = check_length(length)
    depth = check_depth(depth)
    schedule = alpha_schedule(depth, alpha)
    backend = check_backend(backend)
    if backend == "float64":
        return _row_float64(length, schedule)
    if backend == "jax":
        return influence_jax.row_jax(length, schedule)
    if backend == "exact":
        return influence_exact.row_exact(length, schedule)
    dps = check_dps(dps)
    if backend == "mpmath":
        return influence_exact.row_mpmath(length, schedule, dps)
    return influence_exact.row_arb(length, schedule, dps)


def _row_float64(length: int, schedule: tuple) -> np.ndarray:
    inv = 1.0 / np.arange(1, length + 1, dtype=np.float64)
    row = np.zeros(length)
    row[-1] = 1.0
    for a in schedule:
        a = float(a)
        suffix = np.cumsum((row * inv)[::-1])[::-1]
        row = (1.0 - a) * row + a * suffix
    return row


def log_influence_row(length: int, depth: int, alpha) -> np.ndarray:
    """Natural log of :func:`influence_row`, computed in log space (float64).

    The same recurrence with sums done by ``logaddexp``: no underflow, so deep
    stacks (e.g. H = 200, a = 1, where middle values are ~1e-300 and below)
    get correct values. Entries that are exactly zero (a = 0 paths) are -inf.
    Each logaddexp loses ~|log w| * 1e-16 in absolute log terms, so relative
    accuracy is ~1e-12 rather than 1e-15 for entries far below 1.

    Args:
      length: L >= 1.
      depth: H >= 0.
      alpha: a in [0, 1] or a sequence of H per-layer values.

    Returns:
      float64 array [L] with log w_j.

    >>> np.round(np.exp(log_influence_row(3, 2, 1)) * 18, 12)
    array([11.,  5.,  2.])
    """
    length = check_length(length)
    depth = check_depth(depth)
    schedule = alpha_schedule(depth, alpha)
    log_inv = -np.log(np.arange(1, length + 1, dtype=np.float64))
    log_row = np.full(length, -np.inf)
    log_row[-1] = 0.0
    with np.errstate(divide="ignore"):
        for a in schedule:
            a = float(a)
            if a == 0.0:
                continue
            log_suffix = np.logaddexp.accumulate((log_row + log_inv)[::-1])[::-1]
            if a == 1.0:
                log_row = log_suffix
            else:
                log_row = np.logaddexp(np.log1p(-a) + log_row, np.log(a) + log_suffix)
    return log_row
