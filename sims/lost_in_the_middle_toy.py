"""A model that is lost in the middle (or not), made here: micro-train, export, diagnose, test remedies.

    python sims/lost_in_the_middle_toy.py                   # the recipe (a few CPU-minutes), into runs/toy_litm/<timestamp>/
    python sims/lost_in_the_middle_toy.py --smoke           # the same steps at a tiny size
    python sims/lost_in_the_middle_toy.py --out DIR --steps 1500

No weights can be downloaded, so the recipe trains its own:

1. `lostmid train --task passages`: a toy decoder (Qwen2-like: RoPE, GQA,
   SwiGLU, RMSNorm) learns the templated passage retrieval of
   ``probes.token_probes`` (k passages of filler ids, a key-value fact in one,
   then the separator and the key; answer: the value) with the needle passage
   drawn uniformly, plus an induction warm-up on repeated random sequences
   (train/tasks.py);
2. exports the trained model with ``nn.save_hf`` and a word-level tokenizer
   built with the `tokenizers` library (word "t<i>" is id i), so any
   Hugging Face tool reads the directory;
3. `lostmid diagnose --mode tokens` (when the installed package has it) and
   `lostmid remedies --mode tokens` on the exported checkpoint: accuracy by the
   fact's passage with Wilson intervals, attention received, the valley fit, and
   each inference-time remedy paired against the trained model.

The result of one run, and whether it shows a middle dip, is in
docs/lost_in_the_middle_toy.md.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

TRAIN = dict(task="passages", kv_pairs=5, needle_bins=5, passage_length=64, kv_batch=64, lm_batch=64, lr=5e-3,
             warmup=20, eval_per_bin=64, streams=1)
MODEL = dict(width=64, depth=2, heads=4, kv_heads=2, vocab=64)
SMOKE_TRAIN = dict(TRAIN, passage_length=24, kv_batch=8, lm_batch=4, eval_per_bin=4, kv_pairs=3, needle_bins=3)
SMOKE_MODEL = dict(width=16, depth=1, heads=2, kv_heads=1, vocab=40)
REMEDIES = ("rope_base:4", "rope_scaling:linear:2", "rope_scaling:dynamic:2", "rope_scaling:yarn:2",
            "markers:0.25/0.5/0.75", "reorder:first", "reorder:last", "sinks:4:16")


def train_config(steps: int, smoke: bool):
    """The micro_training Config of the recipe: the baseline only, one seed."""
    from lostmid_jax.experiments import micro_training
    from lostmid_jax.train.config import TrainConfig, toy_model

    fields, model = (SMOKE_TRAIN, SMOKE_MODEL) if smoke else (TRAIN, MODEL)
    snapshots = tuple(sorted({0, steps // 4, steps // 2, steps}))
    base = TrainConfig(steps=steps, model=toy_model(**model), snapshot_steps=snapshots, ckpt_every=steps, **fields)
    return micro_training.Config(base=base, seeds=(0,), interventions=())


def probe_flags(train_cfg, *, examples: int) -> list[str]:
    """The token-probe flags that match the training task (same k, key and value sizes; T by the caller)."""
    base = train_cfg.base
    return ["--mode", "tokens", "--passages", str(base.kv_pairs), "--key-tokens", str(base.passage_key_tokens),
            "--value-tokens", "1", "--examples", str(examples), "--candidates", "5"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="lost_in_the_middle_toy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=None, help="recipe directory (default runs/toy_litm/<time>)")
    parser.add_argument("--steps", type=int, default=1500, help="training steps (default 1500)")
    parser.add_argument("--examples", type=int, default=100, help="probe examples per remedy (default 100)")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: every step runs, the numbers mean nothing")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    from lostmid_jax import cli, compile_cache
    from lostmid_jax.experiments import EXPERIMENTS, execute, micro_training
    from lostmid_jax.train import export_hf

    compile_cache.configure()
    steps, examples = (5, 6) if args.smoke else (args.steps, args.examples)
    out = args.out or pathlib.Path("runs") / "toy_litm" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    train_cfg = train_config(steps, args.smoke)
    start = time.process_time()
    execute(micro_training, train_cfg, out / "train", progress=not args.no_progress)
    _, model_dir = export_hf(out / "train", out / "toy_model")
    flags = ["--weights", str(model_dir), *probe_flags(train_cfg, examples=examples), "--no-progress"]
    if args.smoke:
        flags += ["--n-boot", "200"]
    length = str(train_cfg.base.passage_length)
    if "diagnose" in EXPERIMENTS:
        cli.main(["diagnose", *flags, "--lengths", length, "--attention-examples", "8",
                  "--out", str(out / "diagnose")])
    remedies = REMEDIES if not args.smoke else ("rope_base:4", "reorder:last", "sinks:2:8")
    cli.main(["remedies", *flags, "--lengths", length, "--remedies", ",".join(remedies), "--marker", "1", "--context",
              str(train_cfg.base.passage_length), "--attention-examples", "8", "--influence-examples",
              "0" if args.smoke else "4", "--out", str(out / "remedies")])
    print(f"recipe done in {time.process_time() - start:.0f} s of CPU (this process) -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
