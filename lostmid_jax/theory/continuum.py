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

from ..validation import check_choice, check_float_like, check_real, python_scalar
from . import _costs
from ._validate import alpha_schedule, check_depth, check_dps, to_fraction
from .hops import field_hop_distribution, log_hop_distribution

_X_MESSAGE = "x must be a number or an array of numbers, finite and in (0, 1]"


def _check_x(x) -> np.ndarray:
    """x as a float64 array (any shape), every entry finite and in (0, 1]."""
    x = python_scalar(x)
    if x is None or isinstance(x, (str, bytes, bool, dict, set)):
        raise ValueError(f"{_X_MESSAGE}, got {x!r}")
    try:
        arr = np.asarray(x)
        if arr.dtype.kind not in "iufO":  # no bools, complex numbers, strings
            raise TypeError(arr.dtype)
        arr = arr.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{_X_MESSAGE}, got {x!r}") from None
    bad = ~(np.isfinite(arr) & (arr > 0) & (arr <= 1))
    if np.any(bad):
        raise ValueError(f"{_X_MESSAGE}, got {float(arr[bad].flat[0])!r}" + (f" (in x of shape {arr.shape})" if arr.ndim else ""))
    return arr


def _check_x_exact(x) -> tuple[list, bool]:
    """x for the mpmath path: (list of validated reals kept exact, whether x was one number)."""
    x = python_scalar(x)
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return [check_real("x", x, 0, 1, open_min=True)], True
    if x is None or isinstance(x, (str, bytes, bool, dict, set)) or not hasattr(x, "__iter__"):
        raise ValueError(f"{_X_MESSAGE}, got {x!r}")
    if hasattr(x, "__len__"):
        _costs.check_items(len(x), f"x with {len(x)} points")
    return [check_real("x", v, 0, 1, open_min=True) for v in x], False


def recency_weight(depth: int, alpha):
    """Weight of the recency delta at x = 1: prod_l (1 - a_l) = P(hops = 0).

    >>> recency_weight(3, 0.5)
    0.125
    """
    depth = check_depth(depth)
    _costs.check_layers(depth)
    schedule = alpha_schedule(depth, alpha)
    return float(np.prod([1.0 - float(a) for a in schedule])) if depth else 1.0


def log_continuum_density(x, depth: int, alpha) -> np.ndarray:
    """Natural log of the smooth part of rho_H(x), float64, never underflowing.

    log sum_{k>=1} exp(log P(hops=k) + (k-1) log t - lgamma(k)), t = ln(1/x);
    -inf where the smooth part is exactly 0 (H = 0 or all a_l = 0).
    """
    arr = _check_x(x)
    depth = check_depth(depth)
    _costs.check_density(arr.size, depth)
    log_p = log_hop_distribution(depth, alpha)[1:]
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
        closed form; constant a only). In float64 the Laguerre polynomial
        is evaluated by scipy where that is accurate, and where it
        overflows or the prefactor (1-a)^(H-1) underflows (a -> 1, x -> 0,
        large H) by its series of positive terms in log space,
        L^(1)_n(-z) = sum_k C(n+1, n-k) z^k / k!.

    Raises:
      ValueError: naming the argument (x None, a string, NaN, inf or out of
        (0, 1]; ...), or when the work or memory is over the limits of
        :mod:`.resources` (H^2 for the hop distribution, H per point of x).

    >>> round(float(continuum_density(0.5, 3, 1.0)), 12)  # (ln 2)^2 / 2!
    0.240226506959
    >>> hops = continuum_density(0.5, 3, 0.5, dps=30)
    >>> abs(hops - continuum_density(0.5, 3, 0.5, dps=30, form="laguerre")) < 1e-28
    True
    """
    depth = check_depth(depth)
    form = check_choice("form", python_scalar(form), ("hops", "laguerre"))
    if dps is None:
        arr = _check_x(x)
        _costs.check_density(arr.size, depth)
        _costs.check_hops(depth, "log")
        schedule = alpha_schedule(depth, alpha)
        _check_constant(form, schedule)
        if form == "hops":
            out = np.exp(log_continuum_density(arr, depth, schedule))
        else:
            out = _laguerre_float64(arr, depth, float(schedule[0]) if depth else 0.0)
        return float(out) if arr.ndim == 0 else out
    ctx = mpmath.MPContext()
    ctx.dps = check_dps(dps)
    xs, scalar = _check_x_exact(x)
    _costs.check_density(len(xs), depth, "mpmath", dps=ctx.dps)
    if form == "hops":
        _costs.check_hops(depth, "mpmath", dps=ctx.dps + 5)
    schedule = alpha_schedule(depth, alpha)
    _check_constant(form, schedule)
    if form == "hops":
        probs = field_hop_distribution(schedule, "mpmath", ctx.dps + 5)
        values = [_hops_mp(ctx, ctx.mpf(v), probs) for v in xs]
    else:
        a = to_fraction(schedule[0]) if depth else 0
        values = [_laguerre_mp(ctx, ctx.mpf(v), depth, ctx.mpf(a.numerator) / a.denominator if depth else ctx.zero) for v in xs]
    return values[0] if scalar else values


def _check_constant(form: str, schedule: tuple) -> None:
    if form == "laguerre" and len(set(schedule)) > 1:
        raise ValueError("form='laguerre' needs a constant alpha; use form='hops' for schedules")


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
    with np.errstate(all="ignore"):
        prefactor = a * (1 - a) ** (depth - 1)
        polynomial = special.eval_genlaguerre(depth - 1, 1, -(a / (1 - a)) * t)
        out = prefactor * polynomial
    tiny = np.finfo(np.float64).tiny
    lost = ~(np.isfinite(polynomial) & np.isfinite(out) & (out >= tiny)) | (prefactor < tiny)
    if np.any(lost):  # overflow of L, underflow of (1-a)^(H-1): the positive series in log space
        out = np.where(lost, np.exp(_log_laguerre_series(np.where(lost, t, 0.0), depth, a)), out)
    return out


def _log_laguerre_series(t, depth, a):
    """log of a (1-a)^(H-1) L^(1)_{H-1}(-z), z = a t / (1-a), from the positive series (float64, any shape of t).

    L^(1)_n(-z) = sum_{k=0}^n C(n+1, n-k) z^k / k!, n = H - 1: every term is
    positive, so the log-sum-exp loses only ~|term| 1e-16 per term.
    """
    n = depth - 1
    k = np.arange(n + 1, dtype=np.float64)
    log_binom = special.gammaln(n + 2) - special.gammaln(n - k + 1) - special.gammaln(k + 2)
    z = (a / (1 - a)) * np.asarray(t, dtype=np.float64)[..., None]
    with np.errstate(divide="ignore"):
        terms = log_binom + special.xlogy(k, z) - special.gammaln(k + 1)
    return np.log(a) + n * np.log1p(-a) + special.logsumexp(terms, axis=-1)


def continuum_moment(m, depth: int, alpha):
    """int_0^1 x^m rho_H(x) dx, delta included: prod_l (1 - a_l + a_l / (m + 1)).

    Each hop multiplies x by an independent Uniform(0, 1), whose m-th moment
    is 1/(m+1). m = 0 gives the total mass 1.

    >>> continuum_moment(1, 2, 0.5)
    0.5625
    """
    m = check_float_like("m", m, -1, open_min=True)
    depth = check_depth(depth)
    _costs.check_layers(depth)
    schedule = alpha_schedule(depth, alpha)
    return float(np.prod([1.0 - float(a) + float(a) / (m + 1.0) for a in schedule])) if depth else 1.0
