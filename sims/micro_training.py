"""Micro-training: how the U, and each pathway, evolve over the first 100 steps.

    python sims/micro_training.py            # default CPU run (see the report for its time)
    python sims/micro_training.py --smoke    # < 2 minutes
    python sims/micro_training.py --out runs/mt   # re-run the same command to resume

Baseline and interventions (middle-weighted loss, oversampled middle needles,
middle-first curriculum) over shared seeds on a chunked synthetic corpus plus
key-value retrieval; writes config.json, snapshots.csv, profiles.csv,
verdict.txt, figures and per-run metrics.jsonl / ckpt/. `lostmid train` is the
same command.
"""

import sys

from lostmid_jax.cli.train import main

if __name__ == "__main__":
    sys.exit(main())
