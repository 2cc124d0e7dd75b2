"""Inference-time remedies for "lost in the middle" on a trained model, paired against it.

    python sims/remedies.py --weights DIR                 # the default remedies on a checkpoint with a tokenizer
    python sims/remedies.py --weights DIR --mode tokens   # the token-level probe: any model, no tokenizer
    python sims/remedies.py --smoke                       # a tiny random Llama written here; offline

Measures the unmodified model and each remedy (a larger RoPE base, RoPE
scaling linear / dynamic NTK / YaRN as transformers defines them, marker
tokens at relative positions, the key passage moved first or last, attention
sinks with a window) on the same position-controlled probe: accuracy per
passage with Wilson intervals, attention received, the valley fit, the
influence profile on a few prompts, each remedy's paired difference with a
95% CI and a verdict, and what the Step-0 theory predicts for it. Writes
runs/remedies/<timestamp>/ (accuracy.csv, measurements.csv, effects.csv,
received.csv, influence.csv, table.txt, verdict.txt, figures). The flags are
the fields of lostmid_jax.experiments.remedies.Config; `lostmid remedies` is
the same command.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("remedies", prog="remedies"))
