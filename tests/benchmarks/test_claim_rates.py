"""The verdict rule's error rates on synthetic ensembles (benchmarks/claim_rates.py): against the right reference
no claim is refuted, against a gross misfit none is reproduced, beyond 5% of ensembles."""

import pathlib
import sys

import pytest

from lostmid_jax.stats.intervals import wilson_interval
from lostmid_jax.stats.verdicts import REFUTED, REPRODUCED

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _bench():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import claim_rates
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return claim_rates


def _errors(c: dict):
    """(reference, claim, wrong outcome, count) of one cell: REFUTED against "equal", REPRODUCED against "gross"."""
    for ref, wrong in (("equal", REFUTED), ("gross", REPRODUCED)):
        for claim, counts in c["counts"][ref].items():
            yield ref, claim, wrong, counts[wrong]


def test_one_cell_judges_every_claim_against_every_reference():
    """A tiny cell: every (reference, claim) gets one outcome per ensemble; the theory truth against itself is
    never refuted on a number, and a gross misfit is never reproduced."""
    bench = _bench()
    c = bench.cell("theory", "iid-lognormal", 8, 6, 100)
    for ref in bench.REFERENCES:
        for claim in bench.CLAIMS:
            assert sum(c["counts"][ref][claim].values()) == 6
    assert c["counts"]["equal"]["spearman"][REFUTED] == c["counts"]["equal"]["wasserstein"][REFUTED] == 0
    assert all(c["counts"]["gross"][claim][REPRODUCED] == 0 for claim in bench.CLAIMS)
    assert c["true"]["equal"]["spearman"] == pytest.approx(1.0) and c["true"]["gross"]["wasserstein"] > 0.05


@pytest.mark.slow  # about 12 CPU-minutes: every truth x noise kind x S, 100 ensembles a cell
def test_error_rates_stay_within_five_percent():
    """In every cell (6 truths x the noise kinds x S = 4, 8, 16) the rate of the wrong outcome on a number
    (Spearman, W1) is not beyond 5%: its 99.9% Wilson interval reaches 0.05; and pooled over the noise kinds
    (900 ensembles) on every claim, the shape too, whose false alarm is the misfit test's level itself, so that
    a cell of 100 reads up to about 0.13 by chance (its cells are checked with 2000 ensembles in
    tests/stats/test_misfit.py and benchmarks/misfit_false_alarm.py): the 99.99% Wilson interval reaches 0.05.
    The cells' random draws are seeded by their names, so the test is deterministic."""
    bench = _bench()
    pooled = {}
    for truth in bench.TRUTHS:
        for kind in bench.ALL_KINDS:
            for rows in (4, 8, 16):
                c = bench.cell(truth, kind, rows, 100, 300)
                for ref, claim, wrong, k in _errors(c):
                    if claim != "shape":
                        assert wilson_interval(k, c["trials"], level=0.999)[0] <= 0.05, (truth, kind, rows, ref,
                                                                                         claim, k)
                    total = pooled.setdefault((truth, rows, ref, claim), [0, 0])
                    total[0] += k
                    total[1] += c["trials"]
    for key, (k, n) in pooled.items():
        assert wilson_interval(k, n, level=0.9999)[0] <= 0.05, (key, k, n)
