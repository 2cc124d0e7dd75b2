"""The lemma checks of proofs/ pass, and they are able to fail.

Each lemma of docs/theory.md §3-§4 has a check in proofs/ (see proofs/README.md);
these tests run them and add negative controls: a relative perturbation of 1e-39
of any closed form (just above the required 40-digit agreement) must be detected.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import re
import sys
from pathlib import Path

import mpmath
import pytest

PROOFS = Path(__file__).resolve().parents[2] / "proofs"


def _load_runner():
    spec = importlib.util.spec_from_file_location("lostmid_proofs_check", PROOFS / "check.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)  # puts proofs/ on sys.path for its sibling modules
    return mod


check = _load_runner()
LEMMAS = list(check.LEMMAS)


@functools.lru_cache(maxsize=None)
def _result(name):
    return check.LEMMAS[name]()


def test_all_eight_lemmas_present():
    assert LEMMAS == [
        "chain_sum",
        "hausdorff_bernstein",
        "hop_decomposition",
        "continuum_kernel",
        "gamma_mixture",
        "laguerre_form",
        "moments",
        "factorial_middle",
    ]


@pytest.mark.parametrize("name", LEMMAS)
def test_lemma_passes(name):
    r = _result(name)
    assert r.passed, "\n".join([r.line()] + r.failures[:10])
    assert r.exact_cases + r.float_cases > 0
    # at least 40 digits wherever a floating comparison was made
    assert r.float_cases == 0 or r.digits >= check.proofkit.TOL_DIGITS
    assert r.worst_rel <= 10.0 ** -check.proofkit.TOL_DIGITS
    line = r.line()
    assert line.startswith("[PASS]") and name in line and "digits" in line


@pytest.mark.parametrize("name", LEMMAS)
def test_negative_control_detected(name):
    """A 1e-39 relative perturbation of the closed form must make the check fail."""
    with pytest.raises(check.CheckFailed):
        check.LEMMAS[name](perturb=check.NEGATIVE_PERTURBATION, fail_fast=True)


@pytest.mark.parametrize("name", ["laguerre_form", "factorial_middle"])
def test_floating_routes_detect_perturbation_too(name):
    """Not only the exact-rational routes: the 50-digit routes alone also catch 1e-39."""
    r = check.LEMMAS[name](perturb=check.NEGATIVE_PERTURBATION)
    assert not r.passed
    assert any("exact mismatch" in f for f in r.failures)
    assert any("rel dev" in f for f in r.failures)


def test_tally_resolution():
    pk = check.proofkit
    ctx = pk.mpctx(60)
    t = pk.Tally("t", "t")
    t.close(ctx, ctx.mpf(1) + ctx.mpf(10) ** -41, 1, "inside tolerance")
    assert t.result("g").passed
    t.close(ctx, ctx.mpf(1) + ctx.mpf(10) ** -39, 1, "outside tolerance")
    t.exact(pk.Fraction(1, 3), pk.Fraction(1, 3), "equal")
    r = t.result("g")
    assert not r.passed and len(r.failures) == 1
    assert math.isclose(r.digits, 39, abs_tol=0.01)
    t2 = pk.Tally("t2", "t2")
    t2.exact(pk.Fraction(1, 3), pk.Fraction(1, 3) + pk.Fraction(1, 10**60), "tiny exact change")
    assert not t2.result("g").passed


def test_global_mpmath_context_untouched():
    before = mpmath.mp.dps
    check.LEMMAS["laguerre_form"]()
    assert mpmath.mp.dps == before


def test_proofs_are_independent_of_the_library():
    pattern = re.compile(r"^\s*(import|from)\s+lostmid_jax\b", re.M)
    for path in PROOFS.glob("*.py"):
        assert not pattern.search(path.read_text()), f"{path.name} imports lostmid_jax"


def test_every_lemma_documented():
    readme = (PROOFS / "README.md").read_text()
    for name, doc in check.DOCS.items():
        assert (PROOFS / doc).is_file(), doc
        assert doc in readme and f"check.{name}" in readme
        text = (PROOFS / doc).read_text()
        assert "Statement" in text or "statements" in text, doc
        assert "Proof" in text, doc
        assert f"check_{name}.py" in text, doc
