"""step0's verdict: each claim judged with its case named, gross misfits never reproduced, smoke runs say so."""

import math
import re

import numpy as np

from test_step0 import run_dir  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_verdict_lines_a_reader_scans(run_dir):
    """One line per claim, at most LINE_WIDTH characters, each printed point inside its printed interval; the
    reasons below the DETAILS line; every claim line's number is in metrics.csv."""
    from lostmid_jax.experiments.step0.claims import LINE_WIDTH
    from lostmid_jax.runs import load_run
    from lostmid_jax.present.verdict_table import DETAILS, claim_rows

    verdict = (run_dir / "verdict.txt").read_text()
    head, details = verdict.split(f"\n{DETAILS}\n")
    rows = claim_rows(verdict)
    assert len(rows) == 10  # 2 Spearman + 3 W1 + 3 shape + on/off + peak-to-trough
    claim_lines = [line for line in head.splitlines() if any(f": {o} (" in line for o in ("REPRODUCED", "REFUTED",
                                                                                           "inconclusive"))]
    assert len(claim_lines) == 10 and all(len(line) <= LINE_WIDTH for line in claim_lines)
    assert any(line.startswith(("  holds -- ", "  fails -- ", "  undecided -- ")) for line in head.splitlines())
    metrics_text = (run_dir / "metrics.csv").read_text()
    for row in rows:
        found = re.match(r"(-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\]", row.measured)
        if found is None:  # the shape lines print T/dof, not an interval
            assert row.claim.startswith("shape"), row
            continue
        point, lo, hi = map(float, found.groups())
        assert lo <= point <= hi, row
    m = load_run(run_dir).tables["metrics"].set_index("variant").loc["native"]
    for kind in ("measured", "fitted"):
        line = next(r for r in rows if r.claim.startswith("Spearman") and r.claim.endswith(
            "measured a_l" if kind == "measured" else "log-fit a"))
        assert line.measured == (f"{m[f'spearman_rc_{kind}']:.4f} [{m[f'spearman_rc_{kind}_lo']:.4f}, "
                                 f"{m[f'spearman_rc_{kind}_hi']:.4f}]")
    for kind in ("measured", "fitted", "w1fit"):
        line = next(r for r in rows if r.claim.startswith("W1") and ({"measured": "measured a_l", "fitted": "log-fit",
                                                                       "w1fit": "W1-chosen"}[kind] in r.claim))
        assert line.measured == (f"{m[f'wasserstein_bc_{kind}']:.4f} [{m[f'wasserstein_{kind}_lo']:.4f}, "
                                 f"{m[f'wasserstein_{kind}_hi']:.4f}]")
    assert "theory_w1fit" in (run_dir / "profiles.csv").read_text().splitlines()[0]
    assert "a_w1" in metrics_text.splitlines()[0]
    assert "toy:" in details and "->" in details


def test_judge_names_each_case():
    from lostmid_jax.experiments.step0.claims import judge

    assert judge("spearman", 0.995, (0.991, 0.999), rows=8).outcome == "REPRODUCED"
    assert judge("spearman", 0.97, (0.95, 0.995), rows=8).outcome == "inconclusive"
    assert judge("spearman", 0.30, (0.25, 0.35), rows=8).outcome == "REFUTED"
    assert judge("wasserstein", 0.015, (0.01, 0.019), rows=8).outcome == "REPRODUCED"
    assert judge("wasserstein", 0.021, (0.0201, 0.024), rows=8).outcome == "REFUTED"  # 0.02 as stated
    assert judge("wasserstein", 0.03, (0.01, 0.04), rows=8).outcome == "inconclusive"
    assert judge("wasserstein", 0.08, (0.06, 0.1), rows=8).outcome == "REFUTED"
    clipped = judge("spearman", 0.978, (0.9659, 1.0), rows=4)  # gpt2-small with 4 seeds
    assert clipped.outcome == "inconclusive" and "power calculation" in clipped.details
    assert judge("onoff", 0.9, (math.nan, math.nan), rows=1).reason == "1 seed(s) < 4"
    assert judge("peak_to_trough", 2.1, (1.9, 2.3), rows=8).outcome == "REPRODUCED"
    assert judge("peak_to_trough", 1.4, (1.2, 1.6), rows=8).outcome == "inconclusive"
    assert judge("peak_to_trough", 1.0, (0.9, 1.1), rows=8).outcome == "REFUTED"
    assert judge("spearman", math.nan, (math.nan, math.nan), rows=8).reason == "not measured"
    ramp = judge("spearman", 0.998, (0.997, 0.9995), rows=8, nulls={"ramp L..1": 0.996})
    assert "cannot tell the theories apart" in ramp.details and "a null meets it too" in ramp.reason


def test_gross_misfits_are_never_reproduced_on_synthetic_ensembles():
    """Ensembles whose true Spearman against the reference is about 0.5, and ensembles with a true W1 of
    twice the claim at 4 seeds: never REPRODUCED by the estimators the verdict judges, the Spearman ones
    REFUTED."""
    from lostmid_jax.experiments.step0.claims import judge
    from lostmid_jax.stats.agreement import agreement

    rng = np.random.default_rng(27)
    length = 48
    x = np.arange(1, length + 1) / length
    truth = 1.0 / (x + 0.05)
    shuffled = truth.copy()
    shuffled[8:40] = rng.permutation(shuffled[8:40])  # rank agreement about 0.5, same values
    outcomes = []
    for _ in range(25):
        rows = truth * np.exp(0.2 * rng.standard_normal((8, length)))
        ag = agreement(rows, shuffled, n_boot=300, seed=0)
        outcomes.append(judge("spearman", ag.spearman_rc, ag.spearman_rc_ci, rows=8).outcome)
    assert set(outcomes) == {"REFUTED"}, outcomes
    far = truth * np.exp(-1.2 * x)  # W1 against truth about 0.05
    w1_outcomes = []
    for _ in range(25):
        rows = truth * np.exp(0.3 * rng.standard_normal((4, length)))
        ag = agreement(rows, far, n_boot=300, seed=0)
        w1_outcomes.append(judge("wasserstein", ag.wasserstein_bc, ag.wasserstein_ci, rows=4).outcome)
    assert "REPRODUCED" not in w1_outcomes


def test_smoke_verdict_says_it_cannot_test_the_claims():
    from lostmid_jax.experiments.arguments import nest
    from lostmid_jax.experiments.step0 import SMOKE, Config
    from lostmid_jax.runs.config import from_dict
    from lostmid_jax.experiments.step0.claims import SMOKE_NOTE, verdict

    assert from_dict(Config, nest(SMOKE)).smoke and SMOKE_NOTE == "(smoke run: too small to test the paper's claims)"
    assert verdict({}, smoke=True)[0] == SMOKE_NOTE and SMOKE_NOTE not in verdict({})
