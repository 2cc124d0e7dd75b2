"""The Step-0 experiment: Jacobian influence profiles of freshly initialized decoders.

One *unit* is (preset, variant, seed): build the model (init key = seed), an
input x [L, D] (key derived from the seed), then

- the total / value / score pathway profiles ||d y_L / d x_j||_F
  (:func:`lostmid_jax.analysis.pathway_profiles`, the plan's method; the total
  only without ``split``),
- the measured attention strengths a_l (:func:`lostmid_jax.analysis.attention_strength`),
- for seed 0, the attention probabilities of a few layers on the first
  ``heat_length`` positions (for the heatmap figure).

Each finished unit is saved as units/<preset>__<variant>__s<seed>.npz in the
run directory (:class:`lostmid_jax.runs.UnitStore`: written to a temporary name,
then renamed), so a run that fails keeps what it finished and the same --out
resumes where it stopped.
Paper: Chowdhury, arXiv:2603.10123 (Step 0); a_l as in arXiv:2602.16837.
"""

from __future__ import annotations

import pathlib
import time

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from ..._moved import old_names
from ...analysis import attention_probs, attention_strength, influence_profile, mapped_profiles, pathway_profiles
from ...analysis.request import PATHWAYS
from ...analysis.random_inputs import model_input
from ...compile_time import CompileLog, TimeSplit
from ...nn import Decoder
from ...parallel import is_process0, mesh_size
from ...runs.units import UnitStore
from .config import Config, PresetPlan, model_config
from .memory_plan import engine_chunk


