"""Micro-training on synthetic tasks: Optax AdamW, orbax checkpoints, per-step snapshots.

Shapes: B batch, L positions, k key-value pairs, N document length (doc_length),
bins needle bins.

    cfg = TrainConfig(steps=100, model=toy_model(width=64))   # or TrainConfig(**SMOKE)
    result = train(cfg, "runs/x/none/seed0")                  # resumes from its ckpt/
    result.execution                                          # how the model ran ("auto" resolved)
    cfg, model = load_trained("runs/micro_training/<ts>", seed=0)   # a run's model, newest intact step

Baseline and interventions over seeds, with their verdict: lostmid_jax.experiments.micro_training.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "CheckpointError": ".checkpoint",
    "checkpoint_manager": ".checkpoint",
    "restore_latest": ".checkpoint",
    "save": ".checkpoint",
    "export_hf": ".export",
    "load_trained": ".export",
    "DEFAULT_MODEL": ".config",
    "INTERVENTIONS": ".config",
    "SMOKE": ".config",
    "SNAPSHOT_STEPS": ".config",
    "TASKS": ".config",
    "TrainConfig": ".config",
    "resolve_attn_impl": ".config",
    "toy_model": ".config",
    "training_execution": ".config",
    "RunResult": ".loop",
    "init_state": ".loop",
    "same_state": ".loop",
    "train": ".loop",
    "TrainingDiverged": ".loop",
    "read_jsonl": ".loop",
    "accuracy_by_needle_bin": ".snapshots",
    "take_snapshot": ".snapshots",
    "losses": ".step",
    "make_optimizer": ".step",
    "make_train_step": ".step",
    "schedule": ".step",
    "train_step_for": ".step",
}
_SUBMODULES = ('metrics', 'tasks')

__all__ = [
    "CheckpointError",
    "DEFAULT_MODEL",
    "INTERVENTIONS",
    "RunResult",
    "SMOKE",
    "SNAPSHOT_STEPS",
    "TASKS",
    "TrainConfig",
    "TrainingDiverged",
    "accuracy_by_needle_bin",
    "checkpoint_manager",
    "init_state",
    "export_hf",
    "load_trained",
    "losses",
    "make_optimizer",
    "make_train_step",
    "metrics",
    "resolve_attn_impl",
    "read_jsonl",
    "restore_latest",
    "same_state",
    "save",
    "schedule",
    "take_snapshot",
    "tasks",
    "toy_model",
    "train",
    "train_step_for",
    "training_execution",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
