"""The comparison's tables: one-based positions and layers, agreement recomputed from the saved profiles."""

import numpy as np
import pandas as pd
import pytest

from lostmid_jax.experiments import pretrained_vs_init as compare
from test_pretrained_vs_init import _tables, smoke_run  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_one_based_positions_and_layers(smoke_run):
    t = _tables(smoke_run)
    L, H = compare.SMOKE["influence.length"], compare.TINY_GPT2["n_layer"]
    for model in compare.MODELS:
        rows = t["profiles"][t["profiles"]["model"] == model]
        assert rows["j"].tolist() == list(range(1, L + 1))
        np.testing.assert_allclose(rows["x"], np.arange(1, L + 1) / L)
        assert t["alphas"][t["alphas"]["model"] == model]["layer"].tolist() == list(range(1, H + 1))
    for name, frame in t.items():
        assert all(pd.api.types.is_numeric_dtype(frame[c]) for c in frame if c not in ("model", "method", "reference"))


def test_agreement_is_recomputed_from_the_saved_profiles(smoke_run):
    """The pretrained-vs-theory row of agreement.csv: Spearman of the saved seed-mean profile and theory row."""
    from lostmid_jax.stats import profile_metrics as metrics

    t = _tables(smoke_run)
    rows = t["profiles"][t["profiles"]["model"] == "pretrained"]
    ag = t["agreement"].set_index(["model", "reference"]).loc[("pretrained", "theory_measured")]
    assert ag["spearman"] == pytest.approx(metrics.spearman(rows["p_mean"].to_numpy(), rows["theory_measured"].to_numpy()))
