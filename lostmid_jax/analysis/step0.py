"""The Step-0 experiment: Jacobian influence profiles of freshly initialized decoders.

One *unit* is (preset, variant, seed): build the model (init key = seed), an
input x [L, D] (key derived from the seed), then

- the total / value / score pathway profiles ||d y_L / d x_j||_F
  (:func:`.pathway_profiles`, the plan's method; the total only without
  ``split``),
- the measured attention strengths a_l (:func:`.attention_strength`),
- for seed 0, the attention probabilities of a few layers on the first
  ``heat_length`` positions (for the heatmap figure).

Each finished unit is saved as units/<preset>__<variant>__s<seed>.npz in the
run directory (written to a temporary name, then renamed), so a run that
fails keeps what it finished and the same --out resumes where it stopped.
Paper: Chowdhury, arXiv:2603.10123 (Step 0); a_l as in arXiv:2602.16837.
"""

from __future__ import annotations

import pathlib
import time

import jax
import numpy as np
from flax import nnx

from ..nn import Decoder, preset
from .jacobian import PATHWAYS
from .profile import influence_profile, pathway_profiles
from .step0_config import PresetPlan, Step0Config, variant_overrides
from .strength import attention_probs, attention_strength


def heat_layers(depth: int) -> list[int]:
    """Layers shown in the heatmap: first, middle and last (distinct)."""
    return sorted({0, depth // 2, depth - 1})


def unit_name(preset_name: str, variant: str, seed: int) -> str:
    """File stem of a unit: '<preset>__<variant>__s<seed>' (':' becomes '=')."""
    return f"{preset_name}__{variant.replace(':', '=')}__s{seed}"


def model_input(model, length: int, key, kind: str) -> jax.Array:
    """x [L, D]: embeddings of uniform random tokens ("tokens") or N(0, 1) ("gaussian")."""
    cfg = model.cfg
    if kind == "tokens" and cfg.vocab_size is not None:
        tokens = jax.random.randint(key, (length,), 0, cfg.vocab_size)
        return model.embed(tokens)
    return jax.random.normal(key, (length, cfg.width), cfg.compute_dtype)


def run_unit(cfg: Step0Config, plan: PresetPlan, variant: str, seed: int) -> dict[str, np.ndarray]:
    """Measure one unit; returns the arrays saved in its .npz file."""
    start = time.perf_counter()
    model_cfg = preset(plan.preset, param_dtype=cfg.param_dtype, **variant_overrides(plan.preset, variant))
    model = Decoder(model_cfg, rngs=nnx.Rngs(seed))
    k_input, k_probe = jax.random.split(jax.random.fold_in(jax.random.key(20260310), seed))
    x = model_input(model, plan.length, k_input, cfg.input)
    kwargs = dict(method=plan.method, probes=plan.probes, key=k_probe, chunk=cfg.chunk)
    if cfg.split:
        split = pathway_profiles(model, x, **kwargs)
        profiles = {name: getattr(split, name) for name in PATHWAYS}
    else:
        profiles = {"total": influence_profile(model, x, **kwargs)}
    out = {"alphas": attention_strength(model, x)}
    for name, prof in profiles.items():
        out[f"norms_{name}"] = prof.norms
        if prof.stderr is not None:
            out[f"stderr_{name}"] = prof.stderr
    if seed == 0:
        layers = heat_layers(model_cfg.depth)
        out["heat_layers"] = np.asarray(layers)
        out["heat_probs"] = attention_probs(model, x[: min(plan.length, cfg.heat_length)], layers)
    out["seconds"] = np.asarray(time.perf_counter() - start)
    return out


def load_unit(path: pathlib.Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def save_unit(path: pathlib.Path, arrays: dict[str, np.ndarray]) -> None:
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def run_all(cfg: Step0Config, run_dir: pathlib.Path, *, progress: bool = True) -> dict:
    """Run (or resume) every unit; returns {(preset, variant): [unit dict per seed]}."""
    from tqdm.auto import tqdm

    units_dir = run_dir / "units"
    units_dir.mkdir(parents=True, exist_ok=True)
    plans = {p.preset: p for p in cfg.plans()}
    todo = [u for p in plans.values() for u in p.units()]
    results: dict = {}
    bar = tqdm(todo, desc="step0 units", disable=not progress)
    for name, variant, seed in bar:
        bar.set_postfix_str(f"{name} {variant} seed {seed}")
        path = units_dir / f"{unit_name(name, variant, seed)}.npz"
        if path.exists():
            arrays = load_unit(path)
        else:
            arrays = run_unit(cfg, plans[name], variant, seed)
            save_unit(path, arrays)
        results.setdefault((name, variant), []).append(arrays)
    return results
