"""Softmax attention computed in query blocks, with a hand-written backward pass.

Shapes: B batch, L positions, G key/value heads, R query heads per group
(N = G R), K head dim, T query block, [k0, k1) the keys a block can see.

For query block [q0, q1) (rows (r, i) of group g stacked as R T rows):

    S = Q_blk K[k0:k1]^T / sqrt(K) + bias,   P = softmax(S) over allowed keys
    O_blk = P V[k0:k1]

Blocks skip the keys no query in them may see (``masks.key_range``): under a
causal mask the work is ~(1 + 1/nb) / 2 of the dense L x L computation (nb
blocks). Q, K, V, O and the row log-sum-exps (or, with ``keep_probs``, P) are
kept for the backward pass, which recomputes P and uses the identity sum_j P_ij dP_ij = dO_i . O_i
(both as in FlashAttention, Dao et al. 2022):

    dP = dO V^T,   dS = P (dP - rowsum(dO O)) / sqrt(K)
    dQ = dS K,     dK = dS^T Q,     dV = P^T dO

With ``freeze`` the probabilities are constants (value pathway): dQ = dK = 0.
Scores, probabilities and the backward run in >= float32.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp

from .masks import allowed_block, key_range
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
      mask_cfg: the DecoderConfig (uses mask, window, prefix, position).
      block: query block T >= 1.
      freeze: hold the probabilities fixed in the backward pass.
      keep_probs: keep P for the backward pass (O(N L^2) memory) instead of
        recomputing it from the row log-sum-exps (O(N L)); faster when one
        forward serves many backward passes (Jacobians), slower for training.
    """

    mask_cfg: object
    block: int
    freeze: bool = False
    keep_probs: bool = False

    def blocks(self, length: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """((q0, q1), (k0, k1)) for every query block."""
        out = []
        for q0 in range(0, length, self.block):
            q = (q0, min(q0 + self.block, length))
            out.append((q, key_range(self.mask_cfg, q, length)))
        return out


def blocked_attention(q, k, v, positions, segment_ids, spec: CoreSpec):
    """Softmax attention output.

    Args:
      q: [B, L, G, R, K] queries (RoPE already applied).
      k, v: [B, L, G, K] keys and values.
      positions: [B, L] positions (ALiBi).
      segment_ids: [B, L] segment ids, or None.
      spec: CoreSpec.

    Returns:
      [B, L, G, R, K] in q's dtype.
    """
    return _attend(q, k, v, positions, segment_ids, spec)


def _heads_major(x):  # [B, L, G, ...] -> [B, G, L, ...]
    return jnp.moveaxis(x, 1, 2)


def _rows(x, q0, q1):
    """[B, G, R, L, K] -> rows of block [q0, q1) as [B, G, R T, K]."""
    b, g, r, _, kd = x.shape
    return x[:, :, :, q0:q1].reshape(b, g, r * (q1 - q0), kd)


def _block_scores(qh, kh, positions, segment_ids, spec, qr, kr):
    """Masked scores of one block: [B, G, R T, k1 - k0] in >= float32 (-inf where not allowed)."""
    cfg = spec.mask_cfg
    b, g, r, _, kd = qh.shape
    (q0, q1), (k0, k1) = qr, kr
    sdt = jnp.promote_types(qh.dtype, jnp.float32)
    scores = jnp.einsum("bgqk,bgmk->bgqm", _rows(qh, q0, q1), kh[:, :, k0:k1],
                        precision="highest").astype(sdt) / jnp.sqrt(jnp.asarray(kd, sdt))
    scores = scores.reshape(b, g, r, q1 - q0, k1 - k0)
    if cfg.position == "alibi":
        bias = alibi_bias(g * r, positions[:, q0:q1], sdt, positions[:, k0:k1])
        scores = scores + bias.reshape(-1, g, r, q1 - q0, k1 - k0)
    allowed = allowed_block(cfg, qr, kr, segment_ids)[:, None, None]  # [B|1, 1, 1, T, Lk]
    scores = scores + jnp.where(allowed, 0.0, -jnp.inf).astype(sdt)  # small bias, fused into the add
    return scores.reshape(b, g, r * (q1 - q0), k1 - k0)


def _forward(q, k, v, positions, segment_ids, spec):
    """Output and residuals (q, k, v heads-major, output, per block P [B, G, R T, Lk] with
    ``keep_probs``, else the log-sum-exp [B, G, R T, 1])."""
    b, length, g, r, kd = q.shape
    qh = jnp.moveaxis(q, 1, 3)  # [B, G, R, L, K]
    kh, vh = _heads_major(k), _heads_major(v)  # [B, G, L, K]
    outs, saved = [], []
    for qr, kr in spec.blocks(length):
        scores = _block_scores(qh, kh, positions, segment_ids, spec, qr, kr)
        lse = jax.nn.logsumexp(scores, axis=-1, keepdims=True)  # finite: the diagonal is allowed
        p = jnp.exp(scores - lse)
        o = jnp.einsum("bgqm,bgmk->bgqk", p, vh[:, :, kr[0]:kr[1]].astype(p.dtype), precision="highest")
        saved.append(p if spec.keep_probs else lse)
        outs.append(o.reshape(b, g, r, qr[1] - qr[0], kd))
    oh = jnp.concatenate(outs, axis=3)  # [B, G, R, L, K] (>= float32)
    return jnp.moveaxis(oh, 3, 1).astype(q.dtype), (qh, kh, vh, oh, saved)


@functools.partial(jax.custom_vjp, nondiff_argnums=(5,))
def _attend(q, k, v, positions, segment_ids, spec):
    return _forward(q, k, v, positions, segment_ids, spec)[0]


def _attend_fwd(q, k, v, positions, segment_ids, spec):
    out, res = _forward(q, k, v, positions, segment_ids, spec)
    return out, (res, positions, segment_ids)


def _pad_keys(x, k0, k1, length):
    return jnp.pad(x, ((0, 0), (0, 0), (k0, length - k1), (0, 0)))


def _attend_bwd(spec, saved, d_out):
    """Without ``keep_probs`` P = exp(S - lse) is recomputed from the saved log-sum-exp."""
    (qh, kh, vh, oh, blocks), positions, segment_ids = saved
    b, g, r, length, kd = qh.shape
    sdt = oh.dtype
    doh = jnp.moveaxis(d_out, 1, 3).astype(sdt)  # [B, G, R, L, K]
    scale = 1 / jnp.sqrt(jnp.asarray(kd, sdt))
    dq, dk, dv = [], jnp.zeros(kh.shape, sdt), jnp.zeros(vh.shape, sdt)
    for ((q0, q1), (k0, k1)), saved_block in zip(spec.blocks(length), blocks):
        if spec.keep_probs:
            p = saved_block
        else:
            p = jnp.exp(_block_scores(qh, kh, positions, segment_ids, spec, (q0, q1), (k0, k1)) - saved_block)
        do = _rows(doh, q0, q1)  # [B, G, R T, K]
        dv = dv + _pad_keys(jnp.einsum("bgqm,bgqk->bgmk", p, do, precision="highest"), k0, k1, length)
        if spec.freeze:
            continue
        dp = jnp.einsum("bgqk,bgmk->bgqm", do, vh[:, :, k0:k1].astype(sdt), precision="highest")
        delta = jnp.sum(do * _rows(oh, q0, q1), axis=-1, keepdims=True)
        ds = p * (dp - delta) * scale
        dq.append(jnp.einsum("bgqm,bgmk->bgqk", ds, kh[:, :, k0:k1].astype(sdt),
                             precision="highest").reshape(b, g, r, q1 - q0, kd))
        dk = dk + _pad_keys(jnp.einsum("bgqm,bgqk->bgmk", ds, _rows(qh, q0, q1).astype(sdt),
                                       precision="highest"), k0, k1, length)
    if spec.freeze:
        d_q = jnp.zeros(qh.shape, qh.dtype)
    else:
        d_q = jnp.concatenate(dq, axis=3)
    d_q = jnp.moveaxis(d_q, 3, 1).astype(qh.dtype)
    d_k = _heads_major(dk).astype(kh.dtype)
    d_v = _heads_major(dv).astype(vh.dtype)
    return d_q, d_k, d_v, None, None


_attend.defvjp(_attend_fwd, _attend_bwd)
