"""Attention priors: structured rows against dense products built here from the definitions."""

import itertools
import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostmid_jax import theory
from lostmid_jax.theory.prior_matrix import attention_matrix
from lostmid_jax.masks.text import default_priors, parse_prior, prior_spec
from lostmid_jax.theory.schedules import power_law_schedule

DEPTH = 5
SCHEDULES = {
    "constant 0.3": 0.3,
    "constant 1": 1.0,
    "power law": power_law_schedule(DEPTH, 0.9, 0.7),
    "custom": [0.2, 1.0, 0.0, 0.6, 0.45],
}


def _allowed(prior, length, i, j):
    """Definition of the allowed keys, 1-based query i and key j (independent of the library)."""
    if isinstance(prior, theory.Bidirectional):
        return True
    if isinstance(prior, theory.SlidingWindow):
        return i - prior.width < j <= i
    if isinstance(prior, theory.Chunks):
        ends = list(itertools.accumulate(prior.lengths))
        segment = lambda p: next(k for k, e in enumerate(ends) if p <= e)  # noqa: E731
        return j <= i and segment(i) == segment(j)
    if isinstance(prior, theory.PrefixLM):
        return j <= max(i, prior.prefix)
    if isinstance(prior, theory.Sinks):
        return j <= i and (prior.window is None or j <= prior.count or j > i - prior.window)
    return j <= i  # Causal


def dense_uniform(prior, length, number=Fraction):
    """A[i][j] = 1/|S_i| on the allowed set S_i, as ``number`` entries (list of lists)."""
    rows = []
    for i in range(1, length + 1):
        mask = [_allowed(prior, length, i, j) for j in range(1, length + 1)]
        rows.append([number(1) / sum(mask) if m else number(0) for m in mask])
    return rows


def published_exponents(n, rule="alibi"):
    """log2 of the ALiBi slopes, as the ALiBi paper's reference code builds them (get_slopes).

    For n a power of two: start = 2^(-2^-(log2 n - 3)) = 2^(-8/n), slopes start^1..start^n. Otherwise the
    closest power of two p below n, then every other slope of the 2p-head list, the first n - p of them.
    "geometric": -8h/n for every n (the rule the code used before).
    """
    if rule == "geometric":
        return [Fraction(-8 * h, n) for h in range(1, n + 1)]
    if math.log2(n).is_integer():
        start = -Fraction(2) ** -(int(math.log2(n)) - 3)  # log2 of start
        return [start * (i + 1) for i in range(n)]
    closest = 2 ** math.floor(math.log2(n))
    return published_exponents(closest) + published_exponents(2 * closest)[0::2][: n - closest]


def dense_alibi(prior, length, exp=math.exp, power=lambda e: 2.0 ** e):
    """Head average of softmax_j(-m_h (i - j)) over j <= i, m_h from the published rule or the given slopes."""
    n = prior.n_heads
    slopes = [power(e) for e in published_exponents(n, prior.rule)] if prior.slopes is None else list(prior.slopes)
    rows = []
    for i in range(1, length + 1):
        row = [0] * length
        for m in slopes:
            weights = [exp(-m * (i - j)) for j in range(1, i + 1)]
            z = sum(weights)
            for j, wt in enumerate(weights):
                row[j] += wt / z / n
        rows.append(row)
    return rows


def rollout(matrix, schedule):
    """Last row of the product R_H ... R_1, R = (1 - a) I + a A, by dense float64 matrix products."""
    matrix = np.asarray(matrix, dtype=np.float64)
    product = np.eye(len(matrix))
    for a in schedule:
        product = ((1 - a) * np.eye(len(matrix)) + a * matrix) @ product
    return product[-1]


def rollout_row(matrix, schedule, one=Fraction(1)):
    """The same last row e_L^T R_H ... R_1 in exact / mpmath arithmetic, multiplied out left to right."""
    length = len(matrix)
    row = [one * (c == length - 1) for c in range(length)]
    for a in reversed(schedule):
        mixed = [sum(row[r] * a * matrix[r][c] for r in range(length)) for c in range(length)]
        row = [(1 - a) * v + m for v, m in zip(row, mixed)]
    return row


