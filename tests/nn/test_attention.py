"""nn/attention.py: softmax and uniform attention against their formulas, grouped-query heads included."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import preset
from lostmid_jax.nn.attention import Attention

L, D = 5, 8
X = np.asarray(jax.random.normal(jax.random.key(0), (1, L, D), jnp.float64))
POS = jnp.arange(L)[None]
CAUSAL = np.tril(np.ones((L, L), bool))


def _layer(**fields):
    cfg = preset("toy", depth=1, width=D, heads=4, kv_heads=2, position="none", qkv_bias=True, out_bias=True,
                 qk_norm=False, param_dtype="float64", **fields)
    return Attention(cfg, rngs=nnx.Rngs(0))


def _w(linear):
    return np.asarray(linear.kernel[...]), np.asarray(linear.bias[...])


def _reference(layer, probs_of):
    (wq, bq), (wk, bk), (wv, bv), (wo, bo) = (_w(getattr(layer, n)) for n in "qkvo")
    x = X[0]
    q = (x @ wq + bq).reshape(L, 4, 2)
    k = (x @ wk + bk).reshape(L, 2, 2)
    v = (x @ wv + bv).reshape(L, 2, 2)
    heads, probs = [], []
    for h in range(4):
        g = h // 2  # query heads 0, 1 share key/value head 0
        p = probs_of(q[:, h] @ k[:, g].T / np.sqrt(2))
        probs.append(p)
        heads.append(p @ v[:, g])
    return np.concatenate(heads, axis=-1) @ wo + bo, np.stack(probs)


def _softmax(scores):
    s = np.where(CAUSAL, scores, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("need_probs", [True, False])
def test_softmax_grouped_query_attention(need_probs):
    layer = _layer(attention="softmax")
    out, probs = layer(jnp.asarray(X), positions=POS, need_probs=need_probs)
    expected, expected_probs = _reference(layer, _softmax)
    assert np.allclose(out[0], expected, rtol=1e-10, atol=1e-13)
    if need_probs:
        assert np.allclose(probs[0], expected_probs, rtol=1e-10, atol=1e-14)
    else:
        assert probs is None


def test_uniform_attention_ignores_the_scores():
    layer = _layer(attention="uniform")
    out, _ = layer(jnp.asarray(X), positions=POS, need_probs=True)
    uniform = CAUSAL / CAUSAL.sum(1, keepdims=True)
    expected, _ = _reference(layer, lambda scores: uniform)
    assert np.allclose(out[0], expected, rtol=1e-10, atol=1e-13)
