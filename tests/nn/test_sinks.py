"""Attention sinks in the decoder (DecoderConfig.sinks, nn.MaskSpec): the rule is theory.Sinks(count, window),
every attention route agrees on it, and the fused CPU kernel refuses it (no kernel is built here)."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax import theory
from lostmid_jax.nn import (Capture, Decoder, DecoderConfig, Execution, MaskSpec, allowed_mask,
                            forward_with_intermediates)
from lostmid_jax.nn.execution import fused_cpu_problems

D, HEADS = 8, 2
# (L, sinks, window): a window shorter than the sinks, sinks covering the whole sequence, one sink, no sink.
CASES = [(12, 2, 3), (12, 4, 2), (9, 9, 2), (10, 1, 1), (11, 0, 4), (7, 3, 7)]


def _cfg(sinks, window, **kw):
    fields = dict(depth=1, width=D, heads=HEADS, mask="sliding_window", window=window, sinks=sinks, mlp="none",
                  position="none", param_dtype="float64")
    fields.update(kw)
    return DecoderConfig(**fields)


def _x(length, seed=0):
    return jax.random.normal(jax.random.key(seed), (length, D), jnp.float64)


@pytest.mark.parametrize("length, sinks, window", CASES)
def test_mask_is_theory_sinks(length, sinks, window):
    """Row-normalized, the mask nn builds (nn.allowed_mask from MaskSpec) is
    theory.attention_matrix(Sinks(s, w), L), exactly: query i (1-based) sees j <= i with j <= s or j > i - w."""
    allowed = np.asarray(allowed_mask(MaskSpec("sliding_window", window=window, sinks=sinks), length))[0]
    expected = theory.attention_matrix(theory.Sinks(sinks, window), length)
    np.testing.assert_array_equal(allowed / allowed.sum(axis=1, keepdims=True), expected)


def test_uniform_decoder_applies_theory_sinks():
    """The attention a uniform decoder with sinks applies (every head) is the theory's matrix."""
    length, sinks, window = 12, 2, 3
    model = Decoder(_cfg(sinks, window, attention="uniform"), rngs=nnx.Rngs(0))
    _, inter = forward_with_intermediates(model, _x(length), capture=Capture(probs=True))
    expected = theory.attention_matrix(theory.Sinks(sinks, window), length)
    for head in np.asarray(inter.attn_probs[0]):  # [N, L, L]
        np.testing.assert_array_equal(head, expected)


def test_causal_mask_with_sinks_is_causal():
    """Sinks add nothing to a causal mask (theory: Sinks(s) without a window is Causal())."""
    spec, causal = MaskSpec("causal", sinks=3), MaskSpec("causal")
    i, j = np.indices((9, 9))
    assert np.array_equal(spec.allows(i, j), causal.allows(i, j))
    np.testing.assert_array_equal(theory.attention_matrix(theory.Sinks(3), 9),
                                  theory.attention_matrix(theory.Causal(), 9))


def test_step0_jacobian_is_theory_influence_row():
    """The Step-0 bridge under sinks: uniform attention, no norm or MLP, W_v = W_o = I and mixing weight a
    give d y_L / d x_j = w_j I with w = theory.influence_row(L, H, a, prior=Sinks(s, w)) (O(H L))."""
    length, sinks, window, depth, alpha = 12, 2, 3, 3, (1.0, 0.3, 0.7)
    cfg = _cfg(sinks, window, depth=depth, attention="uniform", norm="none", attn_mix=alpha)
    model = Decoder(cfg, rngs=nnx.Rngs(1))
    eye = jnp.broadcast_to(jnp.eye(D), (depth, D, D))
    model.blocks.attn.v.kernel[...] = eye
    model.blocks.attn.o.kernel[...] = eye
    jac = np.asarray(jax.jacrev(lambda x: model(x)[-1])(_x(length)))  # [D, L, D]
    np.testing.assert_allclose(jac, np.einsum("j,de->dje", jac[0, :, 0], np.eye(D)), atol=1e-15)
    row = theory.influence_row(length, depth, list(alpha), prior=theory.Sinks(sinks, window))
    np.testing.assert_allclose(jac[0, :, 0], row, rtol=1e-12, atol=1e-15)


