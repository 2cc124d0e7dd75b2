"""Pretrained Hugging Face weights vs a random init of the same architecture, against theory.

    python sims/pretrained_vs_init.py --smoke                               # offline: a tiny random GPT-2
    python sims/pretrained_vs_init.py --weights path/to/gpt2                # a local checkpoint directory
    python sims/pretrained_vs_init.py --weights openai-community/gpt2       # a hub id in the local HF cache
    python sims/pretrained_vs_init.py --weights Qwen/Qwen2-0.5B --allow-download --method randomized --length 1024
    python sims/pretrained_vs_init.py --help

Checkpoints are offline-first: --weights takes a local directory (config.json
+ model.safetensors, or a sharded index) or a Hugging Face hub id, looked up
in the local cache only (fetch one with `hf download ID`, or pass
--allow-download); any family lostmid_jax.nn.load_hf reads. --smoke without
--weights writes a tiny random GPT-2 with save_hf into the run directory and
needs no network. Measures the Jacobian influence profile ||d y_L / d x_j||_F
of the pretrained model and of a random init at the same L over S seeds,
compares each with the Step-0 theory rows of its architecture (measured a_l,
fitted constant a) and the two with each other (Spearman and Wasserstein-1
with 95% bootstrap CIs over seeds, lostmid_jax.analysis.agreement), and
writes runs/pretrained_vs_init/<timestamp>/ with config.json, columns.csv,
metrics.csv, agreement.csv, profiles.csv, alphas.csv, table.txt, verdict.txt
and fig1_profiles.png. The flags are the fields of
lostmid_jax.experiments.pretrained_vs_init.Config; `lostmid compare` is the
same command.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("pretrained_vs_init", prog="pretrained_vs_init"))
