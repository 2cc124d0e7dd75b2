"""Diagnose a trained model: position-controlled retrieval, attention received, valley fits, its prior's share.

    python sims/diagnose.py --smoke                                  # offline: a tiny random Llama + word tokenizer
    python sims/diagnose.py --weights path/to/checkpoint             # text probe with the checkpoint's tokenizer
    python sims/diagnose.py --weights path/to/checkpoint --mode tokens --lengths 2048  # ids only, any model
    python sims/diagnose.py --weights DIR --corpus my_paragraphs/ --facts my_facts.jsonl
    python sims/diagnose.py --help

--weights takes a local directory (config.json + safetensors, with its
tokenizer for the text probe) or a hub id in the local cache; any family
lostmid_jax.nn.load_hf reads. Writes runs/diagnose/<timestamp>/ with
accuracy.csv, examples.csv, gaps.csv, attention.csv, heatmap.csv,
profiles.csv, valley.csv, birth.csv, table.txt, verdict.txt and four figures.
The flags are the fields of lostmid_jax.experiments.diagnose.Config;
`lostmid diagnose` is the same command.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("diagnose", prog="diagnose"))