@pytest.mark.extended  # compiles both attention routes with sinks
def test_blocked_softmax_route_equals_dense_route():
    """Softmax attention with sinks: the query-blocked route (key ranges from MaskSpec.key_range, its own
    backward pass) equals the dense route that materializes the probabilities, values and gradients."""
    length, sinks, window = 10, 2, 3
    model = Decoder(_cfg(sinks, window, position="rope", init_std=0.5), rngs=nnx.Rngs(2))
    x, cot = _x(length, seed=3), _x(length, seed=4)
    blocked = Execution(attn_block=4, remat=False)

    def dense(x):
        y, inter = forward_with_intermediates(model, x, capture=Capture(probs=True))
        return jnp.sum(y * cot), inter.attn_probs[0]

    (value, probs), grad = jax.value_and_grad(dense, has_aux=True)(x)
    fast_value, fast_grad = jax.value_and_grad(lambda x: jnp.sum(model(x, execution=blocked) * cot))(x)
    np.testing.assert_allclose(fast_value, value, rtol=1e-13)
    np.testing.assert_allclose(fast_grad, grad, rtol=0, atol=1e-12)
    # the sink keys carry weight for queries far past them (so the agreement checks the sink keys)
    sink_weight = np.asarray(probs)[:, sinks + window:, :sinks].sum(axis=-1)  # [N, queries]
    assert np.all(sink_weight > 1e-4) and sink_weight.mean() > 0.05


def test_key_range_holds_every_allowed_key():
    spec = MaskSpec("sliding_window", window=3, sinks=2)
    i, j = np.indices((20, 20))
    allowed = spec.allows(i, j)
    for q0 in range(0, 20, 4):
        k0, k1 = spec.key_range((q0, q0 + 4), 20)
        rows = allowed[q0:q0 + 4]
        assert not rows[:, :k0].any() and not rows[:, k1:].any()
    assert spec.prefix_length(5) == 6  # still causal: no later key reaches an earlier output


def test_fused_kernel_refuses_sinks_and_auto_falls_back():
    """An explicit attn_impl='fused_cpu' raises naming the sinks; the training "auto" choice takes the
    blocked route for such a model (nn.fused_cpu_problems), before any kernel is built."""
    cfg = _cfg(2, 3, param_dtype="float32")
    assert "sinks=2" in fused_cpu_problems(cfg)
    assert fused_cpu_problems(dataclasses.replace(cfg, sinks=0)) is None
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="sinks=2"):
        model(_x(6).astype(jnp.float32), execution=Execution(attn_impl="fused_cpu"))
    from lostmid_jax.kernels.fused_cpu.ops import FusedSpec  # the spec only: nothing is compiled

    with pytest.raises(ValueError, match="sinks"):
        FusedSpec(MaskSpec("sliding_window", window=3, sinks=2))
    from lostmid_jax.train.config import TrainConfig, resolve_attn_impl

    assert resolve_attn_impl(TrainConfig(model=dataclasses.replace(cfg, vocab_size=64))) == "blocked"


@pytest.mark.parametrize("fields, match", [
    (dict(sinks=-1), "sinks"),
    (dict(sinks=1.5), "sinks"),
    (dict(sinks=True), "sinks"),
    (dict(sinks=2, mask="document", window=None), "sinks must be 0 with mask='document'"),
])
def test_bad_sinks(fields, match):
    with pytest.raises(ValueError, match=match):
        _cfg(**{"sinks": 0, "window": 3, **fields})


def test_sinks_survive_the_config_json_round_trip():
    cfg = _cfg(np.int64(4), 3)
    assert cfg.sinks == 4 and type(cfg.sinks) is int
    assert DecoderConfig.from_dict(dataclasses.asdict(cfg)) == cfg
