"""Architecture counterfactuals: the exact Step-0 profile under other attention priors.

    python sims/counterfactuals.py            # L=2048, H up to 24, < 1 min
    python sims/counterfactuals.py --smoke    # seconds
    python sims/counterfactuals.py --help

Swaps the Step-0 attention matrix (causal, bidirectional, sliding window,
chunks, prefix-LM, sinks, ALiBi with the paper's or the geometric slopes, a
content prior with a self bonus, and each decoder family's own prior: Llama,
Qwen3, Mistral, BLOOM, MPT) and asks which change removes or moves the dead
zone; the closing table states each family's dead-zone share. Writes
runs/counterfactuals/<timestamp>/ with config.json, columns.csv, results.csv,
profiles.csv, table.txt, verdict.txt and three figures drawn from the CSVs. The flags are the fields
of lostmid_jax.experiments.counterfactuals.Config; `lostmid counterfactuals`
is the same command.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("counterfactuals"))
