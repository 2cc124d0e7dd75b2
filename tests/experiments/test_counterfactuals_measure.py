"""The counterfactual sweep's rows: results.csv and profiles.csv recomputed from the theory API."""

import math

import numpy as np
import pandas as pd
import pytest

from lostmid_jax import theory
from lostmid_jax.masks.text import parse_prior
from test_counterfactuals import _rows, smoke_run  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_profiles_csv_reproduced_by_theory_api(smoke_run):
    run_dir, _ = smoke_run
    profiles = pd.read_csv(run_dir / "profiles.csv")
    for (spec, depth), rows in profiles.groupby(["prior", "depth"]):
        prior = parse_prior(spec, 128)
        expected = (theory.log_influence_row(128, int(depth), 0.5, prior=prior) + math.log(128)) / math.log(10)
        np.testing.assert_allclose(rows["log10_density"], expected[rows["j"].to_numpy() - 1], rtol=1e-12, atol=1e-12)


def test_every_number_reproduced_by_theory_api(smoke_run):
    run_dir, _ = smoke_run
    for r in _rows(run_dir):
        length, depth = int(r["length"]), int(r["depth"])
        prior = parse_prior(r["prior"], length)
        assert r["label"] == prior.label
        log_row = theory.log_influence_row(length, depth, 0.5, prior=prior)
        summary = theory.summarize_log_row(log_row).as_dict()
        for key, value in summary.items():
            assert float(r[key]) == pytest.approx(value, rel=1e-12, abs=1e-300), (r["prior"], depth, key)
        density = length * np.asarray(theory.influence_row(length, depth, 0.5, prior=prior))[:-1]  # float64, j < L
        dead = density < 0.01
        x = np.arange(1, length) / length
        assert float(r["dead_fraction"]) == pytest.approx(dead.mean(), abs=1e-15)
        assert float(r["zero_fraction"]) == pytest.approx(np.mean(density == 0), abs=1e-15)
        if dead.any():
            assert (float(r["dead_x_min"]), float(r["dead_x_max"])) == (x[dead].min(), x[dead].max())
        else:
            assert r["dead_x_min"] == r["dead_x_max"] == r["dead_x_mean"] == ""  # missing: an empty field