def uniform_priors(length):
    rng = random.Random(length)
    cuts = sorted(rng.sample(range(1, length), k=min(2, length - 1))) if length > 1 else []
    random_layout = tuple(b - a for a, b in zip([0, *cuts], [*cuts, length]))
    priors = [theory.Causal(), theory.Bidirectional()]
    priors += [theory.SlidingWindow(w) for w in sorted({1, 2, 3, 5, length, length + 2})]
    layouts = {(length,), (1,) * length, random_layout, theory.Chunks.equal(length, 2).lengths, theory.Chunks.equal(length, 3).lengths}
    priors += [theory.Chunks(layout) for layout in sorted(layouts)]
    priors += [theory.PrefixLM(n) for n in sorted({0, 1, length // 2, length})]
    sinks = {(0, None), (1, None), (0, 2), (1, 1), (2, 3), (length // 2, 2), (length, 3)}
    priors += [theory.Sinks(s, w) for s, w in sinks if s <= length]
    return priors


def _schedule(schedule):
    return [schedule] * DEPTH if not isinstance(schedule, (list, tuple)) else list(schedule)


@pytest.mark.parametrize("length", [1, 2, 5, 9, 13])
def test_uniform_priors_match_dense_rollout(length):
    """float64 and log rows to 1e-12 relative; exact rows equal the rational product."""
    for prior in uniform_priors(length):
        dense_exact = dense_uniform(prior, length)
        dense_float = np.array(dense_uniform(prior, length, float))
        np.testing.assert_allclose(attention_matrix(prior, length), dense_float, rtol=1e-15, err_msg=repr(prior))
        for name, schedule in SCHEDULES.items():
            layers = _schedule(schedule)
            reference = rollout(dense_float, layers)
            fast = theory.influence_row(length, DEPTH, schedule, prior=prior)
            np.testing.assert_allclose(fast, reference, rtol=1e-12, atol=1e-300, err_msg=f"{prior!r} {name}")
            with np.errstate(divide="ignore"):
                np.testing.assert_allclose(theory.log_influence_row(length, DEPTH, schedule, prior=prior), np.log(reference),
                                           rtol=1e-12, atol=1e-12, err_msg=f"{prior!r} {name} (log)")
            exact_layers = [Fraction(a) for a in layers]
            assert theory.influence_row(length, DEPTH, exact_layers, prior=prior, backend="exact") == rollout_row(
                dense_exact, exact_layers), (prior, name)


def test_alibi_slopes_follow_the_published_rule():
    """Exact exponents against the reference code's recursion for every head count up to 130 (BLOOM-176B: 112)."""
    from lostmid_jax.masks.alibi_slopes import slope_exponents

    for n in range(1, 131):
        assert list(slope_exponents(n)) == published_exponents(n), n
        assert list(slope_exponents(n, "geometric")) == [Fraction(-8 * h, n) for h in range(1, n + 1)]
        assert theory.ALiBi(n).float_slopes() == tuple(2.0 ** float(e) for e in published_exponents(n))
    # the rules agree for powers of two only; for 112 heads 16 slopes coincide (the 2^(-8h/112) of h = 7, 14, ...)
    assert all((slope_exponents(n) == slope_exponents(n, "geometric")) == (n & (n - 1) == 0) for n in range(1, 131))
    same = set(slope_exponents(112)) & set(slope_exponents(112, "geometric"))
    assert len(same) == 16
    assert slope_exponents(3) == (Fraction(-4), Fraction(-8), Fraction(-2))  # 2^-4, 2^-8, then 2^-2 from the 4-head list


@pytest.mark.parametrize("length", [1, 4, 11])
@pytest.mark.parametrize("heads", [1, 2, 3, 8, 12])
def test_alibi_matches_dense_rollout(length, heads):
    for prior in (theory.ALiBi(heads), theory.ALiBi(heads, rule="geometric"),
                  theory.ALiBi(heads, tuple(0.7 * h for h in range(heads)))):
        dense = dense_alibi(prior, length)
        np.testing.assert_allclose(attention_matrix(prior, length), dense, rtol=1e-14)
        for name, schedule in SCHEDULES.items():
            reference = rollout(dense, _schedule(schedule))
            np.testing.assert_allclose(theory.influence_row(length, DEPTH, schedule, prior=prior), reference,
                                       rtol=1e-12, atol=1e-300, err_msg=f"{prior!r} {name}")
            np.testing.assert_allclose(np.exp(theory.log_influence_row(length, DEPTH, schedule, prior=prior)), reference,
                                       rtol=1e-12, atol=1e-300, err_msg=f"{prior!r} {name} (log)")


def test_alibi_head_average_is_not_the_average_of_per_head_rollouts():
    """The documented choice matters: heads mixed every layer differ from separate per-head streams for H >= 2."""
    length, schedule = 8, [0.7, 0.9]
    heads = [np.array(dense_alibi(theory.ALiBi(1, (m,)), length)) for m in theory.ALiBi(4).float_slopes()]
    mixed = theory.influence_row(length, 2, schedule, prior=theory.ALiBi(4))
    np.testing.assert_allclose(mixed, rollout(np.mean(heads, axis=0), schedule), rtol=1e-12)
    separate = np.mean([rollout(a, schedule) for a in heads], axis=0)
    assert np.max(np.abs(separate - mixed) / mixed) > 1e-2
    np.testing.assert_allclose(theory.influence_row(length, 1, 0.7, prior=theory.ALiBi(4)),
                               np.mean([rollout(a, [0.7]) for a in heads], axis=0), rtol=1e-12)  # H = 1: equal


@pytest.mark.parametrize("prior", [theory.ALiBi(3), theory.ALiBi(6), theory.ALiBi(3, rule="geometric"),
                                   theory.ALiBi(2, (0.0, 1.5))])
def test_alibi_mpmath_and_arb_to_45_digits(prior):
    length, schedule = 7, [Fraction(1, 3), Fraction(1), Fraction(5, 8)]
    ctx = mpmath.MPContext()
    ctx.dps = 70
    dense = dense_alibi(prior, length, exp=ctx.exp,  # exponents exactly, not via a float
                        power=lambda e: ctx.power(2, ctx.mpf(e.numerator) / e.denominator))
    reference = rollout_row(dense, [ctx.mpf(a.numerator) / a.denominator for a in schedule], ctx.one)
    _check_high_precision(prior, length, schedule, reference, ctx)


def _check_high_precision(prior, length, schedule, reference, ctx):
    """mpmath rows within 1e-45 relative; arb balls contain the reference and are that narrow."""
    mp = theory.influence_row(length, len(schedule), schedule, prior=prior, backend="mpmath", dps=50)
    balls = theory.influence_row(length, len(schedule), schedule, prior=prior, backend="arb", dps=50)
    for m, b, ref in zip(mp, balls, reference):
        assert abs(ctx.mpf(m) - ref) <= ctx.mpf(10) ** -45 * ref
        mid, rad = ctx.mpf(b.mid().str(65, radius=False)), ctx.mpf(b.rad().str(5, radius=False))
        assert abs(mid - ref) <= rad + ctx.mpf(10) ** -62 * ref and rad <= ctx.mpf(10) ** -45 * ref


@pytest.mark.parametrize("prior", [theory.SlidingWindow(3), theory.Chunks((2, 3, 4)), theory.PrefixLM(4), theory.Sinks(2, 3)])
def test_mpmath_and_arb_agree_with_exact(prior):
    schedule = [Fraction(1, 3), Fraction(1), Fraction(1, 2), Fraction(2, 7)]
    ctx = mpmath.MPContext()
    ctx.dps = 70
    exact = theory.influence_row(9, 4, schedule, prior=prior, backend="exact")
    _check_high_precision(prior, 9, schedule, [ctx.mpf(e.numerator) / e.denominator for e in exact], ctx)


@pytest.mark.parametrize("length", [1, 6, 17])
def test_degenerate_priors_equal_their_limits(length):
    schedule = [Fraction(1, 2), Fraction(3, 4), Fraction(1)]

    def row(prior):
        return theory.influence_row(length, 3, schedule, prior=prior, backend="exact")

    causal, full = row(theory.Causal()), row(theory.Bidirectional())
    for same in (theory.Sinks(1), theory.SlidingWindow(length), theory.PrefixLM(0), theory.Chunks((length,)),
                 theory.ALiBi(2, (0, 0)), theory.Sinks(length, 1)):
        assert row(same) == causal, same
    assert row(theory.PrefixLM(length)) == full
    recency = (1 - schedule[0]) * (1 - schedule[1]) * (1 - schedule[2])  # A^k = J / L for k >= 1
    assert full == [(1 - recency) / length] * (length - 1) + [(1 - recency) / length + recency]
    assert row(theory.SlidingWindow(1)) == [0] * (length - 1) + [1]


priors = st.one_of(
    st.just(theory.Causal()), st.just(theory.Bidirectional()),
    st.integers(1, 12).map(theory.SlidingWindow), st.integers(0, 6).map(theory.PrefixLM),
    st.tuples(st.integers(0, 6), st.one_of(st.none(), st.integers(1, 8))).map(lambda t: theory.Sinks(*t)),
)


@settings(max_examples=40, deadline=None)
@given(priors, st.integers(6, 40), st.lists(st.floats(0.0, 1.0), min_size=0, max_size=8))
def test_rows_are_distributions(prior, length, schedule):
    row = theory.influence_row(length, len(schedule), schedule, prior=prior)
    assert abs(row.sum() - 1.0) <= 1e-12 and np.all(row >= 0)


@settings(max_examples=20, deadline=None)
@given(priors, st.lists(st.fractions(0, 1, max_denominator=7), min_size=1, max_size=4), st.randoms())
def test_layer_order_does_not_matter(prior, schedule, rnd):
    """All N_l are polynomials in the same A, so they commute."""
    shuffled = list(schedule)
    rnd.shuffle(shuffled)
    row = theory.influence_row(7, len(schedule), schedule, prior=prior, backend="exact")
    assert row == theory.influence_row(7, len(schedule), shuffled, prior=prior, backend="exact")
    assert sum(row) == 1


@pytest.mark.parametrize("prior", [theory.SlidingWindow(6), theory.Sinks(2, 6), theory.PrefixLM(40), theory.ALiBi(4)])
def test_log_rows_where_float64_underflows(prior):
    length, depth = 100, 450
    plain = theory.influence_row(length, depth, 1.0, prior=prior)
    log_row = theory.log_influence_row(length, depth, 1.0, prior=prior)
    reference = theory.influence_row(length, depth, 1, prior=prior, backend="mpmath", dps=30)
    underflow = [j for j in range(length) if plain[j] == 0 and reference[j] != 0]
    assert underflow, "the case must underflow float64 somewhere"
    for j in underflow[:: max(1, len(underflow) // 8)] + [0, length - 1]:
        assert abs(log_row[j] - float(mpmath.log(reference[j]))) <= 1e-10 * max(1.0, abs(log_row[j]))


def test_structured_rows_are_fast_at_long_context():
    """O(L) per layer: L = 100_000, H = 24 in well under a second each (dense would need 80 GB)."""
    import time

    for prior in (theory.SlidingWindow(512), theory.Chunks.equal(100_000, 300), theory.Sinks(4, 512), theory.PrefixLM(5000)):
        start = time.perf_counter()
        row = theory.influence_row(100_000, 24, 0.5, prior=prior)
        assert time.perf_counter() - start < 2.0 and abs(row.sum() - 1) < 1e-12


def test_specs_round_trip():
    for length in (1, 8, 2048):
        for spec in default_priors(length) + ("chunks:1+2+" + str(length + 9), "alibi:2:0.5/0.0", "sinks:1",
                                              "alibi:12:geometric", "alibi:112", "content", "content:diag=2.0",
                                              "content:heads=3:diag=1.0/-0.5/2.0:slopes=alibi:temperature=0.5",
                                              f"content:sinks:1:{length}:heads=2:base=0.25:weights=1.0/3.0"):
            try:
                prior = parse_prior(spec, length)
            except ValueError:
                assert spec.startswith("chunks:1+2")  # does not sum to L
                continue
            assert parse_prior(prior_spec(prior), length) == prior


@pytest.mark.parametrize(
    "make,name",
    [
        (lambda: theory.SlidingWindow(0), "window"),
        (lambda: theory.SlidingWindow(2.5), "window"),
        (lambda: theory.Chunks((3, 0)), r"lengths\[1\]"),
        (lambda: theory.Chunks(()), "lengths"),
        (lambda: theory.influence_row(7, 2, 0.5, prior=theory.Chunks((3, 3))), "lengths"),
        (lambda: theory.log_influence_row(7, 2, 0.5, prior=theory.Chunks((4, 4))), "lengths"),
        (lambda: theory.PrefixLM(-1), "prefix"),
        (lambda: theory.influence_row(7, 2, 0.5, prior=theory.PrefixLM(8)), "prefix"),
        (lambda: theory.Sinks(-1), "sinks"),
        (lambda: theory.Sinks(2, window=0), "window"),
        (lambda: theory.influence_row(7, 2, 0.5, prior=theory.Sinks(8, 2)), "sinks"),
        (lambda: theory.ALiBi(0), "n_heads"),
        (lambda: theory.ALiBi(2, (0.5, -0.1)), r"slopes\[1\]"),
        (lambda: theory.ALiBi(2, (0.5,)), "slopes"),
        (lambda: theory.ALiBi(1, (float("nan"),)), "slopes"),
        (lambda: theory.ALiBi(3, rule="paper"), "rule"),
        (lambda: theory.ALiBi(2, (0.5, 0.25), rule="geometric"), "rule"),
        (lambda: parse_prior("alibi:3:papers", 8), "alibi:3:papers"),
        (lambda: theory.influence_row(7, 2, 0.5, prior="causal"), "prior"),
        (lambda: theory.influence_row(7, 2, 0.5, prior=theory.Bidirectional(), backend="jax"), "backend"),
        (lambda: theory.influence_row(7, 2, 0.5, prior=theory.ALiBi(2), backend="exact"), "exact"),
        (lambda: theory.influence_row(7, 2, 1.5, prior=theory.SlidingWindow(2)), "alpha"),
        (lambda: parse_prior("window:x", 8), "window:x"),
        (lambda: parse_prior("ring:3", 8), "ring:3"),
    ],
)
def test_bad_input_raises_value_error_naming_argument(make, name):
    with pytest.raises(ValueError, match=name):
        make()


def test_causal_default_is_unchanged():
    """The default prior is Causal(): the same structured operator, bit for bit."""
    for backend in ("float64", "exact"):
        a = theory.influence_row(50, 6, 0.4, backend=backend)
        b = theory.influence_row(50, 6, 0.4, prior=theory.Causal(), backend=backend)
        assert list(a) == list(b)
