"""Statistics of measured profiles: pure numpy/scipy, no jax (one home per concept).

Shapes: S rows (seeds or replicates), L positions (1-based j, x = j / L), B bins.

    profile_metrics   Spearman, Wasserstein-1, U statistics, the valley power law, peak-to-trough
    profile_intervals mean_profile_intervals: bootstrap CIs of a mean profile's statistics (Step-0 metrics)
    agreement         agreement(profiles, reference): bootstrap 95% CIs and the noise ceiling
    misfit            misfit_test: THE misfit test (log residuals per seed, sign-flip calibrated)
    heldout           split_halves, heldout_score: fit on one half of the seeds, score on the other
    coverage          measured coverage of the agreement intervals; the caveat a verdict carries where it falls short
    columns           what the statistics' CSV columns mean: the one table experiments draw from
    format            fmt, fmt_interval, fmt_ci: the one NaN-aware number formatter of tables and verdicts
    intervals         mean_sem, mean_halfwidth, t_interval, jackknife_interval, wilson_interval,
                      log_interval: means with their error over seeds, proportions, positive values
    paired            paired_difference(a, b): mean of paired differences, its bootstrap CI, a verdict
    valley            valley_fit(rows): the |pos - L/2| power law, a CI on alpha, and when it does not apply
    chance            against_chance(lo, hi, chance): an accuracy interval above, at, or at or below chance, in words

Importing this package (or any of its modules) loads no jax; it uses
:mod:`lostmid_jax.theory` (pure math) only for the position convention and the
U summary. analysis, experiments and plots draw their statistics from here.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_SUBMODULES = ("agreement", "chance", "columns", "coverage", "format", "heldout", "intervals", "misfit", "paired",
               "profile_intervals", "profile_metrics", "valley")
__all__ = list(_SUBMODULES)

__getattr__, __dir__ = lazy_exports(__name__, {}, _SUBMODULES)
