"""Blocked attention with its hand-written backward (attention_core) vs the dense route.

The dense route (forward_with_intermediates with Capture(probs=True), which
materializes [B, N, L, L] probabilities and is differentiated by JAX's autodiff) is an independent
computation of the same function; the two must agree in float64 to ~1e-12 for
values, input Jacobians (total and value pathway) and parameter gradients, for
every mask, position encoding, GQA, and query blocks that do not divide L.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Capture, Decoder, DecoderConfig, Execution
from lostmid_jax.nn.attention_core import auto_block

L = 13
SEGMENTS = np.array([0] * 5 + [1] * 4 + [2] * 4)
CASES = [  # blocks of 4 or 5 queries: L = 13 leaves a partial last block (attn_block, keep_probs: Execution)
    dict(mask="causal", position="rope", attn_block=4),
    dict(mask="causal", position="alibi", heads=4, kv_heads=2, attn_block=5),
    dict(mask="bidirectional", position="none", attn_block=5),
    dict(mask="sliding_window", window=3, position="rope", heads=4, kv_heads=1, attn_block=4),
    dict(mask="document", position="alibi", attn_block=4, keep_probs=True),
    dict(mask="prefix_lm", prefix=6, position="none", attn_block=5),
    dict(mask="document", position="rope", heads=4, kv_heads=2, attn_block=5),  # segment ids, GQA, no ALiBi
]
SLOW = ("causal-rope", "bidirectional-none", "prefix_lm-none")  # ~20 s of compiles each
# Parameter gradients (~40% of a case's compile) run by default for one case, the richest (segment ids,
# GQA, RoPE), at depth 2: they go through the same hand-written backward as the input Jacobians that every
# case checks. The default run's cases without them use one layer (the backward of a layer does not depend
# on the depth; two layers chained: GRADS_BY_DEFAULT and every slow case).
GRADS_BY_DEFAULT = "document-rope"
# Cases whose one-layer run (no parameter gradients) is under -m extended (~10 s of compiles each): the
# default run keeps GRADS_BY_DEFAULT, the same hand-written backward.
EXTENDED = ("causal-alibi", "sliding_window-rope", "document-alibi")


def case_id(case):
    return f"{case['mask']}-{case['position']}"


def case_params():
    """(case, with parameter gradients): every case with gradients (slow unless GRADS_BY_DEFAULT), and the
    default run's cases other than GRADS_BY_DEFAULT also without them."""
    out = []
    for c in CASES:
        cid = case_id(c)
        slow = [pytest.mark.slow] if cid in SLOW or cid != GRADS_BY_DEFAULT else []
        out.append(pytest.param(c, True, id=cid, marks=slow))
        if cid not in SLOW and cid != GRADS_BY_DEFAULT:
            out.append(pytest.param(c, False, id=f"{cid}-no-param-grads",
                                    marks=[pytest.mark.extended] if cid in EXTENDED else []))
    return out


def make(case, depth=2):
    """(Decoder, Execution) of a case."""
    case = dict(case)
    execution = Execution(attn_block=case.pop("attn_block", None), keep_probs=case.pop("keep_probs", False))
    cfg = DecoderConfig(depth=depth, width=16, heads=case.pop("heads", 2), param_dtype="float64",
                        qkv_bias=True, **case)
    return Decoder(cfg, rngs=nnx.Rngs(3)), execution


def dense(model, x, seg, freeze_probs=False, execution=None):
    return model.forward_with_intermediates(x, segment_ids=seg, freeze_probs=freeze_probs,
                                            capture=Capture(probs=True), execution=execution)[0]


def blocked(model, x, seg, freeze_probs=False, execution=None):
    return model(x, segment_ids=seg, freeze_probs=freeze_probs, execution=execution)


@pytest.mark.parametrize("case, grads", case_params())
def test_blocked_matches_dense(case, grads):
    model, execution = make(case, depth=2 if grads else 1)
    graphdef, state = nnx.split(model)
    seg = jnp.asarray(SEGMENTS) if case["mask"] == "document" else None
    x = jax.random.normal(jax.random.key(1), (L, 16), jnp.float64)
    w = jax.random.normal(jax.random.key(2), (L, 16), jnp.float64)

    @jax.jit
    def everything(state, x):
        """Outputs, full Jacobians (total, value) and parameter gradients of one route each."""
        out = {}
        for name, route in (("blocked", blocked), ("dense", dense)):
            fn = lambda s, x, f=False: route(nnx.merge(graphdef, s), x, seg, f, execution)  # noqa: E731
            out[name] = dict(y=fn(state, x), jac=jax.jacrev(fn, argnums=1)(state, x),
                             jac_value=jax.jacrev(lambda s, x: fn(s, x, True), argnums=1)(state, x))
            if grads:
                out[name]["grads"] = jax.grad(lambda s: jnp.sum(w * fn(s, x)))(state)
        return out

    out = everything(state, x)
    b, d = out["blocked"], out["dense"]
    np.testing.assert_allclose(b["y"], d["y"], rtol=0, atol=1e-12)
    for key in ("jac", "jac_value"):
        assert np.abs(d[key]).max() > 1e-3
        np.testing.assert_allclose(b[key], d[key], rtol=0, atol=1e-12 * np.abs(d[key]).max())
    assert not np.allclose(b["jac"], b["jac_value"])  # the score pathway is really cut
    if not grads:
        return
    grads_b, grads_d = jax.tree.leaves(b["grads"]), jax.tree.leaves(d["grads"])
    scale = max(np.abs(g).max() for g in grads_d)
    for gb, gd in zip(grads_b, grads_d):  # training goes through the same backward
        np.testing.assert_allclose(gb, gd, rtol=0, atol=1e-12 * scale)


