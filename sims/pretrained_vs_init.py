"""Pretrained Hugging Face weights vs a random init of the same architecture, against theory.

    python sims/pretrained_vs_init.py --weights path/to/gpt2 --smoke      # seconds
    python sims/pretrained_vs_init.py --weights path/to/gpt2              # L = 256, 4 seeds
    python sims/pretrained_vs_init.py --weights path/to/Qwen2-0.5B --method randomized --length 1024
    python sims/pretrained_vs_init.py --help

Loads a local GPT-2 or Qwen2 checkpoint directory (config.json +
model.safetensors, or a sharded index) with lostmid_jax.nn.load_hf, measures
the Jacobian influence profile ||d y_L / d x_j||_F of the pretrained model and
of a random init at the same L, compares both with theory rows (measured a_l
and a fitted constant a), and writes runs/pretrained_vs_init/<timestamp>/ with
config.json, metrics.csv, profiles.csv, alphas.csv, table.txt and
profiles.png. The flags are the fields of
lostmid_jax.experiments.pretrained_vs_init.Config; `lostmid compare` is the
same command.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("pretrained_vs_init", prog="pretrained_vs_init"))