def heat_layers(depth: int) -> list[int]:
    """Layers shown in the heatmap: first, middle and last (distinct)."""
    return sorted({0, depth // 2, depth - 1})


def unit_name(preset_name: str, variant: str, seed: int) -> str:
    """File stem of a unit: '<preset>__<variant>__s<seed>' (':' becomes '=')."""
    return f"{preset_name}__{variant.replace(':', '=')}__s{seed}"


def unit_inputs(cfg: Config, plan: PresetPlan, variant: str, seed):
    """(model, x [L, D], probe key) of a unit; traceable in ``seed`` (init key jax.random.key(seed))."""
    model_cfg = model_config(plan.preset, variant, cfg.models.param_dtype)
    model = Decoder(model_cfg, rngs=nnx.Rngs(jax.random.key(seed)))
    k_input, k_probe = jax.random.split(jax.random.fold_in(jax.random.key(20260310), seed))
    return model, model_input(model, plan.length, k_input, cfg.influence.input), k_probe


def seed_profiles(cfg: Config, plan: PresetPlan, variant: str, seeds, mesh, *, batch: int | str = 1) -> list[dict]:
    """{pathway: InfluenceProfile} for each seed, the seeds spread over ``mesh`` (each device ``batch`` seeds at
    a time, vmapped; "auto": as many as its free memory allows, :func:`lostmid_jax.analysis.ensemble.items_at_once`)."""
    names = PATHWAYS if plan.split else ("total",)
    per_seed = mapped_profiles(lambda s: unit_inputs(cfg, plan, variant, s), jnp.asarray(seeds), method=plan.method,
                               probes=plan.probes, split=plan.split, chunk=engine_chunk(cfg, plan, variant), mesh=mesh,
                               batch=batch)
    return [dict(zip(names, profs)) for profs in per_seed]


def seeds_together(pending: int, mesh) -> bool:
    """Whether the ``pending`` seeds of a (preset, variant) are measured in one computation (:func:`seed_profiles`):
    over a mesh of n > 1 devices with >= n seeds, or on one accelerator with >= 2 (their number at once then
    chosen from its free memory). On CPU each seed runs alone (the results the tests' golden files hold)."""
    if mesh_size(mesh) > 1:
        return pending >= mesh_size(mesh)
    return pending >= 2 and jax.devices()[0].platform != "cpu"


def run_unit(cfg: Config, plan: PresetPlan, variant: str, seed: int, *, mesh=None,
             profiles: dict | None = None, shared: tuple[float, float] = (0.0, 0.0),
             log: CompileLog | None = None) -> dict[str, np.ndarray]:
    """Measure one unit (profiles split over ``mesh``, unless ``profiles`` were measured already, in
    ``shared`` = (wall seconds, of which compilation)); returns the arrays saved in its .npz file, with its
    wall time split into compile, device and host seconds (:class:`~lostmid_jax.compile_time.TimeSplit`,
    compilation read from ``log``, else from a log of this unit's own)."""
    if log is None:
        with CompileLog() as own:
            return run_unit(cfg, plan, variant, seed, mesh=mesh, profiles=profiles, shared=shared, log=own)
    split = TimeSplit(log)
    split.add(*shared)
    model, x, k_probe = unit_inputs(cfg, plan, variant, seed)
    if profiles is None:
        kwargs = dict(method=plan.method, probes=plan.probes, key=k_probe, chunk=engine_chunk(cfg, plan, variant),
                      mesh=mesh)
        with split.device():
            if plan.split:
                both = pathway_profiles(model, x, **kwargs)
                profiles = {name: getattr(both, name) for name in PATHWAYS}
            else:
                profiles = {"total": influence_profile(model, x, **kwargs)}
    with split.device():
        out = {"alphas": attention_strength(model, x)}
    for name, prof in profiles.items():
        out[f"norms_{name}"] = prof.norms
        if prof.stderr is not None:
            out[f"stderr_{name}"] = prof.stderr
    if seed == 0:
        layers = heat_layers(model.cfg.depth)
        out["heat_layers"] = np.asarray(layers)
        with split.device():
            out["heat_probs"] = attention_probs(model, x[: min(plan.length, cfg.heat_length)], layers)
    out.update({key: np.asarray(value) for key, value in split.seconds().items()})
    return out


def run_all(cfg: Config, run_dir: pathlib.Path, *, progress: bool = True, mesh=None) -> dict:
    """Run (or resume) every unit; returns {(preset, variant): [unit dict per seed]}.

    With a mesh of n > 1 devices, a (preset, variant) with >= n unfinished
    seeds has its profiles measured seed-parallel (:func:`seed_profiles`),
    otherwise each unit's cotangents are split over the devices; on one
    accelerator its unfinished seeds are measured in one computation, as many
    at once as its memory allows (:func:`seeds_together`). Only process 0
    writes unit files.
    """
    from tqdm.auto import tqdm

    store = UnitStore(run_dir)
    plans = {p.preset: p for p in cfg.plans()}
    todo = [u for p in plans.values() for u in p.units()]
    results: dict = {}
    measured: dict = {}
    bar = tqdm(todo, desc="step0 units", disable=not progress)
    with CompileLog() as log:
        for name, variant, seed in bar:
            bar.set_postfix_str(f"{name} {variant} seed {seed}")
            stem = unit_name(name, variant, seed)
            if store.done(stem):
                arrays = store.load(stem)
            else:
                pending = [s for n, v, s in todo if (n, v) == (name, variant) and not store.done(unit_name(n, v, s))]
                if (name, variant, seed) not in measured and seeds_together(len(pending), mesh):
                    start = time.perf_counter()
                    with log.window() as w:
                        profs = seed_profiles(cfg, plans[name], variant, pending, mesh, batch="auto")
                    share = ((time.perf_counter() - start) / len(pending), w.seconds / len(pending))
                    measured.update({(name, variant, s): (p, share) for s, p in zip(pending, profs)})
                profs, share = measured.pop((name, variant, seed), (None, (0.0, 0.0)))
                arrays = run_unit(cfg, plans[name], variant, seed, mesh=mesh, profiles=profs, shared=share, log=log)
                if is_process0():
                    store.save(stem, arrays)
            results.setdefault((name, variant), []).append(arrays)
    return results


__getattr__ = old_names(__name__)  # load_unit, save_unit: lostmid_jax._moved.NAMES (warns once, for one release)
