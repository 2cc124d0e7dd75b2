"""Step-0 study: the noise, the convergence and the theory that predicts the Step-0 profile from the weights.

    python sims/step0_study.py --smoke                         # under a minute
    python sims/step0_study.py --preset toy-deep --seeds 32   # exact, L = 512, plus the width-noise grid
    python sims/step0_study.py --preset gpt2-small --seeds 4 --probes 8 --noise-widths ""
    python sims/step0_study.py --help

Writes runs/step0_study/<timestamp>/ (resumable with --out): variants.csv
(five theory variants scored on held-out seeds, raw and binned, with 95% CIs
and the noise ceiling), convergence.csv, ceiling.csv, profiles.csv,
layers.csv (a_l, g_l, attention uniformity per layer), noise.csv, the
figures, table.txt and verdict.txt. The flags are the fields of
lostmid_jax.experiments.step0_study.Config; `lostmid step0-study` is the
same command. Protocol and measured results: docs/step0.md.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("step0_study", prog="step0_study"))
