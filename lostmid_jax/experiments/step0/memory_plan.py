"""The memory plan of a Step-0 run: the peak resident memory of each preset's units, estimated before any work.

Shapes and sizes: L positions, D width, H depth, N heads, K cotangents, B = ``n_boot``, b = 4 bytes (float32
and wider: the size of the compute dtype, at least 4).

A unit runs its parts one after another, so the process's peak is the largest part on top of what is
always held:

    peak = RUNTIME_BYTES + weights + max(profile, a_l, heat, summary)

    weights   the model's parameters (probes.cost.Cost.weights)
    profile   the backward passes: analysis.memory.plan_memory's m_0 + chunk m_c (remat on, the plan's
              chunk: --chunk, else the engine's automatic one)
    a_l       the forward that captures the attention strengths (probes.cost.Cost.forward: one block's
              activations and one layer's N L^2 scores)
    heat      the attention probabilities of every layer at min(L, heat_length) (probes.cost.Cost.attention)
    summary   the bootstrap of the summary: SUMMARY_COPIES arrays of [B, L] float64 (replicate means,
              their ranks and sort order)

:func:`check` (step0's ``resolve``: before the run directory is claimed) refuses a run whose peak is over
``max_memory_gb`` (lostmid_jax.resources: ``--limits``) with one line naming the preset, its length and chunk and
the flag; where the automatic chunk's peak is over it and a smaller chunk fits, the units run with that chunk
(:func:`engine_chunk`; the automatic one otherwise, so results below the limit do not change).
benchmarks/step0_memory.py measures the peak of a run in its own process (its VmHWM:
:func:`lostmid_jax.resources.peak_resident_bytes`) against :func:`plan`.
"""

from __future__ import annotations

import dataclasses

RUNTIME_BYTES = 0.8e9
"""The interpreter, JAX, XLA's CPU runtime and the compiled programs of a small run: toy runs at L = 256-1024
peaked at 0.55-0.81 GB resident (its own VmHWM, GB = 1e9 bytes; the most when compiling cold), of which the
parts below are at most ~0.1 GB. 0.6e9, read in GiB-sized units before, fell below the peak at L = 512-1024."""

SUMMARY_COPIES = 6
"""[B, L] float64 arrays the summary's bootstrap holds at once (means, ranks, sort order, temporaries)."""


@dataclasses.dataclass(frozen=True)
class UnitMemory:
    """The plan of one preset's units, in bytes (module docstring); ``chunk``: cotangents per backward pass,
    ``reduced``: made smaller than the automatic chunk to fit ``max_memory_gb``."""

    preset: str
    length: int
    chunk: int
    weights: float
    profile: float
    a_l: float
    heat: float
    summary: float
    reduced: bool = False

    @property
    def peak(self) -> float:
        """RUNTIME_BYTES + weights + the largest part."""
        return RUNTIME_BYTES + self.weights + max(self.profile, self.a_l, self.heat, self.summary)

    def __str__(self) -> str:
        parts = ", ".join(f"{name} {getattr(self, name) / 1e9:.2f}" for name in ("weights", "profile", "a_l", "heat",
                                                                                   "summary"))
        return (f"{self.preset} L={self.length} chunk {self.chunk}{' (reduced to fit)' if self.reduced else ''}: peak ~{self.peak / 1e9:.2f} GB "
                f"(runtime {RUNTIME_BYTES / 1e9:.2f}, {parts} GB)")


def plan(cfg) -> list[UnitMemory]:
    """One :class:`UnitMemory` per preset of ``cfg`` (a step0 Config), its largest variant's, the chunks chosen
    under ``max_memory_gb`` (:func:`unit_memory`)."""
    limit = _limit_bytes()
    return [max((unit_memory(cfg, p, v, limit) for v in p.variants), key=lambda u: u.peak) for p in cfg.plans()]


def unit_memory(cfg, preset_plan, variant: str, limit_bytes: float | None = None) -> UnitMemory:
    """The plan of the units of (``preset_plan``, ``variant``) under ``cfg`` (a step0 Config).

    The chunk is ``cfg.influence.chunk``, else the engine's automatic one (analysis.jacobian.auto_chunk), made smaller
    where that peak is over ``limit_bytes`` and a smaller chunk fits (``reduced`` is then True).
    """
    import numpy as np

    from ...analysis.jacobian import auto_chunk
    from ...analysis.memory import backward_bytes
    from ...nn import MaskSpec
    from ...probes.cost import Cost, block_parameters
    from .config import model_config

    model_cfg = model_config(preset_plan.preset, variant, cfg.models.param_dtype)
    length = preset_plan.length
    count = {"exact": model_cfg.width, "randomized": preset_plan.probes}.get(preset_plan.method, 1)
    prefix = MaskSpec.from_config(model_cfg).prefix_length(length - 1) or length
    weight_bytes = int(block_parameters(model_cfg) * np.dtype(model_cfg.param_dtype).itemsize)
    per, fixed = backward_bytes(model_cfg, prefix, split=preset_plan.split, remat=True, weight_bytes=weight_bytes)
    chunk = max(1, min(cfg.influence.chunk or auto_chunk(model_cfg, prefix, count), count))
    parts = dict(preset=preset_plan.preset, length=length, weights=Cost.weights(model_cfg).nbytes,
                 a_l=Cost.forward(model_cfg, rows=1, length=length).nbytes,
                 heat=Cost.attention(model_cfg, prompts=1, length=min(length, cfg.heat_length)).nbytes,
                 summary=SUMMARY_COPIES * 8.0 * cfg.n_boot * length)
    unit = UnitMemory(chunk=chunk, profile=float(fixed + chunk * per), **parts)
    if cfg.influence.chunk is None and limit_bytes is not None and unit.peak > limit_bytes and chunk > 1:
        room = limit_bytes - (unit.peak - unit.profile) - fixed  # what the cotangents of one chunk may fill
        fit = int(min(chunk - 1, max(1, room // per)))
        unit = UnitMemory(chunk=fit, profile=float(fixed + fit * per), reduced=True, **parts)
    return unit


def engine_chunk(cfg, preset_plan, variant: str) -> int | None:
    """The ``chunk`` the units of (``preset_plan``, ``variant``) pass to the engine: ``cfg.influence.chunk``; else None
    (automatic) unless the automatic chunk's peak is over ``max_memory_gb``, then the plan's smaller chunk."""
    if cfg.influence.chunk is not None:
        return cfg.influence.chunk
    unit = unit_memory(cfg, preset_plan, variant, limit_bytes=_limit_bytes())
    return unit.chunk if unit.reduced else None


def _limit_bytes() -> float:
    from ...resources import current_limits

    return current_limits().max_memory_gb * 1e9


def check(cfg) -> list[UnitMemory]:
    """:func:`plan`, refused (one-line ValueError naming ``--limits max_memory_gb``, the preset, its length and
    chunk) where a peak is over ``max_memory_gb``."""
    from ...resources import check_memory

    out = plan(cfg)
    for unit in out:
        lower = "--length or --chunk" if unit.chunk > 1 else "--length"
        check_memory(f"step0: preset {unit.preset} at length={unit.length} (chunk {unit.chunk}; lower {lower})",
                     unit.peak)
    return out


__all__ = ["RUNTIME_BYTES", "SUMMARY_COPIES", "UnitMemory", "check", "engine_chunk", "plan", "unit_memory"]
