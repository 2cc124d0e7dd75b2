"""Main job: the exact Step-0 "lost in the middle" profile across depth.

    python sims/depth_sweep.py            # default sweep, under a minute on 2 cores
    python sims/depth_sweep.py --smoke    # a small run through every step
    python sims/depth_sweep.py --help

Sweeps depth H, attention weight a (constant and power-law schedules) and
length L plus the continuum limit; writes runs/depth_sweep/<timestamp>/ with
config.json, columns.csv, results.csv, profiles.csv, table.txt, verdict.txt and
four figures. The flags are the fields of lostmid_jax.experiments.depth_sweep.Config;
`lostmid sweep` is the same command.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("depth_sweep"))