def test_blocked_float32_batched_matches_dense():
    cfg = DecoderConfig(depth=2, width=32, heads=4, kv_heads=2, position="rope")
    graphdef, state = nnx.split(Decoder(cfg, rngs=nnx.Rngs(0)))
    x = jnp.asarray(np.random.default_rng(1).standard_normal((3, 50, 32)), jnp.float32)

    @jax.jit  # one program (op by op, each primitive compiles apart)
    def both(state, x):
        model = nnx.merge(graphdef, state)
        return (model(x, execution=Execution(attn_block=16)),
                model.forward_with_intermediates(x, capture=Capture(probs=True))[0])

    blocked_y, dense_y = both(state, x)
    assert blocked_y.dtype == jnp.float32
    np.testing.assert_allclose(blocked_y, dense_y, rtol=0, atol=2e-6)


def test_block_size_does_not_change_results():
    base, _ = make({**CASES[0], "attn_block": None})
    graphdef, state = nnx.split(base)
    x = jnp.asarray(np.random.default_rng(1).standard_normal((L, 16)))
    run = jax.jit(lambda s, x, block: nnx.merge(graphdef, s)(x, execution=Execution(attn_block=block)),
                  static_argnums=2)
    for block in (1, 7):
        np.testing.assert_allclose(run(state, x, block), run(state, x, None), rtol=0, atol=1e-13)


def test_auto_block():
    assert [auto_block(n) for n in (1, 64, 65, 512, 513, 1024, 2048)] == [64, 64, 64, 64, 128, 128, 256]
    with pytest.raises(ValueError, match="attn_block"):
        Execution(attn_block=0)


def test_trace_time_mask_constants_grow_as_length_times_block():
    """Under a causal mask each query block's bias constant covers only the keys some of its queries may not see
    ([R T, T]; zeros before them), not every key up to the block's end ([R T, q1]): the lowered program's dense
    constants total about (L / T) R T^2 4 bytes, not R L^2 2 (those took 4.8 GB to compile the toy engine at
    L = 8192)."""
    import re

    from lostmid_jax.nn import MaskSpec
    from lostmid_jax.nn.attention_core import CoreSpec, blocked_attention

    length, block, r = 1024, 128, 2
    q = jnp.zeros((1, length, 1, r, 8), jnp.float32)
    k = v = jnp.zeros((1, length, 1, 8), jnp.float32)
    core = CoreSpec(MaskSpec("causal"), alibi=False, block=block)
    text = jax.jit(lambda q, k, v: blocked_attention(q, k, v, jnp.arange(length)[None], None, core)).lower(
        q, k, v).as_text()
    constants = sum(len(h) // 2 for h in re.findall(r'dense<"0x([0-9A-Fa-f]+)">', text))
    diagonal = (length // block) * r * block * block * 4  # 1 MB; the whole causal triangle would be ~4.2 MB
    assert diagonal * 0.9 <= constants <= diagonal * 1.1, constants


@pytest.mark.parametrize("keep_probs, freeze_probs", [(False, False), (True, False), (True, True)])
def test_batched_cotangents_equal_one_vjp_at_a_time(keep_probs, freeze_probs):
    """The backward's batching rule: a vmap over cotangents of one forward (one backward for all, the
    Jacobian engine's route) and a vmap over inputs (the fallback, every residual batched) both equal a
    loop of single VJPs, which equal JAX's autodiff of plain softmax attention (GQA, causal, 2 blocks)."""
    from lostmid_jax.nn import MaskSpec
    from lostmid_jax.nn.attention_core import CoreSpec, blocked_attention

    b, length, g, r, kd, c = 2, 11, 2, 2, 4, 3
    keys = jax.random.split(jax.random.key(5), 5)
    q = jax.random.normal(keys[0], (b, length, g, r, kd), jnp.float64)
    k, v = (jax.random.normal(key, (b, length, g, kd), jnp.float64) for key in keys[1:3])
    cots = jax.random.normal(keys[3], (c, b, length, g, r, kd), jnp.float64)
    core = CoreSpec(MaskSpec("causal"), alibi=False, block=6, freeze_probs=freeze_probs, keep_probs=keep_probs)
    positions = jnp.arange(length)[None]

    def plain(q, k, v):  # softmax over j <= i, probabilities held fixed with freeze_probs
        s = jnp.einsum("blgrk,bmgk->bgrlm", q, k) / np.sqrt(kd)
        p = jax.nn.softmax(jnp.where(np.tri(length, dtype=bool), s, -jnp.inf), axis=-1)
        p = jax.lax.stop_gradient(p) if freeze_probs else p
        return jnp.einsum("bgrlm,bmgk->blgrk", p, v)

    def grads(f, q, k, v, cot):
        return jax.vjp(f, q, k, v)[1](cot)

    blocked = lambda q, k, v: blocked_attention(q, k, v, positions, None, core)  # noqa: E731
    one_forward = jax.jit(lambda cots: jax.vmap(jax.vjp(blocked, q, k, v)[1])(cots))(cots)
    inputs_batched = jax.jit(jax.vmap(lambda q, cot: grads(blocked, q, k, v, cot)))(q + cots, cots)
    for i in range(c):
        want = grads(plain, q, k, v, cots[i])
        single = grads(blocked, q, k, v, cots[i])
        for got_one, got_single, w in zip(one_forward, single, want):
            np.testing.assert_allclose(got_one[i], w, rtol=0, atol=1e-12)
            np.testing.assert_allclose(got_single, w, rtol=0, atol=1e-12)
        for got, w in zip(inputs_batched, grads(plain, q + cots[i], k, v, cots[i])):
            np.testing.assert_allclose(got[i], w, rtol=0, atol=1e-12)
