"""Content priors: rows against dense rollouts built here from the definition (softmax of dense logits)."""

import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.theory import Content

from test_priors import _allowed, published_exponents

L, SCHEDULE = 9, (0.3, 1.0, 0.55)
MASKS = [theory.Causal(), theory.Bidirectional(), theory.SlidingWindow(3), theory.Chunks((2, 3, 4)),
         theory.PrefixLM(4), theory.Sinks(2, 3)]
SCORES = tuple(random.Random(0).uniform(-2, 2) for _ in range(L))
KINDS = {
    "self bonus": dict(diag=1.5, base=0.7),
    "per-head, key scores, weights, T": dict(heads=3, diag=(0.5, -1.0, 2.0), scores=SCORES, temperature=0.7,
                                             head_weights=(1, 2, 0)),
    "per-layer bonus + ALiBi": dict(heads=4, diag=[[1.0], [-0.5], [2.0]], base=[[0.1], [0.2], [0.3]], slopes="alibi"),
    "geometric ALiBi + scores": dict(heads=3, slopes="geometric", scores=SCORES, diag=-2.0),
    "per-layer slopes": dict(heads=2, slopes=[[0.5, 0.0], [1.25, 0.1], [0.0, 0.0]], diag=(0.0, 0.8)),
}


def slopes_of(prior, layer, power, num=float):
    """Per-head slopes of one layer, from the prior's fields and the published rule (or zeros)."""
    if prior.slopes is None:
        return [num(0)] * prior.heads
    if isinstance(prior.slopes, str):
        return [power(e) for e in published_exponents(prior.heads, prior.slopes)]
    rows = prior.slopes
    return [num(m) for m in rows[layer if len(rows) > 1 else 0]]


def dense_layer(prior, length, layer, *, exp=math.exp, power=lambda e: 2.0 ** e, num=float):
    """A_l[i][j] = sum_h p_h softmax over allowed j of (base + diag [i=j] + c_j - m |i - j|) / T, list of lists."""
    pick = lambda rows: rows[layer if len(rows) > 1 else 0]  # noqa: E731
    diag, base = pick(prior.diag), pick(prior.base)
    n = prior.heads
    raw = [1] * n if prior.head_weights is None else list(prior.head_weights)
    weights = [num(p) / num(sum(raw)) for p in raw]
    c = [0] * length if prior.scores is None else list(prior.scores)
    t = num(prior.temperature)
    rows = []
    for i in range(1, length + 1):
        row = [num(0)] * length
        keys = [j for j in range(1, length + 1) if _allowed(prior.mask, length, i, j)]
        for h, m in enumerate(slopes_of(prior, layer, power, num)):
            logits = [(num(base[h]) + num(diag[h]) * (i == j) + num(c[j - 1]) - m * abs(i - j)) / t for j in keys]
            e = [exp(v) for v in logits]
            z = sum(e)
            for j, v in zip(keys, e):
                row[j - 1] += weights[h] * v / z
        rows.append(row)
    return rows


def dense_rollout(prior, length, schedule):
    """Last row of N_H ... N_1 (N_l = (1 - a_l) I + a_l A_l) by float64 matrix products."""
    product = np.eye(length)
    for layer, a in enumerate(schedule):
        a_mat = np.array(dense_layer(prior, length, layer))
        product = ((1 - a) * np.eye(length) + a * a_mat) @ product
    return product[-1]


def mp_rollout(prior, length, schedule, ctx):
    """The same last row in mpmath: e_L^T N_H ... N_1 multiplied out from the left."""
    def num(v):
        f = Fraction(v)
        return ctx.mpf(f.numerator) / f.denominator

    mats = [dense_layer(prior, length, layer, exp=ctx.exp, num=num,
                        power=lambda e: ctx.power(2, ctx.mpf(e.numerator) / e.denominator)) for layer in range(len(schedule))]
    row = [ctx.mpf(int(c == length - 1)) for c in range(length)]
    for layer in reversed(range(len(schedule))):
        a = num(schedule[layer])
        row = [(1 - a) * row[c] + a * sum(row[r] * mats[layer][r][c] for r in range(length)) for c in range(length)]
    return row


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("mask", MASKS, ids=lambda m: type(m).__name__)
def test_rows_equal_dense_rollout_float64(mask, kind):
    prior = Content(mask=mask, **KINDS[kind])
    reference = dense_rollout(prior, L, SCHEDULE)
    np.testing.assert_allclose(theory.influence_row(L, 3, SCHEDULE, prior=prior), reference, rtol=1e-12, atol=1e-300)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(theory.log_influence_row(L, 3, SCHEDULE, prior=prior), np.log(reference),
                                   rtol=1e-12, atol=1e-12)
    if prior.layers == 1:
        np.testing.assert_allclose(theory.attention_matrix(prior, L), dense_layer(prior, L, 0), rtol=1e-13, atol=1e-300)
    if isinstance(mask, theory.Causal):  # the jitted backend covers the causal mask
        np.testing.assert_allclose(np.asarray(theory.influence_row(L, 3, SCHEDULE, prior=prior, backend="jax")),
                                   reference, rtol=1e-12)
    assert prior.dense == (prior.has_alibi and isinstance(mask, theory.PrefixLM))  # O(L) everywhere else


