"""The fused C++ attention kernel (kernels/fused_cpu) against independent references.

References: a float64 dense softmax attention written here from the mask's
definition (tests/reference_masks.py), differentiated by JAX's autodiff; and
the whole decoder through the blocked XLA route (Execution(attn_impl="blocked")).
The kernel runs in float32, so agreement is to float32 rounding (~1e-6 relative).
The kernel must build here: CI machines have g++ (see kernels/fused_cpu/build.py).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from reference_masks import reference_mask

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
    """q, k, v, d_o (float32; numpy's generator: jax.random would compile a program per shape)."""
    rng = np.random.default_rng(seed)
    def normal(scale, *shape):
        return jnp.asarray(scale * rng.standard_normal((*batch, length, *shape)), jnp.float32)

    return normal(1.5, g, r, kd), normal(1.5, g, kd), normal(1.0, g, kd), normal(1.0, g, r, kd)


def test_kernel_builds_here():
    assert fused_cpu.available(), fused_cpu.unavailable_reason()


# The value pathway (probabilities frozen: the backward drops one term, masks unchanged) by default for
# three shapes, one per kind of key range (causal, window, prefix); for the other three it is slow.
VALUE_PATHWAY_SLOW = ("causal-L16-R4-K8", "bidirectional-L13-R1-K6", "prefix_lm-L21-R3-K16")


def _kernel_params():
    out = []
    for freeze, fid in ((False, "total"), (True, "value-pathway")):
        for c in CASES:
            cid = f"{c[0]}-L{c[3]}-R{c[5]}-K{c[6]}"
            slow = [pytest.mark.slow] if freeze and cid in VALUE_PATHWAY_SLOW else []
            out.append(pytest.param(c, freeze, id=f"{fid}-{cid}", marks=slow))
    return out


@pytest.mark.parametrize("case, freeze", _kernel_params())
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

    # one compiled program per route (op by op, every primitive of every shape compiles apart)
    @functools.partial(jax.jit, static_argnums=0)
    def value_and_vjp(fn, q, k, v, d_o):
        out, vjp = jax.vjp(fn, q, k, v)
        return out, vjp(d_o.astype(out.dtype))

    want, want_grads = value_and_vjp(ref, q, k, v, d_o)  # float64 is on for the tests (conftest)
    got, got_grads = value_and_vjp(lambda q, k, v: fused_attention(q, k, v, spec), q, k, v, d_o)
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
# The default run compares, for the causal decoder, outputs, one backward pass (parameter and input
# gradients) and one value-pathway backward (test_decoder_fused_gradients_equal_blocked); for the other
# two decoders outputs (test_decoder_fused_outputs_equal_blocked): their masks' backward is checked at
# kernel level (test_values_and_gradients_match_dense_float64, vmapped: test_vmap_over_cotangents_...)
# and the decoder passes one FusedSpec to both. The full Jacobians of all three: the slow test below.


def _decoder_and_inputs(extra):
    cfg = DecoderConfig(depth=2, width=16, **extra)
    rng = np.random.default_rng(1)
    x, w = (jnp.asarray(rng.standard_normal((2, 11, 16)), jnp.float32) for _ in range(2))
    return Decoder(cfg, rngs=nnx.Rngs(3)), x, w


def _compare_grads(got, want):
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        np.testing.assert_allclose(a, b, rtol=0, atol=2e-5 * max(1.0, float(jnp.max(jnp.abs(b)))))


@pytest.mark.extended  # 6 s; the kernel's forward and its rule stay in the default run
def test_decoder_fused_gradients_equal_blocked():
    """Causal decoder (RoPE, GQA, biases, SwiGLU): outputs, d<w, y>/d(params, x), and d<w, y>/dx with
    the probabilities frozen (value pathway)."""
    model, x, w = _decoder_and_inputs(DECODERS[0])

    def grads(model, attn_impl):
        graphdef, state = nnx.split(model)
        run = Execution(attn_impl=attn_impl)
        fn = lambda s, x, f=False: nnx.merge(graphdef, s)(x, freeze_probs=f, execution=run)  # noqa: E731
        return dict(y=fn(state, x), total=jax.grad(lambda s, x: jnp.sum(w * fn(s, x)), argnums=(0, 1))(state, x),
                    value=jax.grad(lambda x: jnp.sum(w * fn(state, x, True)))(x))

    got = jax.jit(grads, static_argnums=1)(model, "fused_cpu")
    want = jax.jit(grads, static_argnums=1)(model, "blocked")
    np.testing.assert_allclose(got["y"], want["y"], rtol=0, atol=2e-5)
    _compare_grads(got["total"], want["total"])
    _compare_grads(got["value"], want["value"])
    assert not np.allclose(got["value"], got["total"][1])  # the score pathway is really cut


@pytest.mark.slow
@pytest.mark.parametrize("extra", DECODERS, ids=[d["mask"] for d in DECODERS])
def test_decoder_fused_equals_blocked(extra):
    """Outputs, the input Jacobian (total and value pathway, through vmap) and parameter gradients."""
    model, x, w = _decoder_and_inputs(extra)

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
    _compare_grads(got["grads"], want["grads"])


SLOW_DECODERS = ("sliding_window", "prefix_lm")


@pytest.mark.parametrize("extra", [d for d in DECODERS if d["mask"] in SLOW_DECODERS],
                         ids=list(SLOW_DECODERS))
def test_decoder_fused_outputs_equal_blocked(extra):
    """Outputs of the decoders whose full comparison is slow: each mask's FusedSpec reaches the kernel."""
    model, x, _ = _decoder_and_inputs(extra)
    graphdef, state = nnx.split(model)
    run = jax.jit(lambda s, x, impl: nnx.merge(graphdef, s)(x, execution=Execution(attn_impl=impl)),
                  static_argnums=2)
    np.testing.assert_allclose(run(state, x, "fused_cpu"), run(state, x, "blocked"), rtol=0, atol=2e-5)


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
