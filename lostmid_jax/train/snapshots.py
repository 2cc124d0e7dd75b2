"""Per-step snapshots: influence profiles, pathways, attention strength, accuracy by needle bin.

A snapshot of the model after t steps is a dict with scalars (step; per
pathway total / value / score: norm, valley depth, boundary spike,
document-local U, see metrics.py; the total profile's document-local U per
document total_doc_u_c<c>; per-layer strength a_l; accuracy per needle
bin acc_bin<b>) and arrays (total / value / score profiles [L]).

Everything is measured with the model run as it is trained
(:func:`.training_execution`: no remat, its layer loop and attention), so
the numbers are those of the trained function, rounded as in training.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from .._moved import old_names
from .. import analysis
from ..nn import Execution
from ..theory.middle import MIDDLE_X
from . import metrics, tasks
from .config import TrainConfig, training_execution
from .step import predict_values


def accuracy_by_needle_bin(graphdef, params, evalset: dict, bins: int,
                           execution: Execution | None = None) -> np.ndarray:
    """[bins] fraction of exact argmax answers per needle bin (model run under ``execution``)."""
    pred = np.asarray(predict_values(graphdef, params, jnp.asarray(evalset["kv_tokens"]), execution))
    hit = pred == evalset["kv_target"]
    return np.array([hit[evalset["bin"] == b].mean() for b in range(bins)])


def profile_input(model, cfg: TrainConfig) -> jax.Array:
    """[L, D] embeddings of :func:`tasks.profile_tokens` under the model's current embedding."""
    return model.embed(jnp.asarray(tasks.profile_tokens(cfg)))


def take_snapshot(cfg: TrainConfig, graphdef, params, step: int, evalset: dict | None,
                  execution: Execution | None = None) -> dict:
    """Measure the model after ``step`` optimizer steps (see module docstring).

    ``execution``: how the trained model runs (default :func:`.training_execution` (cfg)).
    """
    execution = training_execution(cfg) if execution is None else execution
    model = nnx.merge(graphdef, params)
    x = profile_input(model, cfg)
    key = jax.random.key(cfg.eval_seed)
    request = analysis.ProfileRequest(length=x.shape[0], method=cfg.profile_method, probes=cfg.probes, split=True,
                                      remat=execution.remat, unroll_layers=execution.unroll_layers)
    split = analysis.PathwayProfiles(**dict(zip(analysis.PATHWAYS, analysis.run_profile(model, x, request, key=key))))
    bounds = tasks.boundaries(cfg)
    rec = {"step": step}
    for name in ("total", "value", "score"):
        n = getattr(split, name).norms
        rec[f"{name}_norm"] = metrics.pathway_norm(n)
        rec[f"{name}_valley"] = metrics.valley_depth(n, bounds)
        rec[f"{name}_spike"] = metrics.boundary_spike(n, bounds)
        rec[f"{name}_doc_u"] = metrics.doc_u(n, bounds)
    per_doc = metrics.doc_u_profile(split.total.norms, bounds)
    rec.update({f"total_doc_u_c{c}": float(u) for c, u in enumerate(per_doc)})
    for layer, a in enumerate(analysis.attention_strength_under(model, x, execution)):
        rec[f"strength_{layer}"] = float(a)
    if evalset is not None:
        acc = accuracy_by_needle_bin(graphdef, params, evalset, cfg.needle_bins, execution)
        rec.update({f"acc_bin{b}": float(v) for b, v in enumerate(acc)})
        rec["acc_mean"] = float(acc.mean())
        rec["acc_middle"] = float(acc[central_needle_bins(cfg.needle_bins)].mean())
    rec["profiles"] = {name: getattr(split, name).norms.tolist() for name in ("total", "value", "score")}
    return rec


def central_needle_bins(bins: int) -> np.ndarray:
    """The needle bins b whose range [b / bins, (b + 1) / bins] holds the middle x = 1/2
    (theory.middle.MIDDLE_X): the central bin (odd count) or the two either side of 1/2 (even count)."""
    mid = MIDDLE_X * bins
    return np.arange(math.ceil(mid) - 1, math.floor(mid) + 1)


__getattr__ = old_names(__name__)  # middle_bins: lostmid_jax._moved.NAMES (warns once, for one release)
