"""The shared Step-0 measurement: a unit's input, the rows of content_scores.csv."""

import jax
import numpy as np

from lostmid_jax import theory
from lostmid_jax.analysis.step0_measure import CONTENT_LENGTH, content_records, model_input


class _Model:
    class cfg:
        vocab_size = None
        width = 4
        compute_dtype = np.float32


def test_model_input_is_gaussian_without_a_vocabulary():
    x = model_input(_Model(), 6, jax.random.key(0), "tokens")
    assert x.shape == (6, 4) and x.dtype == np.float32
    assert np.array_equal(x, jax.random.normal(jax.random.key(0), (6, 4), np.float32))


def test_content_records_list_each_layer_and_head():
    prior = theory.Content(theory.Causal(), heads=2, diag=((1.0, 2.0), (0.5, 0.0)), base=((0.1, 0.2), (0.3, 0.4)))
    rows = content_records(prior, 10 * CONTENT_LENGTH, preset="toy")
    assert [(r["layer"], r["head"], r["self_bonus"], r["offdiag_score"]) for r in rows] == [
        (1, 1, 1.0, 0.1), (1, 2, 2.0, 0.2), (2, 1, 0.5, 0.3), (2, 2, 0.0, 0.4)]
    assert {r["preset"] for r in rows} == {"toy"} and {r["measured_length"] for r in rows} == {CONTENT_LENGTH}
    assert content_records(theory.Causal(), 8) == []
