"""masks/content.py: the Content prior's fields, stored per layer and head, and their checks."""

import pytest

from lostmid_jax.masks import ALiBi, Chunks, Content


def test_fields_are_stored_as_rows_per_layer():
    prior = Content(heads=2, diag=1.0, base=(0.5, -0.5), slopes="alibi", head_weights=(1, 3))
    assert prior.diag == ((1.0, 1.0),) and prior.base == ((0.5, -0.5),)
    assert prior.slopes == "alibi" and prior.head_weights == (1, 3)  # normalized where used (content_ops)
    per_layer = Content(heads=2, diag=[[1.0, 2.0], [3.0]])
    assert per_layer.diag == ((1.0, 2.0), (3.0, 3.0))


@pytest.mark.parametrize("kwargs,match", [
    (dict(mask=ALiBi(2)), "mask must be one of"), (dict(heads=0), "heads"),
    (dict(heads=2, diag=(1.0, 2.0, 3.0)), "diag"), (dict(scores=()), "scores must be None or a sequence"),
    (dict(scores=(1.0, float("nan"))), r"scores\[1\]"), (dict(slopes="linear"), "slopes must be None"),
    (dict(slopes=(-1.0,)), "slopes"), (dict(heads=2, head_weights=(1.0,)), "head_weights must be None or 2"),
    (dict(head_weights=(0.0,)), "positive sum"), (dict(temperature=0), "temperature"),
])
def test_bad_fields_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Content(**kwargs)


def test_scores_must_fit_the_length():
    prior = Content(mask=Chunks((2, 2)), scores=(0.0, 1.0, 2.0, 3.0))
    assert prior.check(4) == prior
    with pytest.raises(ValueError):
        prior.check(5)
