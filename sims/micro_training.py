"""Micro-training: how the U, and each pathway, evolve over the first 100 steps.

    python sims/micro_training.py            # default CPU run: 120 s on an idle 2-core CPU (316 s under load before)
    python sims/micro_training.py --smoke    # 25 s of CPU cold (empty JAX compilation cache), 15 s warm
    python sims/micro_training.py --out runs/mt   # re-run the same command to resume

Baseline and interventions (middle-weighted loss, oversampled middle needles,
middle-first curriculum) over shared seeds on a synthetic corpus of documents
plus key-value retrieval; writes config.json, columns.csv, snapshots.csv,
profiles.csv, strength.csv, accuracy.csv, documents.csv, verdict.txt, figures
and per-run metrics.jsonl / ckpt/ (lostmid_jax.train.load_trained(run_dir,
seed=k) gives a run's model back). The flags are the
fields of lostmid_jax.experiments.micro_training.Config (its TrainConfig
`base` and the trained model's DecoderConfig flattened); `lostmid train` is
the same command.

Measured (default, seeds 0-2, step 100; chance 1/15 = 0.067): retrieval
accuracy baseline 0.575 +- 0.060, middle_weighted_loss (then called middle_loss) 0.508 +- 0.042,
oversample_middle 0.435 +- 0.098, curriculum 0.594 +- 0.084 (all 0.000 at
step 0); document-local U +0.056 +- 0.014 (step 0: +0.055 +- 0.004); boundary
spike +0.503 +- 0.053. The "shared" retrieval format (--kv-format shared,
Liu et al.'s) is not learned at this size: 0.002 +- 0.001 at step 100
(chance 0.071); with the former defaults (lr 3e-3, kv_batch 32, vocab 64)
0.02-0.04, and 0.125 after 2000 retrieval-only steps.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("micro_training", prog="micro_training"))
