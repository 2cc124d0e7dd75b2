"""Continuum (L -> infinity) influence density rho_H(x), x = j/L in (0, 1].

The Cesàro matrix becomes the averaging operator (Mf)(x) = (1/x) int_0^x f,
whose k-th power has kernel (1/x) (ln(x/t))^(k-1) / (k-1)!. Evaluated at the
last position this gives (Chowdhury, arXiv:2603.10123; proofs/ in this repo)

    rho_H(x) = P(hops=0) delta(1 - x) + sum_{k>=1} P(hops=k) (ln 1/x)^(k-1) / (k-1)!

with ``hops`` the hop count (:mod:`.hops`). The delta is the recency weight
(prod_l (1 - a_l)); the smooth part diverges at x -> 0 (primacy tail). In
log-position t = ln(1/x) the smooth part is a mixture of Gamma(k, 1) laws.
For constant a in (0, 1) it has the Laguerre closed form

    a (1-a)^(H-1) L^(1)_{H-1}( -(a / (1-a)) ln(1/x) ).
"""

from __future__ import annotations

import numbers

import mpmath
import numpy as np
from scipy import special

from ..validation import check_choice, check_float
from ._validate import alpha_schedule, check_depth, check_dps, to_fraction
from .hops import hop_distribution, log_hop_distribution


def _check_x(x):
    arr = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0) or np.any(arr > 1):
        raise ValueError("x must be finite and in (0, 1]")
    return arr


def recency_weight(depth: int, alpha):
    """Weight of the recency delta at x = 1: prod_l (1 - a_l) = P(hops = 0).

    >>> recency_weight(3, 0.5)
    0.125
    """
    depth = check_depth(depth)
    schedule = alpha_schedule(depth, alpha)
    return float(np.prod([1.0 - float(a) for a in schedule])) if depth else 1.0


def log_continuum_density(x, depth: int, alpha) -> np.ndarray:
    """Natural log of the smooth part of rho_H(x), float64, never underflowing.

    log sum_{k>=1} exp(log P(hops=k) + (k-1) log t - lgamma(k)), t = ln(1/x);
    -inf where the smooth part is exactly 0 (H = 0 or all a_l = 0).
    """
    arr = _check_x(x)
    log_p = log_hop_distribution(check_depth(depth), alpha)[1:]
    if log_p.size == 0:
        return np.full(arr.shape, -np.inf)
    k = np.arange(1, log_p.size + 1, dtype=np.float64)
    t = -np.log(arr)[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        power = np.where(k == 1, 0.0, (k - 1) * np.log(t))
        terms = log_p + power - special.gammaln(k)
    return special.logsumexp(terms, axis=-1)


def continuum_density(x, depth: int, alpha, *, dps: int | None = None, form: str = "hops"):
    """Smooth part of rho_H(x) (the delta at x = 1 is :func:`recency_weight`).

    Args:
      x: position(s) in (0, 1]; a number or an array (float64 path).
      depth: H >= 0.
      alpha: a in [0, 1] or a sequence of H per-layer values.
      dps: None for float64 (numpy array or float, summed in log space so
        intermediate terms never overflow); an int for mpmath at that many
        digits (mpf, or list of mpf for a sequence of x).
      form: "hops" (sum over hop counts; any schedule) or "laguerre" (the
        closed form; constant a only).

    >>> round(float(continuum_density(0.5, 3, 1.0)), 12)  # (ln 2)^2 / 2!
    0.240226506959
    >>> hops = continuum_density(0.5, 3, 0.5, dps=30)
    >>> abs(hops - continuum_density(0.5, 3, 0.5, dps=30, form="laguerre")) < 1e-28
    True
    """
    depth = check_depth(depth)
    schedule = alpha_schedule(depth, alpha)
    form = check_choice("form", form, ("hops", "laguerre"))
    if form == "laguerre" and len(set(schedule)) > 1:
        raise ValueError("form='laguerre' needs a constant alpha; use form='hops' for schedules")
    if dps is None:
        arr = _check_x(x)
        if form == "hops":
            out = np.exp(log_continuum_density(arr, depth, alpha))
        else:
            out = _laguerre_float64(arr, depth, float(schedule[0]) if depth else 0.0)
        return float(out) if np.ndim(x) == 0 else out
    ctx = mpmath.MPContext()
    ctx.dps = check_dps(dps)
    scalar = isinstance(x, (numbers.Real, mpmath.mpf))
    xs = [x] if scalar else list(x)
    for value in xs:
        _check_x(float(value))
    if form == "hops":
        probs = hop_distribution(depth, alpha, backend="mpmath", dps=ctx.dps + 5)
        values = [_hops_mp(ctx, ctx.mpf(v), probs) for v in xs]
    else:
        a = to_fraction(schedule[0]) if depth else 0
        values = [_laguerre_mp(ctx, ctx.mpf(v), depth, ctx.mpf(a.numerator) / a.denominator if depth else ctx.zero) for v in xs]
    return values[0] if scalar else values


def _hops_mp(ctx, x, probs):
    t = ctx.log(1 / x)
    total, power = ctx.zero, ctx.one  # power = t^(k-1)/(k-1)!
    for k in range(1, len(probs)):
        total += probs[k] * power
        power = power * t / k
    return +total


def _laguerre_mp(ctx, x, depth, a):
    if depth == 0 or a == 0:
        return ctx.zero
    t = ctx.log(1 / x)
    if a == 1:
        return t ** (depth - 1) / ctx.factorial(depth - 1)
    return a * (1 - a) ** (depth - 1) * ctx.laguerre(depth - 1, 1, -(a / (1 - a)) * t)


def _laguerre_float64(x, depth, a):
    if depth == 0 or a == 0.0:
        return np.zeros_like(x)
    t = -np.log(x)
    if a == 1.0:
        return np.exp(special.xlogy(depth - 1, t) - special.gammaln(depth))
    return a * (1 - a) ** (depth - 1) * special.eval_genlaguerre(depth - 1, 1, -(a / (1 - a)) * t)


def continuum_moment(m, depth: int, alpha):
    """int_0^1 x^m rho_H(x) dx, delta included: prod_l (1 - a_l + a_l / (m + 1)).

    Each hop multiplies x by an independent Uniform(0, 1), whose m-th moment
    is 1/(m+1). m = 0 gives the total mass 1.

    >>> continuum_moment(1, 2, 0.5)
    0.5625
    """
    check_float("m", m, -1, open_min=True)
    depth = check_depth(depth)
    schedule = alpha_schedule(depth, alpha)
    return float(np.prod([1.0 - float(a) + float(a) / (m + 1.0) for a in schedule])) if depth else 1.0
