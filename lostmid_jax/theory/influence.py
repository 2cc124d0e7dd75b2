"""Exact influence rows w_j = (N_H ... N_1)[L, j] in O(H L), every prior, every arithmetic.

N_l = (1 - a_l) I + a_l A with A the Step-0 attention matrix of a prior
(:mod:`.priors`; uniform causal attention, the Cesàro matrix M, by default).
One code path serves every prior and every arithmetic: the structured row
operator r -> r A of :mod:`.prior_ops`, written once against the float64,
log-space and field (exact / mpmath / arb) arithmetic of :mod:`._arith`.
For the causal prior, (r M)_j = sum_{i >= j} r_i / i is a suffix sum, so
one block acts on the last row as

    r <- (1 - a) r + a * suffix_cumsum(r / i),      r_0 = e_L.

All N_l are polynomials in A and commute, so the layer order is irrelevant.
Every term is positive (no cancellation): float64 is accurate to ~1e-15
relative until values underflow; :func:`log_influence_row` covers deep stacks
and the ``mpmath`` / ``arb`` / ``exact`` backends give any precision. The
"jax" backend (causal prior only) runs the same recurrence jitted
(:mod:`.influence_jax`, imported only when asked for). The independent
route the tests check against is the dense matrix product of
:mod:`.cesaro` / :mod:`.prior_matrix`.

Large float64 rows of the causal and chunk priors run the same recurrence in
one compiled pass over positions (:mod:`.native_row`), bit-identical to the
numpy passes; $LOSTMID_THEORY_NATIVE=0 keeps them in numpy.
"""

from __future__ import annotations

import contextlib
import gc

import numpy as np

from . import _costs, native_row
from ._arith import FieldOps, FloatOps, LogOps
from ._fields import arb_field, fraction_field, mpmath_field
from ._validate import alpha_schedule, check_backend, check_depth, check_dps, check_length
from .prior_ops import rollout_row, row_operator
from ..masks import Causal, check_prior


def influence_row(length: int, depth: int, alpha, *, prior=Causal(), backend: str = "float64", dps: int = 50):
    """Influence of each input position 1..L on the last position L after H blocks.

    w_j = (N_H ... N_1)[L, j], N_l = (1 - a_l) I + a_l A (Chowdhury,
    arXiv:2603.10123, with A = M the Cesàro matrix by default). The row sums
    to 1.

    Args:
      length: L >= 1, number of positions.
      depth: H >= 0, number of residual attention blocks.
      alpha: a in [0, 1] for every layer, or a sequence of H per-layer values
        (e.g. :func:`power_law_schedule`).
      prior: the Step-0 attention matrix A, one of :mod:`.priors`
        (``Causal()``, ``Bidirectional()``, ``SlidingWindow(w)``,
        ``Chunks(lengths)``, ``PrefixLM(n)``, ``Sinks(s, window)``,
        ``ALiBi(n_heads)``, ``Content(mask, heads, diag, ...)``; a Content
        prior with per-layer values needs depth equal to its layer count).
      backend: "float64" (numpy array [L]), "jax" (jitted float64 jax array
        [L]; Causal, ALiBi, and Content over the causal mask),
        "mpmath" (list of L mpf at ``dps`` digits,
        local context), "arb" (list of L python-flint arb balls certified to
        contain the exact value), "exact" (list of L ``fractions.Fraction``;
        small L only; ALiBi and Content with e^(score) terms need
        irrational weights, so not with those).
      dps: decimal digits for "mpmath" and "arb", an int in [5, max_dps]
        (checked for every backend).

    Returns:
      The row, index j-1 holding w_j.

    Raises:
      ValueError: naming the argument, for an argument out of range, or
        when the row's estimated memory or work is over the limits of
        :mod:`.resources` (raise them with ``theory.limits(...)``).

    >>> influence_row(3, 1, 0.5)
    array([0.16666667, 0.16666667, 0.66666667])
    >>> influence_row(3, 2, 1, backend="exact")
    [Fraction(11, 18), Fraction(5, 18), Fraction(1, 9)]
    >>> from lostmid_jax.theory import SlidingWindow
    >>> influence_row(4, 1, 0.5, prior=SlidingWindow(2), backend="exact")
    [Fraction(0, 1), Fraction(0, 1), Fraction(1, 4), Fraction(3, 4)]
    """
    length = check_length(length)
    depth = check_depth(depth)
    prior = check_prior(prior, length)
    backend = check_backend(backend)
    dps = check_dps(dps)
    _check_layers(prior, depth)
    _costs.check_row(length, depth, prior, backend, dps=dps)
    schedule = alpha_schedule(depth, alpha)
    if backend == "float64":
        row = native_row.segmented_row(length, schedule, prior)  # the same bits, one compiled pass
        if row is not None:
            return row
        ops = FloatOps()
        return rollout_row(length, schedule, row_operator(prior, length, ops), ops)
    if backend == "jax":
        from . import influence_jax  # jax only when asked for

        if prior == Causal():
            return influence_jax.row_jax(length, schedule)
        return influence_jax.content_row_jax(length, schedule, prior.content_form() or prior)  # ALiBi: its heads
    if backend == "exact":
        prior.check_rational()  # backend 'exact' needs rational weights (no content terms)
        _costs.check_row(length, depth, prior, backend, schedule=schedule)
        return _field_row(length, schedule, prior, fraction_field())
    if backend == "mpmath":
        return _field_row(length, schedule, prior, mpmath_field(dps))
    with arb_field(dps) as field:
        return _field_row(length, schedule, prior, field)


def _check_layers(prior, depth: int) -> None:
    """A Content prior with per-layer values fits only its own depth."""
    if prior.layers > 1 and prior.layers != depth:
        raise ValueError(f"depth is {depth} but the prior gives per-layer values for {prior.layers} layers; they must match")


def _field_row(length: int, schedule: tuple, prior, field) -> list:
    """The row as a list of L ``field`` numbers."""
    ops = FieldOps(field)
    with _cyclic_gc_paused():
        return list(rollout_row(length, schedule, row_operator(prior, length, ops), ops))


@contextlib.contextmanager
def _cyclic_gc_paused():
    """Pause Python's cyclic garbage collector (restored on exit).

    The field rows allocate millions of short-lived number objects (mpf keeps
    a tuple per number) while object arrays [L] stay alive, which made the
    collector's passes cost half the mpmath time; the rows create no
    reference cycles, so nothing is leaked.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def log_influence_row(length: int, depth: int, alpha, *, prior=Causal()) -> np.ndarray:
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
      prior: the Step-0 attention matrix A (see :func:`influence_row`). For
        ALiBi the reverse scan runs on shifted logs, costing a further
        ~m L 1e-16 absolute per layer.

    Returns:
      float64 array [L] with log w_j.

    >>> np.round(np.exp(log_influence_row(3, 2, 1)) * 18, 12)
    array([11.,  5.,  2.])
    >>> from lostmid_jax.theory import Bidirectional
    >>> np.exp(log_influence_row(4, 1, 0.5, prior=Bidirectional()))
    array([0.125, 0.125, 0.125, 0.625])
    """
    length = check_length(length)
    depth = check_depth(depth)
    prior = check_prior(prior, length)
    _check_layers(prior, depth)
    _costs.check_row(length, depth, prior, "log")
    schedule = alpha_schedule(depth, alpha)
    ops = LogOps()
    with np.errstate(divide="ignore"):
        return rollout_row(length, schedule, row_operator(prior, length, ops), ops)
