"""The measurements of a diagnosis: the position test, attention received, influence profiles at birth and now.

Shapes: E examples, k passages, T prompt tokens, H layers, N heads, S profile examples.

    model_cfg, model, path, tok = load(checkpoint, run_dir, dtype)   # as resolved (--smoke writes its own first)
    probes = probe_sets(cfg, model_cfg, tok)              # {T: probes.ProbeSet [E, k, T]} for T in cfg.probe.lengths
    out = measure(cfg, model, probes, progress=True)      # a dict of arrays and results (below)

The attention and influence measurements use the prompts of the first
length with the fact in the middle passage (passage ceil(k/2)): the place a
dip would be.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from .config import TINY_GAIN, Config

_LOG = logging.getLogger(__name__)


def load(checkpoint, run_dir, dtype: str):
    """(DecoderConfig, Decoder, directory, tokenizer or None) of the checkpoint as resolved
    (:func:`probes.checkpoint.load_checkpoint`); the --smoke checkpoint's weight matrices are scaled by TINY_GAIN
    (std 0.02 -> 0.1) so that its attention is not uniform: a stand-in for a trained model, compared with Step-0
    inits of std 0.02."""
    from ...probes.checkpoint import load_checkpoint

    return load_checkpoint(checkpoint, run_dir, dtype=dtype, gain=TINY_GAIN)


def probe_sets(cfg: Config, model_cfg, tok) -> dict:
    """{T: the probe of ``cfg`` at prompt length T} for T in cfg.probe.lengths (the same facts and seed at each)."""
    return {length: probe_set(cfg, model_cfg, tok, length) for length in cfg.probe.lengths}


def probe_set(cfg: Config, model_cfg, tok, length: int):
    """The probe of ``cfg`` at prompt length T = ``length`` for this model (text with its tokenizer, or ids)."""
    from ...probes.checkpoint import build_probes

    return build_probes(cfg.probe, tok, model_cfg.vocab_size, length)


def middle_index(passages: int) -> int:
    """0-based index of the passage whose prompts feed attention and influence: ceil(k / 2) - 1."""
    return (passages + 1) // 2 - 1


def _attention(cfg: Config, model, tokens: np.ndarray) -> dict:
    """Attention received per example (layers of cfg) and the last layer's binned heat map."""
    from ...analysis import attention_received
    from ...analysis.received import allowed_keys, attention_probs_batch, binned_ratio_map

    layers = [l - 1 for l in cfg.layers] if cfg.layers else None
    raw, ratio = zip(*(attention_received(model, row, layers=layers) for row in tokens))
    probs = attention_probs_batch(model, tokens, layers=[-1])[0].mean(axis=0)  # [T, T]: last layer, head mean
    heat = binned_ratio_map(probs, allowed_keys(model.cfg, tokens.shape[1]), cfg.heat_bins)
    return dict(raw=np.stack(raw), vs_uniform=np.stack(ratio), heat=heat,
                layers=np.asarray(cfg.layers if cfg.layers else range(1, model.cfg.depth + 1)))


def _profiles(cfg: Config, model, tokens: np.ndarray, progress: bool) -> dict:
    """Influence profiles of the trained model and of Step-0 inits (seed s for prompt s), a_l of the inits."""
    import jax
    from flax import nnx
    from tqdm.auto import tqdm

    from ...analysis import attention_strength, influence_profile
    from ...runs.stop import checked
    from ...nn import Decoder

    method = cfg.resolved_method(model.cfg.width)
    graphdef = nnx.graphdef(model)
    trained, step0, alphas = [], [], []
    for s in checked(tqdm(range(tokens.shape[0]), disable=not progress, desc="influence profiles")):
        ids = np.asarray(tokens[s], np.int32)
        key = jax.random.key(cfg.probe.seed + s)
        trained.append(influence_profile(model, model.embed(ids), method=method, probes=cfg.probes, key=key).norms)
        init = nnx.merge(graphdef, nnx.state(Decoder(model.cfg, rngs=nnx.Rngs(s))))  # reuses the compiled graph
        x0 = init.embed(ids)
        step0.append(influence_profile(init, x0, method=method, probes=cfg.probes, key=key).norms)
        alphas.append(attention_strength(init, x0))
    return dict(trained=np.stack(trained), step0=np.stack(step0), alphas=np.stack(alphas), method=method)