@pytest.mark.parametrize("kind", ["per-head, key scores, weights, T", "per-layer bonus + ALiBi", "per-layer slopes"])
@pytest.mark.parametrize("mask", [theory.Causal(), theory.Sinks(2, 3), theory.PrefixLM(4), theory.Bidirectional()],
                         ids=lambda m: type(m).__name__)
def test_mpmath_to_1e40_and_arb_contains_the_dense_rollout(mask, kind):
    kw = dict(KINDS[kind])
    for key in ("diag", "scores", "temperature"):  # exact binary values, so both routes see the same numbers
        if key in kw and kw[key] is not None:
            kw[key] = _exact(kw[key])
    prior = Content(mask=mask, **kw)
    ctx = mpmath.MPContext()
    ctx.dps = 70
    length = 7 if prior.scores is None else L
    reference = mp_rollout(prior, length, SCHEDULE, ctx)
    mp = theory.influence_row(length, 3, SCHEDULE, prior=prior, backend="mpmath", dps=60)
    balls = theory.influence_row(length, 3, SCHEDULE, prior=prior, backend="arb", dps=60)
    for m, b, ref in zip(mp, balls, reference):
        assert abs(ctx.mpf(m) - ref) <= ctx.mpf(10) ** -40 * ref
        mid, rad = ctx.mpf(b.mid().str(65, radius=False)), ctx.mpf(b.rad().str(5, radius=False))
        assert abs(mid - ref) <= rad + ctx.mpf(10) ** -55 * ref and rad <= ctx.mpf(10) ** -40 * ref


def _exact(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_exact(v) for v in value)
    return Fraction(value)


def test_a_single_pair_reaches_every_head():
    """(base, diag) given once applies to all N heads, not to head 0 only (the peer's bug)."""
    everywhere = Content(heads=4, diag=2.0, base=0.5)
    assert everywhere.diag == ((2.0,) * 4,) and everywhere.base == ((0.5,) * 4,)
    assert (Content(heads=4, diag=[2.0], base=0.5) == Content(heads=4, diag=(2.0, 2.0, 2.0, 2.0), base=[0.5] * 4)
            == Content(heads=4, diag=[[2.0]], base=[[0.5]]) == everywhere)
    head0_only = Content(heads=4, diag=(2.0, 0, 0, 0), base=(0.5, 0, 0, 0))
    a, b = theory.influence_row(16, 4, 0.6, prior=everywhere), theory.influence_row(16, 4, 0.6, prior=head0_only)
    assert np.max(np.abs(a - b) / b) > 0.05
    np.testing.assert_allclose(a, theory.influence_row(16, 4, 0.6, prior=Content(diag=2.0)), rtol=1e-13)  # 4 equal heads = 1


def test_reductions_to_the_plain_priors():
    """No content terms: the uniform prior, exactly; ALiBi slopes only: theory.ALiBi; base cancels."""
    schedule = [Fraction(1, 2), Fraction(3, 4), Fraction(1)]
    for mask in MASKS:
        row = theory.influence_row(L, 3, schedule, prior=Content(mask=mask, heads=3, scores=(5,) * L), backend="exact")
        assert row == theory.influence_row(L, 3, schedule, prior=mask, backend="exact")
    for n, rule in ((3, "alibi"), (12, "alibi"), (12, "geometric")):
        alibi = theory.influence_row(40, 6, 0.5, prior=theory.ALiBi(n, rule=rule))
        np.testing.assert_allclose(theory.influence_row(40, 6, 0.5, prior=Content(heads=n, slopes=rule)), alibi, rtol=1e-13)
        np.testing.assert_allclose(np.asarray(theory.influence_row(40, 6, 0.5, prior=theory.ALiBi(n, rule=rule), backend="jax")),
                                   alibi, rtol=1e-12)
    np.testing.assert_array_equal(theory.influence_row(L, 3, 0.5, prior=Content(diag=1.0, base=7.0)),
                                  theory.influence_row(L, 3, 0.5, prior=Content(diag=1.0)))


