"""Exact mathematics of Step-0 position bias (pure math: numpy, mpmath, flint).

With uniform attention at initialization a causal layer is the Cesàro matrix
M[i, j] = 1/i (j <= i), a residual block is N = (1 - a) I + a M, and the
influence of position j on the last position after H blocks is the last row of
N_H ... N_1 (Chowdhury, "Lost in the Middle at Birth", arXiv:2603.10123).

Shapes: L positions (1-based j in the formulas, 0-based index j-1 in arrays),
H blocks, a_l the attention weight of block l.

Other Step-0 attention priors replace M by another row-stochastic A
(``prior=``: Causal, Bidirectional, SlidingWindow, Chunks, PrefixLM, Sinks,
ALiBi; :mod:`.priors`), with the same O(H L) rows; :mod:`.counterfactuals`
sweeps them.

>>> from lostmid_jax import theory
>>> row = theory.influence_row(2048, 24, 0.5)
>>> round(float(row.sum()), 12)
1.0
>>> bool(theory.recency_weight(24, 0.5) <= row[-1])  # the delta, plus k-hop returns to L
True
"""

from .cesaro import cesaro_matrix, exact_matmul, mixing_matrix
from .continuum import continuum_density, continuum_moment, log_continuum_density, recency_weight
from .hops import hop_distribution, log_hop_distribution
from .influence import influence_row, log_influence_row
from .prior_matrix import attention_matrix
from .prior_specs import parse_prior, prior_spec
from .priors import PRIORS, ALiBi, Bidirectional, Causal, Chunks, PrefixLM, SlidingWindow, Sinks, check_prior
from .schedules import power_law_schedule
from .summary import ProfileSummary, continuum_summary, summarize_log_row

__all__ = [
    "ALiBi",
    "Bidirectional",
    "Causal",
    "Chunks",
    "PRIORS",
    "PrefixLM",
    "ProfileSummary",
    "SlidingWindow",
    "Sinks",
    "attention_matrix",
    "check_prior",
    "cesaro_matrix",
    "continuum_density",
    "continuum_moment",
    "continuum_summary",
    "exact_matmul",
    "hop_distribution",
    "influence_row",
    "log_continuum_density",
    "log_hop_distribution",
    "log_influence_row",
    "mixing_matrix",
    "parse_prior",
    "power_law_schedule",
    "prior_spec",
    "recency_weight",
    "summarize_log_row",
]
