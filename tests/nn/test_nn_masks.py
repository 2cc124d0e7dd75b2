"""Mask topology seen through the full input-output Jacobian (float64).

For a stack of H blocks with residuals, d y_i / d x_j can be nonzero only if
j is reachable from i in H steps of the mask graph (plus self-loops); with
generic weights it is then nonzero. The reference masks are written here in
numpy, independently of lostmid_jax.nn.masks.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Decoder, DecoderConfig, apply_fn
from reference_masks import reference_mask as shared_reference_mask

L, D = 8, 8
SEGMENTS = np.array([0, 0, 0, 1, 1, 2, 2, 2])


def reference_mask(mask, window=None, prefix=None, segments=None):
    return shared_reference_mask(L, mask, window, prefix, segments)


CASES = [
    dict(mask="causal"),
    dict(mask="bidirectional"),
    dict(mask="sliding_window", window=2),
    dict(mask="sliding_window", window=1),
    dict(mask="document", segments=True),
    dict(mask="prefix_lm", prefix=3),
    dict(mask="bidirectional", segments=True),
]


def block_norms(cfg, segment_ids=None, seed=0):
    model = Decoder(cfg, rngs=nnx.Rngs(seed))
    _, state, fn = apply_fn(model)
    x = jax.random.normal(jax.random.key(seed + 1), (L, D), jnp.float64)
    jac = jax.jit(jax.jacrev(lambda s, x: fn(s, x, segment_ids=segment_ids), argnums=1))(state, x)
    return np.linalg.norm(np.asarray(jac), axis=(1, 3))  # [L, L]


# every mask at depth 1 (the mask itself); depth 2 for the sliding window, whose reach composition widens
# (by default), and for causal and prefix_lm, whose two-step reach is their one-step reach (slow)
DEPTH_CASES = [(1, c) for c in CASES] + [(2, CASES[2]), (2, CASES[0]), (2, CASES[5])]
SLOW_DEPTH_CASES = [(2, CASES[0]), (2, CASES[5])]
# under -m extended: segments on a bidirectional mask (the document mask checks segments by default) and
# the widened two-layer reach of the sliding window
EXTENDED_DEPTH_CASES = [(1, CASES[6]), (2, CASES[2])]


@pytest.mark.parametrize("depth,case", [
    pytest.param(d, c, id=f"H{d}-" + "-".join(str(v) for v in c.values()),
                 marks=[pytest.mark.slow] if (d, c) in SLOW_DEPTH_CASES else
                 [pytest.mark.extended] if (d, c) in EXTENDED_DEPTH_CASES else []) for d, c in DEPTH_CASES])
def test_jacobian_zero_pattern_matches_mask(depth, case):
    case = dict(case)
    segments = SEGMENTS if case.pop("segments", False) else None
    cfg = DecoderConfig(depth=depth, width=D, heads=2, position="rope", norm="rmsnorm",
                        mlp="gelu", init_std=0.5, param_dtype="float64", **case)
    norms = block_norms(cfg, None if segments is None else jnp.asarray(segments))
    step = reference_mask(case["mask"], case.get("window"), case.get("prefix"), segments)
    step = step | np.eye(L, dtype=bool)
    reach = np.linalg.matrix_power(step.astype(int), depth) > 0
    assert np.all(norms[~reach] == 0.0), np.argwhere((norms != 0) & ~reach)
    assert np.all(norms[reach] > 1e-8)
    if case["mask"] in ("causal", "sliding_window", "document"):
        assert np.all(norms[np.triu_indices(L, 1)] == 0.0)  # d y_i / d x_j = 0 for j > i


def test_document_mask_needs_segment_ids():
    cfg = DecoderConfig(mask="document", width=D, heads=2, param_dtype="float64")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="segment_ids"):
        model(jnp.ones((L, D)))


def test_batched_segment_ids_per_example():
    cfg = DecoderConfig(mask="document", width=D, heads=2, param_dtype="float64")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    x = jax.random.normal(jax.random.key(2), (2, L, D), jnp.float64)
    seg = jnp.stack([jnp.asarray(SEGMENTS), jnp.zeros(L, jnp.int32)])
    y = model(x, segment_ids=seg)
    for b in range(2):
        np.testing.assert_allclose(y[b], model(x[b], segment_ids=seg[b]), rtol=1e-12, atol=1e-12)
