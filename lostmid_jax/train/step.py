"""Optimizer, loss and the jitted training step on a split NNX model.

    tx = make_optimizer(cfg)                    # clip -> AdamW(warmup + cosine)
    step_fn = make_train_step(graphdef, tx, execution=training_execution(cfg))
    params, opt_state, metrics = step_fn(params, opt_state, batch)

Loss (B sequences, weights w normalized to mean 1 by the task):
    LM:  mean_{b, j} w_bj * CE(logits_b,j, token_b,j+1)
    KV:  mean_b w_b * CE(logits_b,last, target_b)
and the step minimizes their sum.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from ..cpu_heaps import cpu_compiler_options
from ..nn import Execution
from .config import TrainConfig, training_execution


def schedule(cfg: TrainConfig) -> optax.Schedule:
    """Linear warmup lr / warmup -> lr over ``warmup`` steps, then cosine to 0.1 lr at ``steps``.

    The first step already has lr / warmup > 0, so step 1 moves the parameters.
    """
    return optax.warmup_cosine_decay_schedule(
        init_value=cfg.lr / max(cfg.warmup, 1), peak_value=cfg.lr, warmup_steps=cfg.warmup,
        decay_steps=max(cfg.steps, cfg.warmup + 1), end_value=0.1 * cfg.lr)


def make_optimizer(cfg: TrainConfig) -> optax.GradientTransformation:
    """Global-norm clipping at ``clip`` followed by AdamW on the schedule."""
    return optax.chain(optax.clip_by_global_norm(cfg.clip),
                       optax.adamw(schedule(cfg), weight_decay=cfg.weight_decay))


def _ce(logits, labels):
    return optax.softmax_cross_entropy_with_integer_labels(logits.astype(jnp.float32), labels)


def losses(model, batch: dict, streams: int = 1, execution: Execution | None = None) -> dict[str, jax.Array]:
    """Per-task weighted mean cross-entropies {"lm": [], "kv": []} (those present).

    With ``streams`` > 1 each task's batch whose size it divides is cut into
    that many equal sub-batches, run as independent computations (XLA can
    overlap them on the CPU cores) and their means averaged: the same loss.
    ``execution``: how the model runs (None: nn.Execution()).
    """
    if streams > 1:
        parts = {}
        for prefix, name in (("lm_", "lm"), ("kv_", "kv")):
            task = {k: v for k, v in batch.items() if k.startswith(prefix)}
            if not task:
                continue
            n = streams if next(iter(task.values())).shape[0] % streams == 0 else 1
            subs = [losses(model, {k: v.reshape(n, -1, *v.shape[1:])[i] for k, v in task.items()},
                           execution=execution)[name] for i in range(n)]
            parts[name] = sum(subs) / n
        return parts
    out = {}
    if "lm_tokens" in batch:
        tok = batch["lm_tokens"]
        logits = model.lm(tok[:, :-1], execution=execution)       # [B, L-1, V]
        out["lm"] = jnp.mean(batch["lm_weights"] * _ce(logits, tok[:, 1:]))
    if "kv_tokens" in batch:
        logits = model.lm(batch["kv_tokens"], execution=execution)[:, -1]  # [B, V]
        out["kv"] = jnp.mean(batch["kv_weights"] * _ce(logits, batch["kv_target"]))
    return out


_STEPS = {}

def train_step_for(graphdef, cfg: TrainConfig, streams: int | None = None, execution: Execution | None = None):
    """The jitted step for this graph and optimizer, cached so runs that share
    them (seeds, interventions) compile once. ``streams`` defaults to cfg.streams,
    ``execution`` to :func:`.training_execution` (cfg)."""
    streams = cfg.streams if streams is None else streams
    execution = training_execution(cfg) if execution is None else execution
    key = (graphdef, cfg.lr, cfg.warmup, cfg.steps, cfg.weight_decay, cfg.clip, streams, execution)
    if key not in _STEPS:
        _STEPS[key] = make_train_step(graphdef, make_optimizer(cfg), streams, execution)
    return _STEPS[key]


def make_train_step(graphdef, tx: optax.GradientTransformation, streams: int = 1,
                    execution: Execution | None = None):
    """A jitted pure step(params, opt_state, batch) -> (params, opt_state, metrics).

    metrics: loss (sum over tasks), loss_lm / loss_kv, grad_norm (before clipping).
    ``streams``, ``execution``: see :func:`losses`.
    """

    def loss_fn(params, batch):
        parts = losses(nnx.merge(graphdef, params), batch, streams, execution)
        return sum(parts.values()), parts

    @functools.partial(jax.jit, compiler_options=cpu_compiler_options())
    def step(params, opt_state, batch):
        (loss, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        metrics = {"loss": loss, "grad_norm": optax.tree.norm(grads),
                   **{f"loss_{k}": v for k, v in parts.items()}}
        return params, opt_state, metrics

    return step


def predict_values(graphdef, params, tokens, execution: Execution | None = None) -> jax.Array:
    """Argmax next token after the last position: [B, L] -> [B] (model run under ``execution``)."""
    return _predict(graphdef, execution)(params, tokens)


_PREDICT = {}


def _predict(graphdef, execution):
    if (graphdef, execution) not in _PREDICT:
        _PREDICT[graphdef, execution] = jax.jit(
            lambda p, t: jnp.argmax(nnx.merge(graphdef, p).lm(t, execution=execution)[:, -1], axis=-1))
    return _PREDICT[graphdef, execution]
