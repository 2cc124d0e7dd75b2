"""The theory bridge: a Step-0 model's Jacobian equals the influence row.

With uniform attention (or linear-value), no MLP, no norm and blocks
x <- (1 - a) x + a Attn(x), each layer acts on the stacked input as
N_l = (1 - a_l) I + a_l A (x) W_l with A the row-normalized mask and W_l the
value-output product. With W_l = I the Jacobian is
d y_i / d x_j = (N_H ... N_1)[i, j] I_D, and for the causal mask its last row is
the theory's influence row w_j (Chowdhury, arXiv:2603.10123). For general W_l
the exact Jacobian is the product of the Kronecker operators.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Decoder, DecoderConfig, apply_fn
from reference_masks import reference_mask

L, D, HEADS = 7, 8, 2
SEGMENTS = np.array([0, 0, 1, 1, 1, 2, 2])


def dense_attention(mask, window=None, prefix=None, segments=None):
    """Row-normalized uniform attention over the allowed set, numpy float64."""
    allowed = reference_mask(L, mask, window, prefix, segments)
    return allowed / allowed.sum(axis=1, keepdims=True)


def dense_product(attn, alphas):
    out = np.eye(L)
    for a in alphas:
        out = ((1 - a) * np.eye(L) + a * attn) @ out
    return out


def step0_model(depth, alpha, attention="uniform", **mask_kw):
    cfg = DecoderConfig(depth=depth, width=D, heads=HEADS, attention=attention, mlp="none",
                        norm="none", position="none", attn_mix=alpha, qkv_bias=False,
                        out_bias=False, init_std=0.3, param_dtype="float64", **mask_kw)
    return Decoder(cfg, rngs=nnx.Rngs(3))


def identity_value_output(model):
    """Overwrite W_v and W_o of every layer with I_D, so sum_h W_v^h W_o^h = I."""
    depth = model.cfg.depth
    eye = jnp.broadcast_to(jnp.eye(D), (depth, D, D))
    model.blocks.attn.v.kernel[...] = eye
    model.blocks.attn.o.kernel[...] = eye
    return model


def full_jacobian(model, segment_ids=None):
    _, state, fn = apply_fn(model)
    x = jax.random.normal(jax.random.key(0), (L, D), jnp.float64)
    jac = jax.jit(jax.jacrev(lambda s, x: fn(s, x, segment_ids=segment_ids), argnums=1))(state, x)
    return np.asarray(jac)  # [L, D, L, D]


@pytest.mark.parametrize("attention,depth,alpha", [
    ("uniform", 1, 0.5), ("uniform", 3, 1.0), ("uniform", 4, (0.2, 0.9, 0.5, 1.0)),
    ("linear-value", 3, 0.7),
])
def test_causal_bridge_equals_influence_row(attention, depth, alpha):
    model = identity_value_output(step0_model(depth, alpha, attention))
    jac = full_jacobian(model)
    alphas = alpha if isinstance(alpha, tuple) else (alpha,) * depth
    expected = dense_product(dense_attention("causal"), alphas)  # [L, L]
    np.testing.assert_allclose(jac, np.einsum("ij,de->idje", expected, np.eye(D)), atol=1e-12)
    last = jac[-1]  # d y_L / d x_j, [D, L, D]
    w = np.array([last[:, j, :][0, 0] for j in range(L)])
    np.testing.assert_allclose(w, expected[-1], rtol=1e-12)
    from lostmid_jax.theory import influence_row  # the theory, written independently

    np.testing.assert_allclose(w, influence_row(L, depth, list(alphas)), rtol=1e-10, atol=1e-15)


MASKS = [
    dict(mask="bidirectional"),
    dict(mask="sliding_window", window=3),
    dict(mask="prefix_lm", prefix=3),
    dict(mask="document"),
    dict(mask="causal", segments=True),
]


@pytest.mark.parametrize("mask_kw", MASKS, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_other_masks_bridge_equals_dense_reference(mask_kw):
    mask_kw = dict(mask_kw)
    use_seg = mask_kw.pop("segments", False) or mask_kw["mask"] == "document"
    segments = SEGMENTS if use_seg else None
    alphas = (0.6, 0.8, 0.4)
    model = identity_value_output(step0_model(3, alphas, **mask_kw))
    jac = full_jacobian(model, None if segments is None else jnp.asarray(segments))
    attn = dense_attention(mask_kw["mask"], mask_kw.get("window"), mask_kw.get("prefix"), segments)
    expected = dense_product(attn, alphas)
    np.testing.assert_allclose(jac, np.einsum("ij,de->idje", expected, np.eye(D)), atol=1e-12)


@pytest.mark.parametrize("mask_kw", [dict(mask="sliding_window", window=2)])
def test_general_value_output_weights_kronecker_product(mask_kw):
    """No identity trick: the Jacobian is prod_l ((1-a_l) I + a_l A (x) W_l^T)."""
    alphas = (0.5, 0.9)
    model = step0_model(2, alphas, **mask_kw)
    jac = full_jacobian(model).reshape(L * D, L * D)
    attn = dense_attention(mask_kw["mask"], mask_kw.get("window"))
    v = np.asarray(model.blocks.attn.v.kernel[...])  # [H, D, G K]
    o = np.asarray(model.blocks.attn.o.kernel[...])  # [H, N K, D]
    expected = np.eye(L * D)
    for layer, a in enumerate(alphas):
        w_vo = v[layer] @ o[layer]  # [D, D]: heads share the uniform weights
        op = (1 - a) * np.eye(L * D) + a * np.kron(attn, w_vo.T)
        expected = op @ expected
    np.testing.assert_allclose(jac, expected, atol=1e-12)


def test_softmax_with_zero_query_key_is_uniform():
    """The Step-0 limit: q . k = 0 makes softmax attention uniform."""
    soft = step0_model(2, 0.5, "softmax")
    uni = step0_model(2, 0.5, "uniform")
    for model in (soft, uni):
        model.blocks.attn.q.kernel[...] = jnp.zeros_like(model.blocks.attn.q.kernel[...])
    x = jax.random.normal(jax.random.key(4), (L, D), jnp.float64)
    np.testing.assert_allclose(soft(x), uni(x), rtol=1e-13, atol=1e-13)
