"""Split an influence profile into recency delta, primacy tail and middle.

Bands over x = j/L (``band`` = 0.1 by default; :mod:`.middle` holds the
package's one definition of positions and of the middle), which partition
the mass:

    primacy  x <= band            (the attention-sink tail near the start)
    middle   band < x < 1 - band
    late     1 - band <= x, j < L (the smooth part just before the end)
    recency  j = L                (the residual-only delta, weight prod (1-a_l))

plus the middle density L * w at x = 1/2 (read at j_mid = max(1, floor(L/2))),
the valley (the smallest entry; for the Cesàro prior the smooth part
decreases in x, so the valley sits at j = L - 1, next to the recency delta,
not in the middle) and the peak-to-trough ratio max w / min w. Everything is
computed from log values so deep stacks do not underflow; densities and
ratios are reported as log10.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import special

from ..validation import python_scalar
from . import _costs
from ._validate import check_band, check_depth
from .continuum import log_continuum_density
from .hops import log_hop_distribution
from .middle import MIDDLE_X, band_masks, middle_index

_LN10 = math.log(10.0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProfileSummary:
    """Summary of one influence profile (discrete row or continuum density).

    Attributes:
      length: L, or None for the continuum limit.
      recency_weight: mass of the last token (delta at x = 1).
      log10_recency_weight: its log10 (finite where the weight underflows).
      primacy_mass: mass at x <= band.
      middle_mass: mass at band < x < 1 - band.
      late_mass: mass at x >= 1 - band, last token excluded.
      middle_x: the x where the middle density is read (1/2, or j/L nearest).
      log10_middle_density: log10 of the density there (L * w_j, or rho(x)).
      valley_x: x of the smallest entry (continuum: 1, the smooth part's
        minimum, approached from below).
      log10_valley_density: log10 of the density at the valley (-inf if 0).
      log10_peak_to_trough: log10(max w / min w) over the discrete row
        (inf if some entry is 0); None for the continuum (its peak is
        infinite at x -> 0).
    """

    length: int | None
    recency_weight: float
    log10_recency_weight: float
    primacy_mass: float
    middle_mass: float
    late_mass: float
    middle_x: float
    log10_middle_density: float
    valley_x: float
    log10_valley_density: float
    log10_peak_to_trough: float | None

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _log_mass(log_w: np.ndarray) -> float:
    return float(special.logsumexp(log_w)) if log_w.size else -math.inf


def summarize_log_row(log_row, *, band: float = 0.1) -> ProfileSummary:
    """Summary of a discrete row given as natural logs log w_j, j = 1..L.

    Args:
      log_row: float array [L] (from :func:`log_influence_row`, or
        ``np.log`` of a row summing to 1): entries <= 0; -inf entries mean exact zeros.
      band: width of the primacy and late bands, in (0, 0.5).
    """
    band = check_band(band)
    message = "log_row must be a 1-D array of length >= 1 with no NaN or +inf"
    raw = python_scalar(log_row)
    if raw is None or isinstance(raw, (str, bytes, bool, dict, set)):
        raise ValueError(f"{message}, got {raw!r}")
    try:
        log_row = np.asarray(raw)
        if log_row.dtype.kind not in "iufO":  # no bools, complex numbers or strings
            raise TypeError(log_row.dtype)
        log_row = log_row.astype(np.float64, copy=False)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{message}, got {raw!r}") from None
    if log_row.ndim != 1 or log_row.size < 1 or np.any(np.isnan(log_row)) or np.any(log_row == np.inf):
        raise ValueError(message)
    if np.any(log_row > 1e-9):  # a weight above 1 cannot be part of a distribution (and would overflow exp)
        raise ValueError(f"log_row must hold log weights <= 0 of a distribution, got a maximum of {log_row.max():g}")
    length = log_row.size
    bands = band_masks(length, band)
    j_mid = middle_index(length)
    j_min = int(np.argmin(log_row)) + 1
    low, high = float(log_row.min()), float(log_row.max())
    return ProfileSummary(
        length=length,
        recency_weight=math.exp(float(log_row[-1])),
        log10_recency_weight=float(log_row[-1]) / _LN10,
        primacy_mass=math.exp(_log_mass(log_row[bands.primacy])),
        middle_mass=math.exp(_log_mass(log_row[bands.middle])),
        late_mass=math.exp(_log_mass(log_row[bands.late])),
        middle_x=j_mid / length,
        log10_middle_density=(float(log_row[j_mid - 1]) + math.log(length)) / _LN10,
        valley_x=j_min / length,
        log10_valley_density=(low + math.log(length)) / _LN10,
        log10_peak_to_trough=(high - low) / _LN10,
    )


def continuum_summary(depth: int, alpha, *, band: float = 0.1) -> ProfileSummary:
    """The same summary for the L -> infinity density rho_H.

    In t = ln(1/x) the k-hop part is a Gamma(k, 1) law, so the band masses
    are regularized incomplete gamma functions:
    primacy = sum_k P(hops=k) Q(k, ln(1/band)),
    late = sum_k P(hops=k) P(k, -ln(1 - band)), and the middle is the rest of
    each Gamma law (computed directly, not as 1 minus the others).
    The smooth part decreases in x, so its infimum is at x = 1 and equals
    P(hops = 1) (zero for H >= 2 at a = 1).
    """
    band = check_band(band)
    depth = check_depth(depth)
    _costs.check_hops(depth, "log")
    log_p = log_hop_distribution(depth, alpha)
    p = np.exp(log_p)
    k = np.arange(1, depth + 1, dtype=np.float64)
    t_primacy, t_late = math.log(1.0 / band), -math.log(1.0 - band)
    primacy = float(np.sum(p[1:] * special.gammaincc(k, t_primacy)))
    late = float(np.sum(p[1:] * special.gammainc(k, t_late)))
    middle = float(np.sum(p[1:] * (special.gammainc(k, t_primacy) - special.gammainc(k, t_late))))
    return ProfileSummary(
        length=None,
        recency_weight=float(p[0]),
        log10_recency_weight=float(log_p[0]) / _LN10,
        primacy_mass=primacy,
        middle_mass=middle,
        late_mass=late,
        middle_x=MIDDLE_X,
        log10_middle_density=float(log_continuum_density(MIDDLE_X, depth, alpha)) / _LN10,
        valley_x=1.0,
        log10_valley_density=(float(log_p[1]) if depth else -math.inf) / _LN10,
        log10_peak_to_trough=None,
    )
