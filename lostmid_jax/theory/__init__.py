"""Exact mathematics of Step-0 position bias (pure math: numpy, scipy, mpmath, flint).

With uniform attention at initialization a causal layer is the Cesàro matrix
M[i, j] = 1/i (j <= i), a residual block is N = (1 - a) I + a M, and the
influence of position j on the last position after H blocks is the last row of
N_H ... N_1 (Chowdhury, "Lost in the Middle at Birth", arXiv:2603.10123).

Shapes: L positions (1-based j in the formulas, x = j/L; index j-1 in
arrays; :mod:`.middle` defines the middle), H depth (number of blocks),
a_l the attention weight of block l.

Other Step-0 attention priors replace M by another row-stochastic A
(``prior=``: Causal, Bidirectional, SlidingWindow, Chunks, PrefixLM, Sinks,
ALiBi; and Content, softmax attention with a self bonus, key scores, ALiBi,
head weights and a temperature over any of these masks: one class each in
:mod:`lostmid_jax.masks`, shared with nn). Every row, for every prior and
arithmetic (float64, log space, exact rationals, mpmath, arb balls), runs
through one structured operator r -> r A (each prior's ``row_operator``,
:mod:`.prior_ops`, over :mod:`._arith`) in O(H L); the
dense matrices of :mod:`.cesaro` and :mod:`.prior_matrix` are the
independent route the tests compare against. :mod:`.variants` builds the
random-matrix path sums of measured branch gains on the same operator.

Every public function validates its arguments at the boundary (a
ValueError naming the argument; NumPy scalars and 0-d arrays are accepted
and converted once) and estimates the memory and work a call needs before
starting it, refusing what is over the limits of :mod:`.resources`
(``theory.limits(max_memory_gb=..., max_operations=..., max_dps=...,
max_heads=...)`` raises them for a block of code).

Imports no jax (only ``backend="jax"`` loads it), no plotting and no
progress bars; experiments built on this math live in
:mod:`lostmid_jax.experiments`.

>>> from lostmid_jax import theory
>>> row = theory.influence_row(2048, 24, 0.5)
>>> round(float(row.sum()), 12)
1.0
>>> bool(theory.recency_weight(24, 0.5) <= row[-1])  # the delta, plus k-hop returns to L
True
"""

from .._lazy import lazy_exports

# Submodules load on first use (PEP 562): importing one small piece (a config reading the
# ALiBi slope rule, say) does not pull in scipy or mpmath.
_EXPORTS = {
    "check_alpha": "._validate",
    "check_band": "._validate",
    "check_depth": "._validate",
    "check_length": "._validate",
    "cesaro_matrix": ".cesaro",
    "DEAD_BELOW": ".dead_zones",
    "dead_zone": ".dead_zones",
    "exact_matmul": ".cesaro",
    "mixing_matrix": ".cesaro",
    "continuum_density": ".continuum",
    "continuum_moment": ".continuum",
    "log_continuum_density": ".continuum",
    "recency_weight": ".continuum",
    "hop_distribution": ".hops",
    "log_hop_distribution": ".hops",
    "influence_row": ".influence",
    "log_influence_row": ".influence",
    "Content": "..masks.content",
    "attention_matrix": ".prior_matrix",
    "content_matrix": ".prior_matrix",
    "MIDDLE_X": ".middle",
    "ProfileBands": ".middle",
    "band_masks": ".middle",
    "distance_from_middle": ".middle",
    "middle_index": ".middle",
    "middle_mask": ".middle",
    "positions": ".middle",
    "default_priors": "..masks.text",
    "parse_prior": "..masks.text",
    "prior_spec": "..masks.text",
    "Limits": "..resources",
    "current_limits": "..resources",
    "limits": "..resources",
    "PRIORS": "..masks",
    "ALiBi": "..masks",
    "Bidirectional": "..masks",
    "Causal": "..masks",
    "Chunks": "..masks",
    "PrefixLM": "..masks",
    "SlidingWindow": "..masks",
    "Sinks": "..masks",
    "check_prior": "..masks",
    "power_law_schedule": ".schedules",
    "ProfileSummary": ".summary",
    "continuum_summary": ".summary",
    "summarize_log_row": ".summary",
    "elementary_symmetric": ".variants",
    "jacobian_alphas": ".variants",
    "key_gain_row": ".variants",
    "positionwise_row": ".variants",
    "positionwise_sq_norms": ".variants",
    "power_rows": ".variants",
    "random_matrix_row": ".variants",
}

_SUBMODULES = ("cesaro", "continuum", "hops", "influence", "influence_jax", "middle", "middle_laws",
               "prior_matrix", "prior_ops", "schedules", "summary", "variants")

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)

__all__ = [
    "ALiBi",
    "Bidirectional",
    "Causal",
    "Chunks",
    "Content",
    "Limits",
    "MIDDLE_X",
    "PrefixLM",
    "PRIORS",
    "ProfileBands",
    "ProfileSummary",
    "Sinks",
    "SlidingWindow",
    "attention_matrix",
    "band_masks",
    "cesaro_matrix",
    "DEAD_BELOW",
    "dead_zone",
    "check_alpha",
    "check_band",
    "check_depth",
    "check_length",
    "check_prior",
    "content_matrix",
    "continuum_density",
    "continuum_moment",
    "continuum_summary",
    "current_limits",
    "default_priors",
    "distance_from_middle",
    "elementary_symmetric",
    "exact_matmul",
    "hop_distribution",
    "influence_row",
    "jacobian_alphas",
    "key_gain_row",
    "limits",
    "log_continuum_density",
    "log_hop_distribution",
    "log_influence_row",
    "middle_index",
    "middle_mask",
    "mixing_matrix",
    "parse_prior",
    "positions",
    "positionwise_row",
    "positionwise_sq_norms",
    "power_law_schedule",
    "power_rows",
    "prior_spec",
    "random_matrix_row",
    "recency_weight",
    "summarize_log_row",
]
