"""The fused C++ attention kernel (kernels/fused_cpu) against independent references.

References: a float64 dense softmax attention written here from the mask's
definition (nn_helpers.reference_mask), differentiated by JAX's autodiff; and
the whole decoder through the blocked XLA route (Execution(attn_impl="blocked")).
The kernel runs in float32, so agreement is to float32 rounding (~1e-6 relative).
The kernel must build here: CI machines have g++ (see kernels/fused_cpu/build.py).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from nn_helpers import reference_mask

from lostmid_jax.kernels import fused_cpu
from lostmid_jax.kernels.fused_cpu import FusedSpec, fused_attention
from lostmid_jax.nn import Decoder, DecoderConfig, Execution, MaskSpec

CASES = [  # (mask, extra, batch dims, L, G, R, K): tails of rows and tiles, generic and templated K
    ("causal", {}, (2,), 37, 2, 2, 16),
    ("causal", {}, (1,), 16, 1, 4, 8),
    ("bidirectional", {}, (2, 2), 13, 1, 1, 6),
    ("sliding_window", {"window": 5}, (2,), 40, 2, 1, 32),
    ("prefix_lm", {"prefix": 9}, (1,), 21, 3, 2, 10),
    ("prefix_lm", {"prefix": 30}, (2,), 21, 1, 3, 16),  # prefix longer than L
]


def dense_reference(q, k, v, allowed):
    """float64 softmax attention: q [..., L, G, R, K], k, v [..., L, G, K], allowed [L, L]."""
    scores = jnp.einsum("...igrk,...jgk->...grij", q, k) / np.sqrt(q.shape[-1])
    scores = jnp.where(allowed, scores, -jnp.inf)
    probs = jax.nn.softmax(scores, axis=-1)
    return jnp.einsum("...grij,...jgk->...igrk", probs, v), probs


def inputs(batch, length, g, r, kd, seed=0):
    keys = jax.random.split(jax.random.key(seed), 4)
    q = 1.5 * jax.random.normal(keys[0], (*batch, length, g, r, kd), jnp.float32)
    k = 1.5 * jax.random.normal(keys[1], (*batch, length, g, kd), jnp.float32)
    v = jax.random.normal(keys[2], (*batch, length, g, kd), jnp.float32)
    d_o = jax.random.normal(keys[3], (*batch, length, g, r, kd), jnp.float32)
    return q, k, v, d_o


def test_kernel_builds_here():
    assert fused_cpu.available(), fused_cpu.unavailable_reason()


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-L{c[3]}-R{c[5]}-K{c[6]}" for c in CASES])
@pytest.mark.parametrize("freeze", [False, True], ids=["total", "value-pathway"])
def test_values_and_gradients_match_dense_float64(case, freeze):
    mask, extra, batch, length, g, r, kd = case
    q, k, v, d_o = inputs(batch, length, g, r, kd)
    allowed = jnp.asarray(reference_mask(length, mask, extra.get("window"), extra.get("prefix")))
    spec = FusedSpec(MaskSpec(mask, extra.get("window"), extra.get("prefix")), freeze)

    def ref(q, k, v):
        q, k, v = (x.astype(jnp.float64) for x in (q, k, v))
        out, probs = dense_reference(q, k, v, allowed)
        if freeze:  # value pathway: the probabilities are constants
            out = jnp.einsum("...grij,...jgk->...igrk", jax.lax.stop_gradient(probs), v)
        return out

    want, want_vjp = jax.vjp(ref, q, k, v)  # float64 is on for the tests (conftest)
    want_grads = want_vjp(d_o.astype(jnp.float64))
    got, got_vjp = jax.vjp(jax.jit(lambda q, k, v: fused_attention(q, k, v, spec)), q, k, v)
    got_grads = got_vjp(d_o)
    assert got.dtype == jnp.float32 and got.shape == q.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)
    for name, a, b in zip("qkv", got_grads, want_grads):
        scale = float(jnp.max(jnp.abs(b))) or 1.0
        np.testing.assert_allclose(a, b, rtol=0, atol=4e-6 * scale, err_msg=f"d{name}")
    if freeze:
        assert not np.any(got_grads[0]) and not np.any(got_grads[1])


def test_vmap_over_cotangents_equals_one_at_a_time():
    q, k, v, d_o = inputs((2,), 20, 2, 2, 16)
    spec = FusedSpec(MaskSpec("causal"))
    _, vjp = jax.vjp(lambda q, k, v: fused_attention(q, k, v, spec), q, k, v)
    stacked = jax.vmap(vjp)(jnp.stack([d_o, -3.0 * d_o, jnp.roll(d_o, 1, axis=1)]))
    for t, cot in enumerate([d_o, -3.0 * d_o, jnp.roll(d_o, 1, axis=1)]):
        for a, b in zip(stacked, vjp(cot)):
            np.testing.assert_allclose(a[t], b, rtol=0, atol=1e-6)


def test_large_scores_stay_finite():
    """Scores of order 1e3: the row max is subtracted before exp (no overflow)."""
    q, k, v, _ = inputs((1,), 24, 1, 1, 16)
    out = fused_attention(100.0 * q, 100.0 * k, v, FusedSpec(MaskSpec("causal")))
    allowed = jnp.asarray(reference_mask(24, "causal"))
    want = dense_reference(*(x.astype(jnp.float64) for x in (100.0 * q, 100.0 * k, v)), allowed)[0]
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-4)


DECODERS = [
    dict(mask="causal", position="rope", heads=4, kv_heads=2, qkv_bias=True, mlp="swiglu"),
    dict(mask="sliding_window", window=4, position="learned", heads=2),
    dict(mask="prefix_lm", prefix=5, position="none", heads=4, kv_heads=1),
]


@pytest.mark.parametrize("extra", DECODERS, ids=[d["mask"] for d in DECODERS])
def test_decoder_fused_equals_blocked(extra):
    """Outputs, the input Jacobian (total and value pathway, through vmap) and parameter gradients."""
    cfg = DecoderConfig(depth=2, width=16, **extra)
    model = Decoder(cfg, rngs=nnx.Rngs(3))
    x = jax.random.normal(jax.random.key(1), (2, 11, 16), jnp.float32)
    w = jax.random.normal(jax.random.key(2), (2, 11, 16), jnp.float32)

    def everything(model, attn_impl):
        graphdef, state = nnx.split(model)
        run = Execution(attn_impl=attn_impl)
        fn = lambda s, x, f=False: nnx.merge(graphdef, s)(x, freeze_probs=f, execution=run)  # noqa: E731
        return dict(y=fn(state, x), jac=jax.jacrev(fn, argnums=1)(state, x[:1]),
                    jac_value=jax.jacrev(lambda s, x: fn(s, x, True), argnums=1)(state, x[:1]),
                    grads=jax.grad(lambda s: jnp.sum(w * fn(s, x)))(state))

    got = jax.jit(everything, static_argnums=1)(model, "fused_cpu")
    want = jax.jit(everything, static_argnums=1)(model, "blocked")
    for key in ("y", "jac", "jac_value"):
        np.testing.assert_allclose(got[key], want[key], rtol=0, atol=2e-5, err_msg=key)
    for a, b in zip(jax.tree.leaves(got["grads"]), jax.tree.leaves(want["grads"])):
        np.testing.assert_allclose(a, b, rtol=0, atol=2e-5 * max(1.0, float(jnp.max(jnp.abs(b)))))


def test_bad_inputs_raise_clear_errors():
    q, k, v, _ = inputs((1,), 8, 1, 1, 8)
    with pytest.raises(ValueError, match="float32 q"):
        fused_attention(q.astype(jnp.bfloat16), k, v, FusedSpec(MaskSpec("causal")))
    with pytest.raises(ValueError, match="k, v"):
        fused_attention(q, k[..., :4], v, FusedSpec(MaskSpec("causal")))
    with pytest.raises(ValueError, match="head dim"):
        big = jnp.zeros((1, 2, 1, 1, 600), jnp.float32)
        fused_attention(big, big[:, :, :, 0], big[:, :, :, 0], FusedSpec(MaskSpec("causal")))
    with pytest.raises(ValueError, match="mask"):
        FusedSpec.from_config(DecoderConfig(mask="document"))
    fused = Execution(attn_impl="fused_cpu")
    for bad in (dict(position="alibi"), dict(mask="document"), dict(attention="uniform"),
                dict(param_dtype="float64")):
        with pytest.raises(ValueError, match="attn_impl='fused_cpu'"):
            fused.check_for(DecoderConfig(**bad))
    with pytest.raises(ValueError, match="attn_impl"):
        Execution(attn_impl="cuda")
    model = Decoder(DecoderConfig(depth=1, width=8, heads=2), rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="segment_ids"):
        model(jnp.ones((1, 8, 8)), segment_ids=jnp.zeros((1, 8), jnp.int32), execution=fused)
