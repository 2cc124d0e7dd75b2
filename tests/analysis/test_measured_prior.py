"""The measured Content prior's rows of content_scores.csv."""

from lostmid_jax import theory
from lostmid_jax.analysis.measured_prior import CONTENT_LENGTH, content_records


def test_content_records_list_each_layer_and_head():
    prior = theory.Content(theory.Causal(), heads=2, diag=((1.0, 2.0), (0.5, 0.0)), base=((0.1, 0.2), (0.3, 0.4)))
    rows = content_records(prior, 10 * CONTENT_LENGTH, preset="toy")
    assert [(r["layer"], r["head"], r["self_bonus"], r["offdiag_score"]) for r in rows] == [
        (1, 1, 1.0, 0.1), (1, 2, 2.0, 0.2), (2, 1, 0.5, 0.3), (2, 2, 0.0, 0.4)]
    assert {r["preset"] for r in rows} == {"toy"} and {r["measured_length"] for r in rows} == {CONTENT_LENGTH}
    assert content_records(theory.Causal(), 8) == []