def measure(cfg: Config, model, probes_by_length: dict, *, progress: bool = True) -> dict:
    """Everything the diagnosis reports, from one model and its probes.

    Args:
      probes_by_length: {T: probes.ProbeSet} (:func:`probe_sets`); the first T also feeds attention and profiles.

    Returns a dict: tests ({T: dict(scores=probes.ProbeScores, position=probes.PositionResult, fact_x [k] (mean
    relative position of the fact per passage), extrapolated (the forward reads beyond the trained context))}), attention (raw and vs_uniform [A, H', N, T0], heat [B, B],
    layers), profiles (trained, step0 [S, T0], alphas [S, H]), prior (the theory prior), prior_row [T0],
    length (T0), baselines ({"closed-book", "oracle": dict(scores, rates=probes.accuracy_by_passage.Rates,
    prompt_tokens [E])}: the
    question alone, the fact or gold document alone), seconds per phase.
    """
    from ...analysis import prior_for, theory_row
    from ...probes.context import extrapolated
    from ...probes.accuracy_by_passage import position_test, rates
    from ...probes.scoring import check_fits, score_probes

    for probes in probes_by_length.values():
        check_fits(model.cfg, probes.positions_needed, name="lengths")  # before any forward pass
    seconds = {"scoring": 0.0}
    tests = {}
    for length, probes in probes_by_length.items():
        start = time.perf_counter()
        _LOG.info(f"scoring {probes.examples} examples x {probes.passages} passages x {probes.candidates} "
                  f"candidates at T={length} (the first batch compiles)")
        scores = score_probes(model, probes, batch=cfg.batch)
        fact_x = (probes.fact_start + probes.fact_length[:, None] / 2).mean(axis=0) / length
        tests[length] = dict(scores=scores, position=position_test(scores, n_boot=cfg.n_boot, seed=cfg.probe.seed),
                             fact_x=fact_x, extrapolated=extrapolated(model.cfg, probes.positions_needed))
        seconds["scoring"] += time.perf_counter() - start
    first = probes_by_length[next(iter(probes_by_length))]
    mid = middle_index(first.passages)
    start = time.perf_counter()
    _LOG.info(f"attention received on {min(cfg.attention_examples, first.examples)} prompts at T={first.length}")
    attention = _attention(cfg, model, first.prompts[:cfg.attention_examples, mid])
    seconds["attention"] = time.perf_counter() - start
    start = time.perf_counter()
    _LOG.info(f"influence profiles of {min(cfg.profile_examples, first.examples)} prompts at T={first.length}, "
              "trained and at Step 0")
    profiles = _profiles(cfg, model, first.prompts[:cfg.profile_examples, mid], progress)
    seconds["profiles"] = time.perf_counter() - start
    prior = prior_for(model.cfg, first.length)
    prior_row = theory_row(first.length, profiles["alphas"].mean(axis=0), prior=prior)
    start = time.perf_counter()
    baselines = {}
    for name, probes in first.baselines.items():
        _LOG.info(f"scoring the {name} baseline ({probes.examples} examples)")
        scores = score_probes(model, probes, batch=cfg.batch)
        baselines[name] = dict(scores=scores, rates=rates(scores),
                               prompt_tokens=[probes.prompt(e, 0).size for e in range(probes.examples)])
    seconds["baselines"] = time.perf_counter() - start
    return dict(tests=tests, attention=attention, profiles=profiles, prior=prior, prior_row=prior_row,
                length=first.length, baselines=baselines, seconds=seconds)


__all__ = ["load", "measure", "middle_index", "probe_set", "probe_sets"]
