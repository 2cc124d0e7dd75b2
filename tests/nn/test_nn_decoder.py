"""Decoder behaviour: shapes, batching, remat, intermediates, frozen probabilities,
execution and capture arguments, LM head, initialization, ensembles."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import (Capture, Decoder, DecoderConfig, Execution, Intermediates, apply_fn,
                            forward_with_intermediates, init_ensemble, preset)

L = 6


def toy(**kw):
    return preset("toy", param_dtype="float64", **kw)


def inputs(cfg, *lead, seed=1):
    return jax.random.normal(jax.random.key(seed), (*lead, L, cfg.width), jnp.float64)


def test_shapes_and_batching():
    cfg = toy()
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    x = inputs(cfg, 3)
    y = model(x)
    assert y.shape == x.shape and y.dtype == jnp.float64
    _, state, fn = apply_fn(model)
    one = jax.jit(fn)  # one compile for the three rows (op by op, each primitive compiles apart)
    for b in range(3):
        np.testing.assert_allclose(y[b], one(state, x[b]), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="shape"):
        model(jnp.ones((L, cfg.width + 1)))


@pytest.mark.extended  # compiles the decoder twice with gradients
def test_remat_matches_no_remat_values_and_gradients():
    x = inputs(toy())
    outs = []
    _, state, fn = apply_fn(Decoder(toy(), rngs=nnx.Rngs(0)))
    for remat in (True, False):
        loss = lambda s, x: jnp.sum(fn(s, x, execution=Execution(remat=remat))[-1] ** 2)  # noqa: E731
        outs.append(jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))(state, x))
    for a, b in zip(jax.tree.leaves(outs[0]), jax.tree.leaves(outs[1])):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_stacked_params_have_layer_axis():
    cfg = toy(depth=3)
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    assert model.blocks.attn.q.kernel[...].shape == (3, cfg.width, cfg.heads * cfg.resolved_head_dim)
    assert model.blocks.attn.k.kernel[...].shape == (3, cfg.width, 2 * cfg.resolved_head_dim)
    q = np.asarray(model.blocks.attn.q.kernel[...])
    assert not np.allclose(q[0], q[1])  # layers initialized with different keys


def test_intermediates_shapes_values_and_jit():
    cfg = toy(depth=3, attention="softmax")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    x = inputs(cfg)
    y, inter = forward_with_intermediates(model, x, capture=Capture(probs=True))
    assert isinstance(inter, Intermediates)
    np.testing.assert_allclose(y, model(x), rtol=1e-12)
    assert inter.attn_probs.shape == (3, cfg.heads, L, L)
    for k in ("resid_norm", "attn_out_norm", "mlp_out_norm"):
        assert getattr(inter, k).shape == (3, L)
    np.testing.assert_allclose(inter.resid_norm[0], jnp.linalg.norm(x, axis=-1), rtol=1e-12)
    np.testing.assert_array_equal(inter.layer(1).attn_out_norm, inter.attn_out_norm[1])
    probs = np.asarray(inter.attn_probs)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-12)
    assert np.all(probs[..., np.triu_indices(L, 1)[0], np.triu_indices(L, 1)[1]] == 0)
    # the same through the functional view, under jit (Intermediates is a pytree), batched
    _, state, fn = apply_fn(model, with_intermediates=True)
    y2, inter2 = jax.jit(functools.partial(fn, capture=Capture(probs=True)))(state, x[None])
    np.testing.assert_allclose(y2[0], y, rtol=1e-12)
    np.testing.assert_allclose(inter2.attn_probs[:, 0], inter.attn_probs, rtol=1e-12)
    _, inter3 = jax.jit(fn)(state, x)  # default Capture(): norms only
    assert inter3.attn_probs is None and set(inter3.as_dict()) == {"resid_norm", "attn_out_norm", "mlp_out_norm"}
    np.testing.assert_allclose(inter3.resid_norm, inter.resid_norm, rtol=1e-12)
    _, probs_only = forward_with_intermediates(model, x, capture=Capture(norms=False, probs=True))
    assert set(probs_only.as_dict()) == {"attn_probs"}
    assert not hasattr(model, "attn_probs") and not hasattr(model, "resid_norm")  # nothing left on the module


def test_intermediates_residual_norm_chain():
    """Without MLP/norm, layer l+1's input is (1-a) x + a Attn(x) of layer l."""
    cfg = DecoderConfig(depth=2, width=8, heads=2, mlp="none", norm="none", attn_mix=0.3,
                        param_dtype="float64")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    x = jax.random.normal(jax.random.key(0), (L, 8), jnp.float64)
    y, inter = model.forward_with_intermediates(x)
    assert inter.mlp_out_norm is None
    np.testing.assert_allclose(inter.resid_norm[0], np.linalg.norm(x, axis=-1), rtol=1e-12)
    # y = (1-a) h1 + a attn(h1): its norm is bounded by the triangle inequality
    bound = 0.7 * inter.resid_norm[1] + 0.3 * inter.attn_out_norm[1]
    assert np.all(np.linalg.norm(y, axis=-1) <= bound + 1e-12)


