"""Softmax attention computed in query blocks, with a hand-written backward pass.

Shapes: B batch, L positions, G key/value heads, R query heads per group
(N = G R), Dh head dim, T query block, [k0, k1) the keys a block can see.

For query block [q0, q1) (rows (r, i) of group g stacked as R T rows), with
the queries pre-scaled, Qs = Q / sqrt(Dh):

    S = Qs_blk K[k0:k1]^T + bias,   m = rowmax(S),   E = exp(S - m)
    O_blk = (E V[k0:k1]) / rowsum(E),   lse = m + log rowsum(E)

Blocks skip the keys no query in them may see (``MaskSpec.key_range``): under a
causal mask the work is ~(1 + 1/nb) / 2 of the dense L x L computation (nb
blocks). A mask fixed at trace time (no segment ids, no ALiBi) enters as a
numpy constant bias. Qs, K, V, O and the row log-sum-exps (or, with
``keep_probs``, P) are kept for the backward pass, which recomputes
P = exp(S - lse) and uses the identity sum_j P_ij dP_ij = dO_i . O_i (both as
in FlashAttention, Dao et al. 2022):

    dP = dO V^T,   dS' = P (dP - rowsum(dO O))
    dQ = dS' K / sqrt(Dh),    dK = dS'^T Qs,     dV = P^T dO

With ``freeze_probs`` the probabilities are constants (value pathway): dQ = dK = 0.
Scores, probabilities and the backward run in >= float32.

A batch of C cotangents of the same forward (jax.vmap of the VJP, as in
jacrev and the Jacobian engine) runs as one backward (jax.custom_batching):
P is formed once, the C cotangents sit beside the query rows, and dK, dV are
accumulated transposed, so no [C, R T, Lk] array is ever transposed (XLA
otherwise copied dS' transposed for dK: a third of the engine's time).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from ..masks.spec import MaskSpec
from .masks import allowed_block, static_allowed_block
from .positions import alibi_bias

MIN_BLOCK = 64
MAX_BLOCKS = 8


def auto_block(length: int) -> int:
    """Query block T: a multiple of 64 giving at most 8 blocks (T = L when L <= 64)."""
    return max(MIN_BLOCK, MIN_BLOCK * math.ceil(length / (MAX_BLOCKS * MIN_BLOCK)))


@dataclasses.dataclass(frozen=True)
class CoreSpec:
    """Static description of the attention pattern (hashable: a jit/custom_vjp constant).

    Attributes:
      mask: the mask topology.
      alibi: add the ALiBi score bias (position "alibi").
      block: query block T >= 1.
      freeze_probs: hold the probabilities fixed in the backward pass.
      keep_probs: keep P for the backward pass (O(N L^2) memory) instead of
        recomputing it from the row log-sum-exps (O(N L)); faster when one
        forward serves many backward passes (Jacobians), slower for training.
      alibi_rule: ALiBi slope rule ("alibi" or "geometric", nn.alibi_slopes).
    """

    mask: MaskSpec
    alibi: bool
    block: int
    freeze_probs: bool = False
    keep_probs: bool = False
    alibi_rule: str = "alibi"

    def blocks(self, length: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """((q0, q1), (k0, k1)) for every query block."""
        out = []
        for q0 in range(0, length, self.block):
            q = (q0, min(q0 + self.block, length))
            out.append((q, self.mask.key_range(q, length)))
        return out


def blocked_attention(q, k, v, positions, segment_ids, spec: CoreSpec):
    """Softmax attention output.

    Args:
      q: [B, L, G, R, Dh] queries (RoPE already applied).
      k, v: [B, L, G, Dh] keys and values.
      positions: [B, L] positions (ALiBi).
      segment_ids: [B, L] segment ids, or None.
      spec: CoreSpec.

    Returns:
      [B, L, G, R, Dh] in q's dtype.
    """
    return _attend(q, k, v, positions, segment_ids, spec)


def _heads_major(x):  # [B, L, G, ...] -> [B, G, L, ...]
    return jnp.moveaxis(x, 1, 2)


def _rows(x, q0, q1):
    """[B, G, R, L, Dh] -> rows of block [q0, q1) as [B, G, R T, Dh]."""
    b, g, r, _, kd = x.shape
    return x[:, :, :, q0:q1].reshape(b, g, r * (q1 - q0), kd)


def _block_bias(spec, g, r, positions, segment_ids, qr, kr, sdt):
    """Additive score bias of one block (0 allowed, -inf not; plus ALiBi),
    broadcastable to [B, G, R T, Lk].

    Without segment ids or ALiBi the mask is fixed at trace time: zeros over
    the leading keys every query of the block sees, then a numpy constant
    [R T, Lk - open] (the T-row mask tiled over the R heads), which XLA fuses
    as a plain add (a mask built from iota inside the fusion is ~2x slower).
    Under a causal mask the constant is [R T, T], not [R T, q1]: the program's
    constants, and the memory XLA takes to compile them, grow as L T, not L^2
    (toy, L = 4096: 0.73 GB resident to compile the Jacobian engine, was 1.61).
    """
    (q0, q1), (k0, k1) = qr, kr
    if segment_ids is None and not spec.alibi:
        allowed = static_allowed_block(spec.mask, qr, kr)  # [T, Lk]
        seen_by_all = allowed.all(axis=0)
        open_keys = seen_by_all.size if seen_by_all.all() else int(np.argmin(seen_by_all))
        tail = jnp.asarray(np.tile(np.where(allowed[:, open_keys:], 0.0, -np.inf), (r, 1)), sdt)
        if open_keys == 0:
            return tail
        return jnp.concatenate([jnp.zeros((r * (q1 - q0), open_keys), sdt), tail], axis=-1)
    allowed = allowed_block(spec.mask, qr, kr, segment_ids)[:, None, None]  # [B|1, 1, 1, T, Lk]
    bias = jnp.where(allowed, 0.0, -jnp.inf).astype(sdt)
    if spec.alibi:
        alibi = alibi_bias(g * r, positions[:, q0:q1], sdt, positions[:, k0:k1], rule=spec.alibi_rule)
        bias = bias + alibi.reshape(-1, g, r, q1 - q0, k1 - k0)
    bias = jnp.broadcast_to(bias, (*bias.shape[:2], r, q1 - q0, k1 - k0))
    return bias.reshape(*bias.shape[:2], r * (q1 - q0), k1 - k0)


def _block_scores(spec, q_rows, kh, positions, segment_ids, qr, kr):
    """S = Qs_blk K[k0:k1]^T + bias: [B, G, R T, k1 - k0] (-inf where not allowed)."""
    k0, k1 = kr
    g, r = q_rows.shape[1], q_rows.shape[2] // (qr[1] - qr[0])
    scores = jnp.einsum("bgqk,bgmk->bgqm", q_rows, kh[:, :, k0:k1], precision="highest")
    return scores + _block_bias(spec, g, r, positions, segment_ids, qr, kr, q_rows.dtype)


def _scaled_queries(q, sdt):
    """[B, L, G, R, Dh] -> [B, G, R, L, Dh] in >= float32, times 1 / sqrt(Dh)."""
    return jnp.moveaxis(q, 1, 3).astype(sdt) / jnp.sqrt(jnp.asarray(q.shape[-1], sdt))


def _forward(q, k, v, positions, segment_ids, spec):
    """Output and residuals (scaled q, k, v heads-major, output, per block
    either P [B, G, R T, Lk] (``keep_probs``) or the log-sum-exp [B, G, R T, 1]).

    Per block: S = Qs K^T + bias, m = rowmax(S), E = exp(S - m), l = rowsum(E),
    O = (E V) / l and lse = m + log l (normalizing the [R T, Dh] output, not E).
    """
    b, length, g, r, kd = q.shape
    sdt = jnp.promote_types(q.dtype, jnp.float32)
    qs = _scaled_queries(q, sdt)  # [B, G, R, L, Dh]
    kh, vh = _heads_major(k).astype(sdt), _heads_major(v).astype(sdt)  # [B, G, L, Dh]
    outs, saved = [], []
    for qr, (k0, k1) in spec.blocks(length):
        scores = _block_scores(spec, _rows(qs, *qr), kh, positions, segment_ids, qr, (k0, k1))
        m = jnp.max(scores, axis=-1, keepdims=True)  # finite: the diagonal is allowed
        e = jnp.exp(scores - m)
        l_sum = jnp.sum(e, axis=-1, keepdims=True)
        o = jnp.einsum("bgqm,bgmk->bgqk", e, vh[:, :, k0:k1], precision="highest") / l_sum
        saved.append(e / l_sum if spec.keep_probs else m + jnp.log(l_sum))
        outs.append(o.reshape(b, g, r, qr[1] - qr[0], kd))
    oh = jnp.concatenate(outs, axis=3)  # [B, G, R, L, Dh]
    return jnp.moveaxis(oh, 3, 1).astype(q.dtype), (qs, kh, vh, oh, saved)


@functools.partial(jax.custom_vjp, nondiff_argnums=(5,))
def _attend(q, k, v, positions, segment_ids, spec):
    return _forward(q, k, v, positions, segment_ids, spec)[0]


def _attend_fwd(q, k, v, positions, segment_ids, spec):
    out, res = _forward(q, k, v, positions, segment_ids, spec)
    return out, (res, positions, segment_ids)


def _attend_bwd(spec, saved, d_out):
    return (*_input_grads(spec)(saved, d_out), None, None)


@functools.cache
def _input_grads(spec):
    """(d_q, d_k, d_v) of one output cotangent, whose batching rule (jax.custom_batching)
    runs a batch of cotangents sharing the residuals (the Jacobian engine's vmap) as one
    :func:`_cotangent_grads` call; any other batching falls back to vmapping the single case."""

    def single(saved, d_out):
        return tuple(g[0] for g in _cotangent_grads(spec, saved, d_out[None]))

    @jax.custom_batching.custom_vmap
    def grads(saved, d_out):
        return single(saved, d_out)

    @grads.def_vmap
    def _batched(axis_size, in_batched, saved, d_out):
        saved_batched, d_out_batched = in_batched
        if d_out_batched and not any(jax.tree.leaves(saved_batched)):
            return _cotangent_grads(spec, saved, d_out), (True, True, True)
        axes = jax.tree.map(lambda batched: 0 if batched else None, (saved_batched, d_out_batched))
        return jax.vmap(single, in_axes=axes, axis_size=axis_size)(saved, d_out), (True, True, True)

    return grads


def _cotangent_grads(spec, saved, d_out):
    """(d_q, d_k, d_v) for C output cotangents d_out [C, B, L, G, R, Dh] sharing the residuals.

    Without ``keep_probs`` P = exp(Qs K^T + bias - lse) is recomputed once from the saved
    log-sum-exp. With scaled queries Qs = Q / sqrt(Dh), per block and cotangent:
        dV^T += dO^T P,   dP = dO V^T,   dS' = P (dP - rowsum(dO O)),
        dQ = dS' K / sqrt(Dh),   dK^T += Qs^T dS'.
    Every product contracts the L^2-sized operand (P, dS') over its leading axis or
    its last, so no [C, R T, Lk] array is ever transposed: dK and dV are accumulated
    transposed ([.., Dh, L], small) and the cotangents C sit beside the query rows.
    Returns [C, ...] arrays shaped like q, k, v.
    """
    (qs, kh, vh, oh, blocks), positions, segment_ids = saved
    q_dtype = d_out.dtype  # the output has the dtype of q (and k, v: the compute dtype)
    b, g, r, length, kd = qs.shape
    c = d_out.shape[0]
    sdt = oh.dtype
    doh = jnp.transpose(d_out, (1, 3, 0, 4, 2, 5)).astype(sdt)  # [B, G, C, R, L, Dh]
    dq, dk_t, dv_t = [], jnp.zeros((b, g, c, kd, length), sdt), jnp.zeros((b, g, c, kd, length), sdt)
    for ((q0, q1), (k0, k1)), saved_block in zip(spec.blocks(length), blocks):
        q_rows = _rows(qs, q0, q1)  # [B, G, R T, Dh]
        do = doh[:, :, :, :, q0:q1].reshape(b, g, c, r * (q1 - q0), kd)  # [B, G, C, R T, Dh]
        if spec.keep_probs:
            p = saved_block
        else:
            p = jnp.exp(_block_scores(spec, q_rows, kh, positions, segment_ids, (q0, q1), (k0, k1)) - saved_block)
        dv_t = dv_t.at[..., k0:k1].add(jnp.einsum("bgcqk,bgqm->bgckm", do, p, precision="highest"))
        if spec.freeze_probs:
            continue
        dp = jnp.einsum("bgcqk,bgmk->bgcqm", do, vh[:, :, k0:k1], precision="highest")
        delta = jnp.sum(do * _rows(oh, q0, q1)[:, :, None], axis=-1, keepdims=True)
        ds = p[:, :, None] * (dp - delta)  # [B, G, C, R T, Lk]
        q_each = jnp.broadcast_to(jnp.swapaxes(q_rows, 2, 3)[:, :, None], (b, g, c, kd, r * (q1 - q0)))
        k_each = jnp.broadcast_to(kh[:, :, None, k0:k1], (b, g, c, k1 - k0, kd))
        dk_t = dk_t.at[..., k0:k1].add(jnp.einsum("bgckq,bgcqm->bgckm", q_each, ds, precision="highest"))
        dq.append(jnp.einsum("bgcqm,bgcmk->bgcqk", ds, k_each,
                             precision="highest").reshape(b, g, c, r, q1 - q0, kd))
    if spec.freeze_probs:
        d_q = jnp.zeros((c, b, length, g, r, kd), q_dtype)
    else:
        d_q = jnp.concatenate(dq, axis=4) / jnp.sqrt(jnp.asarray(kd, sdt))  # [B, G, C, R, L, Dh]
        d_q = jnp.transpose(d_q, (2, 0, 4, 1, 3, 5)).astype(q_dtype)
    d_k, d_v = (jnp.transpose(t, (2, 0, 4, 1, 3)).astype(q_dtype) for t in (dk_t, dv_t))  # [C, B, L, G, Dh]
    return d_q, d_k, d_v


_attend.defvjp(_attend_fwd, _attend_bwd)
