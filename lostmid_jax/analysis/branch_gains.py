"""Per-layer gain of the attention branch relative to the identity path, from a few random probes.

Shapes: L positions (1-based i, j), D width, H depth, K probes.

A pre-norm block adds Attn(norm1(h)) to the residual stream h, whose identity
path has Jacobian I (||I||_F^2 = D). Under uniform Step-0 attention the branch
Jacobian is d out_i / d h_j = (1/i) G_l(j) for j <= i, so the per-key branch
gain relative to the identity is

    g_l^2 = (1/D) mean_j ||G_l(j)||_F^2 = (i / D) sum_{j <= i} ||d out_i / d h_j||_F^2,

evaluated on the layer's own input h (the residual stream the model produces
from x) and averaged over the query positions i = 1..L. One reverse pass per
probe gives the whole sum: with a cotangent c [L, D] whose row i is
sqrt(i) z_i, z_i ~ N(0, I_D) independent,

    E || c^T d out / d h ||^2 = sum_i i sum_j ||d out_i / d h_j||_F^2 = D L mean_i g_l^2(i),

so g_l^2 = mean_k ||c_k^T d out / d h||^2 / (D L), unbiased for any K >= 1.

Per key (:func:`key_gains`): with row i of c scaled by i instead,
E ||(c^T d out / d h)_j||^2 = sum_{i >= j} i^2 ||d out_i / d h_j||_F^2
= (L - j + 1) ||G_l(j)||_F^2, so g_l^2(j) = ||G_l(j)||_F^2 / D is that over
D (L - j + 1). The first keys' residual streams grow fastest (their attention
outputs average the fewest values), so their norm Jacobians, and gains, are
the smallest.
The value pathway of the branch is used (attention probabilities held fixed,
``freeze_probs``): d out_i / d h_j = P_ij G_l(j). The score pathway is left
out: its term at j = i (the query's own derivative, a key-value covariance
over the i visible keys) does not shrink like 1/i, and the weights i and i^2
above would inflate it, most at the last keys, where few queries see a key.

Position-wise part (:func:`mlp_gains`): the block then adds MLP(norm2(h'))
to h' = h + Attn(norm1(h)), a map that acts on each position alone, with
Jacobian I + K_{l,i} at position i. One reverse pass with c ~ N(0, I) [L, D]
gives every position at once, E ||(c^T d MLP / d h')_i||^2 = ||K_{l,i}||_F^2,
so k_{l,i}^2 = ||K_{l,i}||_F^2 / D is that over D, on the layer's own h'
(``theory.variants.positionwise_row`` takes these gains).

Position-wise Gram (:func:`mlp_gram`): the MLP shares W_1, W_2 across
positions, so K_{l,i} and K_{l,i'} are correlated (their gates phi'(z_i),
phi'(z_i') overlap). One probe u ~ N(0, I_D) broadcast to every position,
c = 1 u^T [L, D], gives v_i = (c^T d MLP / d h')_i = K_{l,i}^T u and

    E v_i . v_i' = tr(K_{l,i} K_{l,i'}^T) = tr(K_{l,i}^T K_{l,i'}),

so kappa_l[i, i'] = E tr(K_{l,i}^T K_{l,i'}) / D = mean_k V_k V_k^T / D [L, L]
(V_k [L, D] the probe's rows); its diagonal is k_{l,i}^2. H L^2 floats are
returned, refused past :data:`GRAM_LIMIT` entries.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from ..nn import Execution
from ..validation import check_int
from . import _validate

_EXECUTION = Execution(remat=False)
GRAM_LIMIT = 2**26  # H L^2 entries of mlp_gram (512 MB as float64); e.g. L = 1024 at H = 64, L = 2048 at H = 16


def _check_model(model):
    cfg = _validate.check_model(model).cfg
    if not cfg.pre_norm or not cfg.residual or cfg.layer_mix() is not None:
        raise ValueError("model must be a pre-norm residual stack without attn_mix (the branch gain is defined "
                         f"relative to an identity path); got pre_norm={cfg.pre_norm}, residual={cfg.residual}, "
                         f"attn_mix={cfg.attn_mix!r}")
    return cfg


@functools.partial(jax.jit, static_argnames=("graphdef", "probes", "part"))
def _sq_norms(graphdef, params, h, positions, key, *, probes: int, part: str = "attn"):
    """(h after the last block [1, L, D], per-probe estimates) for each layer l:
    part "attn": [H, K] ||c_k^T d out^l / d h^l||^2 / (D L);
    "key": [H, K, L] ||(c_k^T d out^l / d h^l)_j||^2 / (D (L - j + 1)), rows of c scaled by i;
    "mlp": [H, K, L] ||(c_k^T d MLP / d h')_i||^2 / D at the mid-block stream h';
    "gram": [H, L, L] mean_k V_k V_k^T / D, V_k = c_k^T d MLP / d h' with c_k = 1 u_k^T (one u_k ~ N(0, I_D)
    at every position), symmetrized."""
    length, width = h.shape[1], h.shape[2]
    i = jnp.arange(1, length + 1, dtype=jnp.float32)
    scale = {"attn": jnp.sqrt(i), "key": i, "mlp": jnp.ones_like(i), "gram": jnp.ones_like(i)}[part][None, :, None]

    def body(carry, layer):
        layer_params, k = layer
        block = nnx.merge(graphdef, layer_params)

        def branch(hh):
            return block.attn(block.norm1(hh), positions=positions, freeze_probs=True, need_probs=False,
                              execution=_EXECUTION)[0]

        if part in ("mlp", "gram"):  # the position-wise part on h' = h + Attn(norm1(h))
            out, vjp = jax.vjp(lambda hh: block.mlp(block.norm2(hh)), carry + branch(carry))
        else:
            out, vjp = jax.vjp(branch, carry)
        if part == "gram":  # one probe vector shared by every position
            z = jnp.broadcast_to(jax.random.normal(k, (probes, 1, 1, width), jnp.float32), (probes, *out.shape))
        else:
            z = jax.random.normal(k, (probes, *out.shape), jnp.float32) * scale

        def one(c):
            g = vjp(c.astype(out.dtype))[0].astype(jnp.float32)[0]  # [L, D]
            if part == "gram":
                return g @ g.T
            return jnp.sum(g * g) if part == "attn" else jnp.sum(g * g, axis=-1)

        if part == "gram":  # accumulate over probes: [L, L], not [K, L, L]
            s = jax.lax.fori_loop(0, probes, lambda p, acc: acc + one(z[p]), jnp.zeros((length, length)))
            s = 0.5 * (s + s.T) / probes
        else:
            s = jax.lax.map(one, z)
        nxt = block(carry, mix=None, positions=positions, execution=_EXECUTION)[0]
        return nxt, s

    depth = jax.tree.leaves(params)[0].shape[0]
    h_out, s = jax.lax.scan(body, h, (params, jax.random.split(key, depth)))
    norm = {"attn": width * length, "key": width * (length - jnp.arange(length)), "mlp": width, "gram": width}[part]
    return h_out, s / norm


def _run(model, x, probes: int, key, part: str = "attn"):
    """(h after the last block [1, L, D], [H, K] per-probe estimates): the layer walk (also used by the tests)."""
    cfg = _check_model(model)
    probes = check_int("probes", probes, 1)
    x = jnp.asarray(_validate.check_input(x, cfg.width, finite=True), cfg.compute_dtype)
    key = jax.random.key(key) if isinstance(key, (int, np.integer)) else key
    length = x.shape[0]
    h = x[None]
    if model.wpe is not None:
        if length > cfg.max_positions:
            raise ValueError(f"x has {length} positions; the model's learned table holds {cfg.max_positions}")
        h = h + model.wpe[...][:length].astype(h.dtype)
    positions = jnp.arange(length, dtype=jnp.int32)[None]
    graphdef, params = nnx.split(model.blocks)
    return _sq_norms(graphdef, params, h, positions, key, probes=probes, part=part)


def branch_gains(model, x, *, probes: int = 4, key=0) -> np.ndarray:
    """g_l^2 of every layer (module docstring): [H] float64 >= 0.

    Args:
      model: a pre-norm residual nn.Decoder without attn_mix.
      x: [L, D] input embeddings (learned position embeddings are added as the model does).
      probes: K >= 1 random cotangents per layer.
      key: jax.random key or int seed.

    Raises:
      ValueError: naming ``model`` (not pre-norm residual, or attn_mix set), ``x`` or ``probes``.
    """
    return np.asarray(_run(model, x, probes, key)[1], np.float64).mean(axis=1)


def key_gains(model, x, *, probes: int = 4, key=0) -> np.ndarray:
    """g_l^2(j) of every layer and key position (module docstring): [H, L] float64 >= 0.

    Same arguments and errors as :func:`branch_gains`. The last keys are seen by few queries, so
    their estimates are the noisiest (key L: one query).
    """
    return np.asarray(_run(model, x, probes, key, part="key")[1], np.float64).mean(axis=1)


def mlp_gains(model, x, *, probes: int = 4, key=0) -> np.ndarray:
    """k_{l,i}^2 = ||K_{l,i}||_F^2 / D of every layer and position (module docstring): [H, L] float64 >= 0.

    Same arguments and errors as :func:`branch_gains`; the position-wise part is MLP(norm2(.)) on the
    mid-block stream, so a model without MLPs (``mlp="none"``) has k = 0 everywhere.
    """
    cfg = _check_model(model)
    if cfg.mlp == "none":
        length = _validate.check_input(x, cfg.width, finite=True).shape[0]
        probes = check_int("probes", probes, 1)
        return np.zeros((cfg.depth, length))
    return np.asarray(_run(model, x, probes, key, part="mlp")[1], np.float64).mean(axis=1)


def mlp_gram(model, x, *, probes: int = 4, key=0) -> np.ndarray:
    """kappa_l[i, i'] = tr(K_{l,i}^T K_{l,i'}) / D of every layer (module docstring): [H, L, L] float64.

    Symmetric per layer; the diagonal estimates :func:`mlp_gains` (other probes, same expectation).
    Same arguments as :func:`branch_gains`; a model without MLPs gives zeros.

    Raises:
      ValueError: as :func:`branch_gains`, and naming ``x`` when H L^2 is over :data:`GRAM_LIMIT`
        (a structured form of the Gram is not implemented).
    """
    cfg = _check_model(model)
    length = _validate.check_input(x, cfg.width, finite=True).shape[0]
    probes = check_int("probes", probes, 1)
    if cfg.depth * length**2 > GRAM_LIMIT:
        raise ValueError(f"x has L = {length} positions: the position-wise Grams of {cfg.depth} layers hold "
                         f"H L^2 = {cfg.depth * length**2:.3g} entries, over GRAM_LIMIT = {GRAM_LIMIT:.3g}; "
                         "use fewer positions")
    if cfg.mlp == "none":
        return np.zeros((cfg.depth, length, length))
    return np.asarray(_run(model, x, probes, key, part="gram")[1], np.float64)


__all__ = ["GRAM_LIMIT", "branch_gains", "key_gains", "mlp_gains", "mlp_gram"]