def test_execution_and_capture_arguments_are_checked():
    cfg = toy()
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    x = inputs(cfg)
    with pytest.raises(ValueError, match="execution must be an nn.Execution"):
        model(x, execution={"remat": False})
    with pytest.raises(ValueError, match="capture must be an nn.Capture"):
        model.forward_with_intermediates(x, capture="probs")
    with pytest.raises(ValueError, match="freeze_probs must be True or False"):
        model(x, freeze_probs="False")
    with pytest.raises(ValueError, match="attn_impl='fused_cpu'"):  # float64 compute: the kernel is float32
        model(x, execution=Execution(attn_impl="fused_cpu"))
    for kwargs, name in [(dict(remat="False"), "remat"), (dict(attn_block=0), "attn_block"),
                         (dict(keep_probs=1), "keep_probs"), (dict(unroll_layers=None), "unroll_layers"),
                         (dict(attn_impl="cuda"), "attn_impl")]:
        with pytest.raises(ValueError, match=name):
            Execution(**kwargs)
    with pytest.raises(ValueError, match="probs"):
        Capture(probs="yes")
    assert Execution() == Execution(remat=True, attn_block=None, keep_probs=False, unroll_layers=False,
                                    attn_impl="blocked")  # today's defaults


def test_freeze_probs_is_value_pathway():
    """One softmax layer, no norm/MLP: with frozen probabilities the Jacobian is
    d y_i / d x_j = delta_ij I + sum_h P^h_ij (W_v^h W_o^h)^T exactly."""
    cfg = DecoderConfig(depth=1, width=8, heads=2, mlp="none", norm="none", init_std=0.5,
                        param_dtype="float64")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    x = jax.random.normal(jax.random.key(0), (L, 8), jnp.float64)
    _, state, fn = apply_fn(model)
    frozen = jax.jit(jax.jacrev(functools.partial(fn, freeze_probs=True), argnums=1))(state, x)
    full = jax.jit(jax.jacrev(fn, argnums=1))(state, x)
    probs = np.asarray(model.forward_with_intermediates(x, capture=Capture(probs=True))[1].attn_probs[0])  # [N, L, L]
    v = np.asarray(model.blocks.attn.v.kernel[...][0])  # [D, N K]
    o = np.asarray(model.blocks.attn.o.kernel[...][0])  # [N K, D]
    k = cfg.resolved_head_dim
    expected = np.einsum("ij,de->idje", np.eye(L), np.eye(8))
    for h in range(cfg.heads):
        w_vo = v[:, h * k:(h + 1) * k] @ o[h * k:(h + 1) * k]  # [D_in, D_out]
        expected = expected + np.einsum("ij,ed->idje", probs[h], w_vo)
    np.testing.assert_allclose(frozen, expected, atol=1e-12)
    assert np.abs(np.asarray(full) - expected).max() > 1e-3  # the score pathway is not zero


