"""Per-step snapshots: influence profiles, pathways, attention strength, accuracy by depth.

A snapshot of the model after t steps is a dict with scalars (step; per
pathway total / value / score: norm, valley depth, boundary spike, chunk-local
U, see metrics.py; the total profile's chunk-local U per document
total_chunk_u_c<c>; per-layer strength a_l; accuracy per depth bin) and
arrays (total / value / score profiles [L]).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from .. import analysis
from . import metrics, tasks
from .config import TrainConfig
from .step import predict_values


def accuracy_by_depth(graphdef, params, evalset: dict, bins: int) -> np.ndarray:
    """[bins] fraction of exact argmax answers per depth bin."""
    pred = np.asarray(predict_values(graphdef, params, jnp.asarray(evalset["kv_tokens"])))
    hit = pred == evalset["kv_target"]
    return np.array([hit[evalset["bin"] == b].mean() for b in range(bins)])


def profile_input(model, cfg: TrainConfig) -> jax.Array:
    """[L, D] embeddings of :func:`tasks.profile_tokens` under the model's current embedding."""
    return model.embed(jnp.asarray(tasks.profile_tokens(cfg)))


def take_snapshot(cfg: TrainConfig, graphdef, params, step: int, evalset: dict | None) -> dict:
    """Measure the model after ``step`` optimizer steps (see module docstring)."""
    model = nnx.merge(graphdef, params)
    x = profile_input(model, cfg)
    key = jax.random.key(cfg.eval_seed)
    split = analysis.pathway_profiles(model, x, method=cfg.profile_method, probes=cfg.probes, key=key)
    bounds = tasks.boundaries(cfg)
    rec = {"step": step}
    for name in ("total", "value", "score"):
        n = getattr(split, name).norms
        rec[f"{name}_norm"] = metrics.pathway_norm(n)
        rec[f"{name}_valley"] = metrics.valley_depth(n, bounds)
        rec[f"{name}_spike"] = metrics.boundary_spike(n, bounds)
        rec[f"{name}_chunk_u"] = metrics.chunk_u(n, bounds)
    per_doc = metrics.chunk_u_profile(split.total.norms, bounds)
    rec.update({f"total_chunk_u_c{c}": float(u) for c, u in enumerate(per_doc)})
    for layer, a in enumerate(analysis.attention_strength(model, x)):
        rec[f"strength_{layer}"] = float(a)
    if evalset is not None:
        acc = accuracy_by_depth(graphdef, params, evalset, cfg.depth_bins)
        rec.update({f"acc_bin{b}": float(v) for b, v in enumerate(acc)})
        rec["acc_mean"] = float(acc.mean())
        rec["acc_middle"] = float(acc[middle_bins(cfg.depth_bins)].mean())
    rec["profiles"] = {name: getattr(split, name).norms.tolist() for name in ("total", "value", "score")}
    return rec


def middle_bins(bins: int) -> np.ndarray:
    """The central bin (odd count) or two central bins (even count)."""
    return np.array([bins // 2]) if bins % 2 else np.array([bins // 2 - 1, bins // 2])
