"""A trained model back from a micro-training run directory, ready to use or to export.

    cfg, model = load_trained("runs/micro_training/<timestamp>", seed=0)        # newest intact step
    logits = model.lm(tokens)                                                   # [L] int -> [L, V]
    nn.save_hf(model, cfg.model, "out/toy")     # then nn.load_hf("out/toy") or transformers reads it

A micro-training run directory holds one training run per (intervention, seed)
in ``<run_dir>/<intervention>/seed<k>/`` (train_config.json, ckpt/<step>/, see
:mod:`.loop`); ``run_dir`` may also be one such training run itself.
"""

from __future__ import annotations

import json
import pathlib

from flax import nnx

from ..untrusted import read_json_object
from . import checkpoint
from .config import INTERVENTIONS, TrainConfig, intervention_dirs, intervention_name


def _run_path(run_dir: pathlib.Path, intervention: str, seed: int) -> pathlib.Path:
    if (run_dir / "train_config.json").is_file():  # one training run itself
        return run_dir
    intervention = intervention_name(intervention)
    if intervention not in INTERVENTIONS:
        raise ValueError(f"intervention must be one of {INTERVENTIONS}, got {intervention!r}")
    trained = sorted(p.name for p in run_dir.iterdir() if p.is_dir()
                     and any((q / "train_config.json").is_file() for q in p.glob("seed*")))
    intervention = next((d for d in intervention_dirs(intervention) if d in trained), intervention)
    if intervention not in trained:
        raise ValueError(f"intervention={intervention!r}: run directory {run_dir} holds no such training run "
                         f"(it has {trained or 'none'})")
    seeds = sorted(int(q.name[4:]) for q in (run_dir / intervention).glob("seed*")
                   if q.name[4:].isdigit() and (q / "train_config.json").is_file())
    if seed not in seeds:
        raise ValueError(f"seed={seed}: run directory {run_dir / intervention} holds seeds {seeds}")
    return run_dir / intervention / f"seed{seed}"


def load_trained(run_dir, *, seed: int = 0, step: int | None = None,
                 intervention: str = "none") -> tuple[TrainConfig, nnx.Module]:
    """(cfg, model): the TrainConfig of one training run and its Decoder after ``step`` steps.

    Args:
      run_dir: a micro-training run directory (or one ``<intervention>/seed<k>`` run inside it).
      seed: which seed's run (ignored when ``run_dir`` is one training run).
      step: the checkpoint step (None: the newest intact one).
      intervention: which intervention's run ("none", the baseline, by default).

    Returns:
      ``cfg`` (TrainConfig; ``cfg.model`` is the DecoderConfig) and the Decoder with the checkpoint's
      parameters: ``nn.save_hf(model, cfg.model, path)`` exports it.

    Raises:
      ValueError: naming ``run_dir``, ``seed``, ``intervention`` or ``step`` when it is not in the run
        directory (the message lists what is there).
      CheckpointError: the chosen checkpoint is corrupt or does not match the run's config.
    """
    from ..validation import check_int
    from .loop import init_state

    run_dir = pathlib.Path(run_dir)
    if not run_dir.is_dir():
        raise ValueError(f"run_dir: {str(run_dir)!r} is not a directory")
    seed = check_int("seed", seed, 0)
    path = _run_path(run_dir, intervention, seed)
    record = read_json_object(path / "train_config.json", "run_dir")
    try:
        cfg = TrainConfig(**record)
    except (ValueError, TypeError) as err:
        raise ValueError(f"run_dir: {path / 'train_config.json'} is not a TrainConfig ({err})") from None
    graphdef, params, opt_state = init_state(cfg)
    mngr = checkpoint.checkpoint_manager(path / "ckpt", cfg)
    try:
        steps = checkpoint.intact_steps(mngr)
        if step is None:
            if not steps:
                raise ValueError(f"run_dir: {path / 'ckpt'} holds no intact checkpoint")
            step = steps[-1]
        step = check_int("step", step, 0)
        if step not in steps:
            raise ValueError(f"step={step}: {path / 'ckpt'} holds intact checkpoints at steps {steps}")
        params, _ = checkpoint.restore_step(mngr, step, params, opt_state)
    finally:
        mngr.close()
    return cfg, nnx.merge(graphdef, params)


def export_hf(run_dir, out, *, seed: int = 0, step: int | None = None, intervention: str = "none"):
    """A trained run's model as a Hugging Face directory: ``nn.save_hf`` plus a word-level tokenizer built with
    the `tokenizers` library in which the word "t<i>" is token id i (i >= 2; id 0 is [UNK], 1 is [BOS]).

    The tasks speak in token ids, so the tokenizer only names them; it makes the directory a complete
    checkpoint that probes.load_tokenizer (and the `tokenizers` library) read. Arguments as
    :func:`load_trained`; returns (cfg, ``out`` as a Path).
    """
    from ..nn import save_hf
    from ..retrieval.tokenizer_builders import save_tokenizer, word_tokenizer

    cfg, model = load_trained(run_dir, seed=seed, step=step, intervention=intervention)
    out = pathlib.Path(out)
    save_hf(model, cfg.model, out)
    save_tokenizer(word_tokenizer([f"t{i}" for i in range(2, cfg.vocab)]), out)
    return cfg, out