def test_freeze_is_a_no_op_for_uniform_attention():
    cfg = toy(attention="uniform")
    _, state, fn = apply_fn(Decoder(cfg, rngs=nnx.Rngs(0)))
    x = inputs(cfg)
    jac = jax.jit(jax.jacrev(fn, argnums=1))
    jac_frozen = jax.jit(jax.jacrev(functools.partial(fn, freeze_probs=True), argnums=1))
    np.testing.assert_allclose(jac(state, x), jac_frozen(state, x), rtol=1e-12, atol=1e-14)


def test_lm_head_tied_and_untied():
    cfg = toy()
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    tokens = jnp.arange(L) % cfg.vocab_size
    h = model(model.embed(tokens))
    np.testing.assert_allclose(model.lm(tokens), h @ model.wte[...].T, rtol=1e-12)
    assert model.lm(tokens[None]).shape == (1, L, cfg.vocab_size)
    untied = Decoder(toy(tie_embeddings=False), rngs=nnx.Rngs(0))
    assert untied.lm_head is not None and untied.lm(tokens).shape == (L, cfg.vocab_size)
    bare = Decoder(toy(vocab_size=None), rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="vocab_size"):
        bare.embed(tokens)


def _std(p):
    return float(np.std(np.asarray(p[...])))


@pytest.mark.parametrize("scheme", ["gpt2", "normal"])
def test_initialization_scheme_and_float32_default(scheme):
    cfg = preset("toy", depth=8, qkv_bias=True, out_bias=True, mlp_bias=True, init=scheme,
                 init_std=0.02, norm="layernorm", position="learned", max_positions=128)
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    assert all(p.dtype == jnp.float32 for p in jax.tree.leaves(nnx.state(model, nnx.Param)))
    out_std = 0.02 / 4 if scheme == "gpt2" else 0.02  # 1 / sqrt(2 * 8) = 1/4
    for p in (model.blocks.attn.q.kernel, model.blocks.mlp.up.kernel, model.wte, model.wpe):
        assert abs(_std(p) - 0.02) < 0.05 * 0.02
    for p in (model.blocks.attn.o.kernel, model.blocks.mlp.down.kernel):
        assert abs(_std(p) - out_std) < 0.05 * out_std
    for p in (model.blocks.attn.q.bias, model.blocks.attn.o.bias, model.blocks.mlp.down.bias):
        assert np.all(np.asarray(p[...]) == 0)
    assert np.all(np.asarray(model.blocks.norm1.scale[...]) == 1)
    assert np.all(np.asarray(model.blocks.norm1.bias[...]) == 0)
    if scheme == "normal":  # float32 parameters give float32 outputs, even for float64 inputs
        assert model(jnp.ones((L, cfg.width), jnp.float64)).dtype == jnp.float32


@pytest.mark.extended  # a vmapped ensemble compile
def test_ensemble_over_init_keys():
    cfg = toy()  # the file's model: single inits and the jitted forward shared with the other tests
    keys = jax.random.split(jax.random.key(7), 3)
    ens = init_ensemble(cfg, keys)
    q = ens.blocks.attn.q.kernel[...]
    assert q.shape == (3, cfg.depth, cfg.width, cfg.heads * cfg.resolved_head_dim)
    assert not np.allclose(q[0], q[1])
    _, state, fn = apply_fn(ens)
    x = inputs(cfg)
    ys = jax.jit(jax.vmap(fn, in_axes=(0, None)))(state, x)
    one = None
    for e in range(3):
        single = Decoder(cfg, rngs=nnx.Rngs(keys[e]))
        np.testing.assert_allclose(single.blocks.attn.q.kernel[...], q[e], rtol=1e-12)
        _, single_state, single_fn = apply_fn(single)
        one = one or jax.jit(single_fn)  # the same graph for the three models: one compile
        np.testing.assert_allclose(ys[e], one(single_state, x), rtol=1e-10, atol=1e-12)


def test_depth_zero_is_final_norm_only():
    cfg = DecoderConfig(depth=0, width=8, heads=2, norm="none", param_dtype="float64")
    x = jax.random.normal(jax.random.key(0), (L, 8), jnp.float64)
    np.testing.assert_array_equal(Decoder(cfg, rngs=nnx.Rngs(0))(x), x)
