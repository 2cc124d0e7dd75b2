"""The one misfit test: log residuals of each seed's binned profile against a reference, calibrated by
sign flips of whole seeds.

Shapes: S rows (seeds), L positions (1-based j, x = j / L), B' <= MISFIT_BINS bins.

    m = misfit_test(profiles, reference)   # profiles [S, L], reference [L] or paired [S, L]
    m.reduced, m.dof, m.p_value            # T / dof (about 1 within independent noise), sign-flip p-value
    m.columns()                            # {"chi2_dof": ..., "dof": ..., "p_misfit": ...}

Null hypothesis. Let P_s,b be the mass that seed s's normalized row puts in bin b of B' equal bins of x
(B' = min(L, MISFIT_BINS), or the caller's bins when fewer), and Q_b the same for the reference. The test
asks whether

    H0:  log P_s,b = log Q_b + c_s + e_s,b   (s = 1..S, b = 1..B'),

with c_s a free constant per seed (it absorbs the normalization), the noise vectors e_s = (e_s,1..e_s,B')
independent between seeds and each symmetric about 0 (e_s has the law of -e_s). Then Q is, up to scale,
the geometric mean of the bin masses, Q_b proportional to exp E[log P_s,b]: the reference the test calls
right. Under H0 the test is exact (P(p <= alpha) <= alpha at every S), whatever the correlation between
bins (noise shared by a seed, AR(1) along positions, a random tilt of each seed's log-profile) and however
heavy the tails of e_s, because flipping whole seeds' signs leaves the law of the residuals unchanged.
With a paired reference (rows Q_s from the same seeds, e.g. RoPE off) H0 is that P_s and Q_s are
exchangeable given the seed (noise only): log P_s - log Q_s is then exactly symmetric.

What it assumes, and where it is approximate:

- the seeds are independent (a shared draw between seeds is not noise the test can see);
- the reference is the geometric mean exp E[log P], not the arithmetic mean E[P]. The two differ by
  E[P_b] / exp E[log P_b], about exp(sigma_b^2 / 2) for log-normal bin noise of log-sd sigma_b: a constant
  (absorbed by c_s) when every bin is equally noisy, but not where the noise grows along the context or a
  recency spike varies between seeds; there E[P] is a (slightly) wrong reference, rejected once S is
  large (benchmarks/misfit_false_alarm.py prints that rate beside the false alarm);
- symmetry of the log bin masses: exact for log-symmetric noise of the bin masses, approximate when the
  noise per position is skewed (a chi^2 probe, additive t noise) and a bin sums few positions;
  benchmarks/misfit_false_alarm.py measures the false alarm under 9 noise kinds (docs/step0.md);
- bins where the reference or a row has no mass are left out (log 0).

The residuals and the statistic are in :func:`misfit_test`. Every table that reports a misfit (Step-0
metrics.csv and agreement.csv, the Step-0 study's variants.csv) writes these columns (:func:`misfit_columns`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import numpy as np

from .._moved import old_names
from ..validation import check_int
from ._profiles import bin_matrix, profiles_and_reference


MISFIT_BINS = 16  # coarsest binning the test runs on (finer bins: see misfit_test)
FLIPS = 4096  # sign patterns: every one of the 2^(S-1) when that is fewer, else a random sample


@dataclasses.dataclass(frozen=True)
class Misfit:
    """Relative residuals of the profile against a reference, calibrated by flipping the signs of whole seeds.

    Attributes:
      chi2: T = S sum_b dbar_b^2 / m2_b (:func:`misfit_test`); about chi^2_dof when the bins are
        independent and the reference is right.
      dof: bins used, less 1 (both sides are distributions) and less the parameters fitted to the profile.
      p_value: the sign-flip p-value P(T* >= T) (the calibration; not the chi^2 tail).
      min_p: the smallest p-value the seeds can give (2 / 2^S: a test with min_p >= 0.05 cannot reject).
      bins: bins the test ran on.
    """

    chi2: float
    dof: int
    p_value: float
    min_p: float = math.nan
    bins: int = 0

    @property
    def reduced(self) -> float:
        """chi2 / dof (about 1 when the reference is right up to independent noise)."""
        return self.chi2 / self.dof if self.dof > 0 else math.nan

    def can_reject(self, alpha: float = 0.05) -> bool:
        """Whether these seeds could give p < alpha at all."""
        return self.min_p < alpha

    def columns(self, suffix: str = "") -> dict:
        """Flat CSV columns chi2_dof{suffix} (= reduced), dof{suffix}, p_misfit{suffix}."""
        return misfit_columns(self, suffix)


@functools.lru_cache(maxsize=32)
def _sign_patterns(rows: int, flips: int, seed: int) -> tuple[np.ndarray, bool]:
    """[n, S] signs with the first column +1 (T(e) = T(-e)); every pattern when 2^(S-1) <= flips.

    Cached (read-only): the same (rows, flips, seed) always gives the same patterns."""
    signs, exact = _draw_sign_patterns(rows, flips, seed)
    signs.setflags(write=False)
    return signs, exact


def _draw_sign_patterns(rows: int, flips: int, seed: int) -> tuple[np.ndarray, bool]:
    if rows - 1 <= math.log2(flips):
        grid = np.array(list(itertools.product((1.0, -1.0), repeat=rows - 1))).reshape(-1, rows - 1)
        return np.hstack([np.ones((grid.shape[0], 1)), grid]), True
    signs = np.random.default_rng(seed).choice((1.0, -1.0), size=(flips, rows))
    signs[:, 0] = 1.0
    return signs, False


def _log_residuals(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """[S, B'] centred log residuals of normalized rows p [S, W] against q [W] or paired [S, W].

    P_s,b = sum_{j in b} p_s,j and Q_b the same sums of q over B' = min(W, MISFIT_BINS) equal bins of x
    (the W units themselves when W <= MISFIT_BINS); bins where Q or any row's P is 0 are left out;
    r_s,b = log P_s,b - log Q_b, less the seed's own mean over the bins kept, which removes its free
    scale (the normalization): d_s,b = r_s,b - (1/B') sum_c r_s,c.
    """
    width = p.shape[1]
    if width > MISFIT_BINS:
        coarse = bin_matrix(width, MISFIT_BINS)
        p, q = p @ coarse, q @ coarse
    q = np.broadcast_to(q, p.shape)
    positive = np.all(p > 0, axis=0) & np.all(q > 0, axis=0)
    r = np.log(p[:, positive]) - np.log(q[:, positive])
    return r - r.mean(1, keepdims=True)


def misfit_test(profiles, reference, *, bins: int | None = None, fitted: int = 0, flips: int = FLIPS,
                seed: int = 0) -> Misfit:
    """Whether the reference misses the profile by more than the seeds' own spread (a systematic misfit).

    Residuals (:func:`_log_residuals`): with P_s,b the mass of the normalized row of seed s in each of
    B' = min(W, MISFIT_BINS) equal bins of x (W = L, or the caller's ``bins``) and Q_b the same for the
    reference (or paired rows Q_s,b), r_s,b = log P_s,b - log Q_b less the seed's own mean over bins:
    d_s,b [S, B'] (sum_b d_s,b = 0). Statistic:

        T = S sum_b dbar_b^2 / m2_b,   dbar_b = (1/S) sum_s d_s,b,   m2_b = (1/S) sum_s d_s,b^2.

    Null hypothesis H0 (the module docstring states it with its assumptions): the seeds' vectors d_s are
    independent and each symmetric about 0, d_s ~ -d_s. It holds when log Q_b = E[log P_s,b] + c (Q is
    the normalized geometric mean of the bin masses, exp E log P, not the arithmetic E[P]) and each
    seed's vector of log bin masses is symmetric about its mean, whatever its correlation across bins;
    with a paired reference it holds when P_s and Q_s are exchangeable (noise only). Under H0 flipping
    the signs of whole seeds leaves the law of (d_s) unchanged, so the p-value, the share of sign
    patterns e with T(e) >= T, is exact: P(p <= alpha) <= alpha (every pattern when 2^(S-1) <= flips, else a random sample,
    p = (1 + #) / (1 + flips)). m2_b does not change under flips (T is studentized per bin, any
    correlation between bins affects power only). With S seeds the smallest p is 2 / 2^S (S <= 5
    cannot reject at 5%).

    Args:
      profiles: [S, L] (S >= 2), non-negative, finite.
      reference: [L] or paired [S, L] (same seeds, e.g. RoPE off).
      bins: None (raw positions) or W equal bins of x; the test sums them into at most MISFIT_BINS bins.
      fitted: parameters of the reference fitted to this profile (reported in dof; the test is then
        conservative).
      flips: sign patterns sampled when there are more.
      seed: seed of the sampled patterns.
    """
    p, q = profiles_and_reference(profiles, reference, bins)
    rows = p.shape[0]
    if rows < 2:
        raise ValueError(f"profiles must have >= 2 rows (seeds) for a misfit test, got {rows}")
    fitted = check_int("fitted", fitted, 0)
    flips = check_int("flips", flips, 1)
    d = _log_residuals(p, q)
    m2 = (d ** 2).mean(0)
    d, m2 = d[:, m2 > 0], m2[m2 > 0]
    used = min(p.shape[1], MISFIT_BINS)
    dof = d.shape[1] - 1 - fitted
    min_p = 2.0 / 2.0 ** rows
    if dof < 1:
        return Misfit(math.nan, max(dof, 0), math.nan, min_p, used)
    signs, exact = _sign_patterns(rows, flips, seed)
    t_all = ((signs @ d) ** 2 @ (1.0 / m2)) / rows  # [n] = S sum_b (e.d_b / S)^2 / m2_b; row 0: identity
    t0 = float(rows * ((d.mean(0)) ** 2 / m2).sum())
    hits = int(np.sum(t_all >= t0 * (1 - 1e-12)))
    p_value = hits / signs.shape[0] if exact else (1 + hits) / (1 + signs.shape[0])
    return Misfit(t0, dof, float(p_value), min_p if exact else max(min_p, 1.0 / (1 + flips)), used)


def misfit_columns(misfit: Misfit | None, suffix: str = "") -> dict:
    """{chi2_dof{suffix}: chi2 / dof, dof{suffix}: dof, p_misfit{suffix}: p}; NaN, None, NaN for None (no misfit)."""
    return {f"chi2_dof{suffix}": misfit.reduced if misfit else math.nan, f"dof{suffix}": misfit.dof if misfit else None,
            f"p_misfit{suffix}": misfit.p_value if misfit else math.nan}


__all__ = ["MISFIT_BINS", "Misfit", "misfit_columns", "misfit_test"]


__getattr__ = old_names(__name__)  # log_misfit: lostmid_jax._moved.NAMES (warns once, for one release)
