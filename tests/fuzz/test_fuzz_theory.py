"""Fuzz the theory API: a named error or a finite, normalized result; no abort, hang or inner traceback."""

import numpy as np
import pytest
from fuzz_harness import EXAMPLES, run_case
from fuzz_values import finite_array, odd, size, unit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lostmid_jax import theory

SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))
_backend = st.sampled_from(["float64", "exact", "mpmath", "arb", "jax"])
BACKENDS = st.one_of(_backend, _backend, _backend, _backend, odd)
_dps = st.sampled_from([5, 15, 50])
DPS = st.one_of(_dps, _dps, _dps, _dps, st.sampled_from([0, -1, 10**4, 10**8, 10**12]), odd)


def _row_ok(row, length):
    values = np.asarray([float(v.mid()) if hasattr(v, "mid") else float(v) for v in row])
    assert values.shape == (length,) and np.all(np.isfinite(values)) and np.all(values >= -1e-12)
    assert abs(values.sum() - 1) < 1e-9


@SETTINGS
@given(length=size(48), depth=size(12), alpha=unit(), backend=BACKENDS, dps=DPS)
def test_influence_row(length, depth, alpha, backend, dps):
    kind, row = run_case("theory.influence_row", lambda: theory.influence_row(
        length, depth, alpha, backend=backend, dps=dps), ("length", "depth", "alpha", "backend", "dps"))
    if kind == "ok":
        _row_ok(row, int(length))


@SETTINGS
@given(length=size(64), depth=size(40), alpha=unit() | st.lists(unit(), max_size=4))
def test_log_influence_row(length, depth, alpha):
    kind, row = run_case("theory.log_influence_row", lambda: theory.log_influence_row(length, depth, alpha),
                         ("length", "depth", "alpha"))
    if kind == "ok":
        assert row.shape == (int(length),) and not np.any(np.isnan(row))
        assert abs(np.exp(row).sum() - 1) < 1e-9


@SETTINGS
@given(x=unit((1e-300, 0.01, 0.5, 0.999)), depth=size(256), alpha=unit((0.5, 0.999, 1.0)),
       form=st.sampled_from(["hops", "laguerre"]) | odd)
def test_continuum_density(x, depth, alpha, form):
    kind, rho = run_case("theory.continuum_density", lambda: theory.continuum_density(x, depth, alpha, form=form),
                         ("x", "depth", "alpha", "form"))
    if kind == "ok":
        assert finite_array(rho) and np.all(np.asarray(rho, np.float64) >= 0)


@SETTINGS
@given(depth=size(64), alpha=unit(), backend=BACKENDS, dps=DPS)
def test_hop_distribution(depth, alpha, backend, dps):
    kind, p = run_case("theory.hop_distribution", lambda: theory.hop_distribution(depth, alpha, backend=backend,
                                                                                 dps=dps),
                       ("depth", "alpha", "backend", "dps"))
    if kind == "ok":
        values = np.asarray([float(v.mid()) if hasattr(v, "mid") else float(v) for v in p])
        assert np.all(np.isfinite(values)) and abs(values.sum() - 1) < 1e-9


@SETTINGS
@given(length=size(24), exact=odd | st.booleans())
def test_cesaro_matrix(length, exact):
    kind, m = run_case("theory.cesaro_matrix", lambda: theory.cesaro_matrix(length, exact=exact),
                       ("length", "exact"))
    if kind == "ok":
        rows = np.asarray([[float(v) for v in r] for r in m])
        np.testing.assert_allclose(rows.sum(axis=1), 1.0)


@SETTINGS
@given(depth=size(64), a0=unit(), b=unit((0.0, 0.5, 2.0, -1.0)))
def test_power_law_schedule(depth, a0, b):
    kind, values = run_case("theory.power_law_schedule", lambda: theory.power_law_schedule(depth, a0, b),
                            ("depth", "a0", "b"))
    if kind == "ok":
        assert len(values) == int(depth) and all(0 <= v <= 1 for v in values)


PRIORS = st.one_of(
    st.builds(lambda w: ("SlidingWindow", (w,)), size(16)),
    st.builds(lambda n: ("PrefixLM", (n,)), size(16)),
    st.builds(lambda c, w: ("Sinks", (c, w)), size(8), size(8) | st.none()),
    st.builds(lambda n, s: ("ALiBi", (n, s)), size(8), st.none() | st.lists(unit((0.5, 1e308, -1.0)), max_size=3)),
    st.builds(lambda s: ("Chunks", (s,)), st.lists(size(16), min_size=0, max_size=3) | odd),
    st.builds(lambda t: ("parse_prior", (t,)), st.sampled_from(["causal", "window:4", "alibi:2:1e308/1",
                                                                 "chunks:3+3", "ring", "prefix:-1", ""]) | odd),
)


@SETTINGS
@given(spec=PRIORS, length=st.integers(2, 16), depth=st.integers(1, 6))
def test_priors_through_rows(spec, length, depth):
    name, args = spec

    def build():
        if name == "parse_prior":
            return theory.parse_prior(args[0], length)
        if name == "ALiBi":
            return theory.ALiBi(args[0], slopes=args[1])
        if name == "Sinks":
            return theory.Sinks(args[0], window=args[1])
        if name == "Chunks":
            return theory.Chunks(args[0])
        return getattr(theory, name)(*args)

    names = ("width", "prefix", "count", "window", "n_heads", "slopes", "lengths", "length", "prior", "text",
             "spec", "chunks", "sinks", "alibi")
    kind, prior = run_case(f"theory.{name}", build, names)
    if kind == "ok":
        kind, row = run_case("theory.log_influence_row(prior=...)",
                             lambda: theory.log_influence_row(length, depth, 0.5, prior=prior), names)
        if kind == "ok":
            assert not np.any(np.isnan(row)) and abs(np.exp(row).sum() - 1) < 1e-9


@SETTINGS
@given(row=st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=0, max_size=6) | odd,
       band=unit((0.1, 0.25, 0.5, 0.0)))
def test_summarize_log_row(row, band):
    kind, summary = run_case("theory.summarize_log_row", lambda: theory.summarize_log_row(row, band=band),
                             ("log_row", "band"))
    if kind == "ok":
        assert np.isfinite(summary.primacy_mass) and np.isfinite(summary.middle_mass)


@pytest.mark.parametrize("call", [
    lambda: theory.influence_row(200, 4, 0.5, backend="arb", dps=10**12),
    lambda: theory.influence_row(50, 4, 0.5, backend="mpmath", dps=10**8),
    lambda: theory.continuum_density(0.5, 10**7, 0.5),
    lambda: theory.power_law_schedule(10**9, 0.5, 0.5),
    lambda: theory.cesaro_matrix(20000, exact=True),
    lambda: theory.log_influence_row(100, 10**8, 0.5),
    lambda: theory.ALiBi(10**7),
])
def test_known_aborts_and_hangs_answer_at_once(call):
    kind, _ = run_case("theory: sizes that aborted or hung", call,
                       ("dps", "depth", "length", "n_heads", "max_", "limit"), seconds=5)
    assert kind == "error"