def test_self_bonus_moves_mass_to_the_diagonal_and_flattens_nothing():
    """A self bonus d keeps A_ii / A_ij = e^d (off-diagonal keys stay uniform) in the causal matrix."""
    a = theory.attention_matrix(Content(diag=1.3), 12)
    for i in range(1, 12):
        np.testing.assert_allclose(a[i, i] / a[i, :i], math.exp(1.3), rtol=1e-13)


def test_log_rows_where_float64_underflows():
    prior = Content(mask=theory.SlidingWindow(6), heads=2, diag=(0.0, -1.0), scores=tuple(np.linspace(0, 2, 100)))
    plain = theory.influence_row(100, 450, 1.0, prior=prior)
    log_row = theory.log_influence_row(100, 450, 1.0, prior=prior)
    reference = theory.influence_row(100, 450, 1, prior=prior, backend="mpmath", dps=30)
    under = [j for j in range(100) if plain[j] == 0 and reference[j] != 0]
    assert under
    for j in under[::10] + [0, 99]:
        assert abs(log_row[j] - float(mpmath.log(reference[j]))) <= 1e-10 * max(1.0, abs(log_row[j]))


def test_structured_content_rows_are_fast_at_long_context():
    """O(L) per layer and head: L = 100_000, H = 8, ALiBi with self bonus and key scores, sinks, a window with ALiBi."""
    import time

    scores = tuple(np.sin(np.arange(100_000) / 50.0))
    for prior in (Content(heads=8, diag=1.0, slopes="alibi", scores=scores), Content(mask=theory.Sinks(4, 512), diag=2.0),
                  Content(mask=theory.SlidingWindow(512), heads=4, slopes="alibi", diag=-1.0)):
        start = time.perf_counter()
        row = theory.influence_row(100_000, 8, 0.5, prior=prior)
        assert time.perf_counter() - start < 4.0 and abs(row.sum() - 1) < 1e-12


def test_per_layer_values_fix_the_depth_and_the_order_of_layers_matters():
    prior = Content(diag=[[4.0], [0.0]])
    with pytest.raises(ValueError, match="depth"):
        theory.influence_row(9, 3, 0.5, prior=prior)
    swapped = Content(diag=[[0.0], [4.0]])
    a, b = theory.influence_row(9, 2, (0.9, 0.2), prior=prior), theory.influence_row(9, 2, (0.9, 0.2), prior=swapped)
    assert np.max(np.abs(a - b)) > 1e-3


@pytest.mark.parametrize(
    "make,name",
    [
        (lambda: Content(mask=theory.ALiBi(2)), "mask"),
        (lambda: Content(heads=0), "heads"),
        (lambda: Content(heads=3, diag=(1.0, 2.0)), "diag has 2 entries"),
        (lambda: Content(diag=float("inf")), "diag"),
        (lambda: Content(heads=2, base=[[1.0, 2.0], [1.0, 2.0, 3.0]]), r"base\[1\]"),
        (lambda: Content(diag=[1.0, [2.0]]), "diag mixes"),
        (lambda: Content(diag=[[1.0], [2.0]], slopes=[[0.1], [0.2], [0.3]]), "layers"),
        (lambda: Content(slopes="paper"), "slopes"),
        (lambda: Content(heads=2, slopes=(0.5, -1.0)), r"slopes\[1\]"),
        (lambda: Content(heads=2, head_weights=(1.0,)), "head_weights"),
        (lambda: Content(heads=2, head_weights=(1.0, -1.0)), r"head_weights\[1\]"),
        (lambda: Content(heads=2, head_weights=(0, 0)), "head_weights"),
        (lambda: Content(temperature=0), "temperature"),
        (lambda: Content(scores=()), "scores"),
        (lambda: Content(scores=(1.0, float("nan"))), r"scores\[1\]"),
        (lambda: theory.influence_row(5, 2, 0.5, prior=Content(scores=(1.0,) * 4)), "scores has 4"),
        (lambda: theory.influence_row(5, 2, 0.5, prior=Content(mask=theory.PrefixLM(9))), "prefix"),
        (lambda: theory.influence_row(5, 2, 0.5, prior=Content(diag=1.0), backend="exact"), "exact"),
        (lambda: theory.influence_row(5, 2, 0.5, prior=Content(mask=theory.SlidingWindow(2)), backend="jax"), "backend"),
        (lambda: theory.attention_matrix(Content(diag=[[1.0], [2.0]]), 5), "layers"),
        (lambda: theory.influence_row(100_000, 24, 0.5, prior=Content(mask=theory.PrefixLM(10), heads=8, slopes="alibi")),
         "dense.*max_memory_gb"),  # the one dense route is costed before it starts
    ],
)
def test_bad_input_raises_value_error_naming_argument(make, name):
    with pytest.raises(ValueError, match=name):
        make()
