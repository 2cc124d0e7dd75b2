"""masks.spec: nn's mask kinds are the shared classes, and prior_for gives the same class."""

import numpy as np
import pytest

from lostmid_jax import masks, nn, theory
from lostmid_jax.analysis import prior_for

CASES = [(dict(mask="causal"), masks.Causal()), (dict(mask="causal", sinks=3), masks.Causal()),
         (dict(mask="bidirectional"), masks.Bidirectional()),
         (dict(mask="sliding_window", window=4), masks.SlidingWindow(4)),
         (dict(mask="sliding_window", window=4, sinks=2), masks.Sinks(2, 4)),
         (dict(mask="prefix_lm", prefix=3), masks.PrefixLM(3)), (dict(mask="document"), masks.Chunks(None))]


@pytest.mark.parametrize("fields,rule", CASES, ids=lambda c: str(c))
def test_mask_spec_rule_is_the_class_and_prior_for_returns_it(fields, rule):
    cfg = nn.DecoderConfig(**fields)
    spec = nn.MaskSpec.from_config(cfg)
    assert spec.rule == rule and spec.needs_segments == rule.needs_segments
    assert spec.prefix_length(4) == (5 if rule.causal else None)
    if fields["mask"] != "document":
        assert prior_for(cfg) == rule and type(prior_for(cfg)) is type(theory.parse_prior(rule.spec, 16))
    else:
        assert prior_for(cfg, 10, doc_length=4) == masks.Chunks((4, 4, 2))


def test_mask_spec_stays_hashable_and_equal_by_its_fields():
    a, b = masks.MaskSpec("sliding_window", window=3, sinks=1), nn.MaskSpec("sliding_window", window=3, sinks=1)
    assert a == b and hash(a) == hash(b) and nn.MaskSpec is masks.MaskSpec
    i, j = np.indices((6, 6))
    np.testing.assert_array_equal(a.allows(i, j), masks.Sinks(1, 3).allows(i, j))
