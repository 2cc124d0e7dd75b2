"""One unit of the Step-0 study: (preset, width override, seed) -> arrays, saved as units/<name>.npz.

The model and input of seed s are those of ``lostmid step0`` (init key
jax.random.key(s); input and probe keys split from fold_in(key(20260310), s);
:func:`lostmid_jax.analysis.random_inputs.model_input`). A unit holds

    norms [L]                ||d y_L / d x_j||_F (exact or randomized, total pathway)
    alphas [H]               measured a_l (analysis.attention_strength)
    gains_sq [H]             branch gains g_l^2 (analysis.branch_gains)
    gains_key [H, L]         branch gains per key g_l^2(j) (analysis.branch_gains.key_gains)
    mlp_gains [H, L]         position-wise (MLP and norm) gains k_{l,i}^2 (analysis.branch_gains.mlp_gains)
    mlp_gram [H, L, L]       their Grams kappa_l[i, i'] (analysis.branch_gains.mlp_gram), float32; only
                             when H L^2 <= GRAM_LIMIT (else absent: the position-wise variants then use
                             the diagonal k_{l,i}^2)
    kl, spread, max_ratio    [H] attention uniformity on the first attn_length positions
    seconds                  wall time of the unit

Finished units are reloaded, so the same run directory resumes; a unit whose
gains were measured by an earlier definition (``gains_version`` below
:data:`GAINS_VERSION`) gets them measured again on the same model and input
and is saved again.
"""

from __future__ import annotations

import pathlib
import time

import numpy as np

from ...runs.units import UnitStore

GAINS_VERSION = 4  # 2: value-pathway gains, per layer and per key; 3: + position-wise gains; 4: + their Grams
GRAM_LIMIT = 2**24  # H L^2 entries of a unit's mlp_gram (64 MB as float32): gpt2-small to L = 1024, qwen2-0.5b to 512


def build(preset: str, overrides: dict, length: int, seed: int, *, param_dtype: str, kind: str):
    """(model, x [L, D], probe key) of seed ``seed``: the same keys as ``lostmid step0``."""
    import jax
    from flax import nnx

    from ...nn import Decoder
    from ...nn import preset as make_preset
    from ...analysis.random_inputs import model_input

    model = Decoder(make_preset(preset, param_dtype=param_dtype, **overrides), rngs=nnx.Rngs(jax.random.key(seed)))
    k_input, k_probe = jax.random.split(jax.random.fold_in(jax.random.key(20260310), seed))
    return model, model_input(model, length, k_input, kind), k_probe


def measure_unit(preset: str, overrides: dict, length: int, seed: int, *, method: str, probes: int,
                 gain_probes: int, attn_length: int, param_dtype: str, kind: str, chunk=None) -> dict:
    """The arrays of one unit (module docstring)."""
    from ...analysis import attention_probs, attention_strength, influence_profile
    from ...analysis.attention_uniformity import uniformity

    start = time.perf_counter()
    model, x, k_probe = build(preset, overrides, length, seed, param_dtype=param_dtype, kind=kind)
    prof = influence_profile(model, x, method=method, probes=probes, key=k_probe, chunk=chunk)
    out = {"norms": np.asarray(prof.norms, np.float64), "alphas": attention_strength(model, x),
           **_gains(model, x, gain_probes, k_probe)}
    probs = attention_probs(model, x[: min(length, attn_length)], range(model.cfg.depth))
    out.update(uniformity(probs))
    out["seconds"] = np.asarray(time.perf_counter() - start)
    return out


def _gains(model, x, probes: int, k_probe) -> dict:
    """gains_sq [H], gains_key [H, L], mlp_gains [H, L], mlp_gram [H, L, L] (when it fits GRAM_LIMIT)
    and gains_version of a unit."""
    import jax

    from ...analysis.branch_gains import branch_gains, key_gains, mlp_gains, mlp_gram

    out = {"gains_sq": branch_gains(model, x, probes=probes, key=jax.random.fold_in(k_probe, 1)),
           "gains_key": key_gains(model, x, probes=probes, key=jax.random.fold_in(k_probe, 2)),
           "mlp_gains": mlp_gains(model, x, probes=probes, key=jax.random.fold_in(k_probe, 3)),
           "gains_version": np.asarray(GAINS_VERSION)}
    if model.cfg.depth * x.shape[0] ** 2 <= GRAM_LIMIT:
        gram = mlp_gram(model, x, probes=probes, key=jax.random.fold_in(k_probe, 4))
        out["mlp_gram"] = gram.astype(np.float32)
    return out


def remeasure_gains(arrays: dict, preset: str, overrides: dict, length: int, seed: int, *, gain_probes: int,
                    param_dtype: str, kind: str) -> dict:
    """``arrays`` with the gains measured again on the unit's own model and input."""
    model, x, k_probe = build(preset, overrides, length, seed, param_dtype=param_dtype, kind=kind)
    return {**{k: v for k, v in arrays.items() if k != "mlp_gram"}, **_gains(model, x, gain_probes, k_probe)}


def unit_name(preset: str, width: int | None, seed: int) -> str:
    """'<preset>__s<seed>' or, in the noise grid, '<preset>__w<width>__s<seed>'."""
    return f"{preset}__s{seed}" if width is None else f"{preset}__w{width}__s{seed}"


def run_units(cfg, run_dir: pathlib.Path, *, progress: bool = True) -> tuple[dict, dict]:
    """({preset: [unit per seed]}, {width: [noise unit per seed]}), measuring what is not saved yet."""
    from tqdm.auto import tqdm

    from ..runner import writes_files

    store = UnitStore(run_dir)
    todo = [(p.preset, None, p.length, p.method, s) for p in cfg.plans() for s in range(p.seeds)]
    todo += [(cfg.noise_preset, w, cfg.noise_length, "exact", s) for w in cfg.noise_widths
             for s in range(cfg.noise_seeds)]
    main, noise = {}, {}
    for preset, width, length, method, seed in tqdm(todo, desc="step0-study units", disable=not progress):
        stem = unit_name(preset, width, seed)
        overrides = cfg.model_overrides() if width is None else cfg.noise_overrides(width)
        if store.done(stem):
            arrays = store.load(stem)
            if int(arrays.get("gains_version", 1)) < GAINS_VERSION:
                arrays = remeasure_gains(arrays, preset, overrides, length, seed, gain_probes=cfg.gain_probes,
                                         param_dtype=cfg.models.param_dtype, kind=cfg.influence.input)
                if writes_files():
                    store.save(stem, arrays)
        else:
            arrays = measure_unit(preset, overrides, length, seed, method=method, probes=cfg.influence.probes,
                                  gain_probes=cfg.gain_probes, attn_length=cfg.attn_length,
                                  param_dtype=cfg.models.param_dtype, kind=cfg.influence.input, chunk=cfg.influence.chunk)
            if writes_files():
                store.save(stem, arrays)
        (main.setdefault(preset, []) if width is None else noise.setdefault(width, [])).append(arrays)
    return main, noise
