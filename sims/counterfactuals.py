"""Architecture counterfactuals: the exact Step-0 profile under other attention priors.

    python sims/counterfactuals.py            # L=2048, H up to 24, < 10 s
    python sims/counterfactuals.py --smoke    # seconds
    python sims/counterfactuals.py --help

Swaps the Step-0 attention matrix (causal, bidirectional, sliding window,
chunks, prefix-LM, sinks, ALiBi) and asks which change removes or moves the
dead zone; writes runs/counterfactuals/<timestamp>/ with config.json,
results.csv, table.txt, verdict.txt and two figures. The flags are the fields
of lostmid_jax.experiments.counterfactuals.Config; `lostmid counterfactuals`
is the same command.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("counterfactuals"))
