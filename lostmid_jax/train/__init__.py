"""Micro-training on synthetic tasks: Optax AdamW, orbax checkpoints, per-step snapshots.

Shapes: B batch, L positions, k key-value pairs, bins depth bins.

    cfg = TrainConfig(steps=100)                      # or TrainConfig(**SMOKE)
    result = train(cfg, "runs/x/none/seed0")          # resumes from its ckpt/
    records, runs = run_experiment(ExperimentConfig(base=cfg), "runs/x")
    print("\\n".join(verdict(exp, records)))
"""

from . import metrics, tasks
from .checkpoint import CheckpointError, checkpoint_manager, restore_latest, save
from .config import INTERVENTIONS, SMOKE, SNAPSHOT_STEPS, TASKS, TrainConfig
from .experiment import SMOKE_EXPERIMENT, ExperimentConfig, profile_rows, run_experiment
from .verdict import verdict
from .loop import RunResult, init_state, same_state, train
from .snapshots import accuracy_by_depth, take_snapshot
from .step import losses, make_optimizer, make_train_step, schedule, train_step_for

__all__ = [
    "CheckpointError", "ExperimentConfig", "INTERVENTIONS", "RunResult", "SMOKE", "SMOKE_EXPERIMENT",
    "SNAPSHOT_STEPS", "TASKS", "TrainConfig", "accuracy_by_depth", "checkpoint_manager", "init_state",
    "losses", "make_optimizer", "make_train_step", "metrics", "profile_rows", "restore_latest", "run_experiment",
    "same_state", "save", "schedule", "take_snapshot", "tasks", "train", "train_step_for", "verdict",
]
