"""Step 0: Jacobian influence profiles of freshly initialized decoders vs the exact theory.

    python sims/step0_jacobian.py --smoke                  # toy, L = 32, 2 seeds: well under a minute
    python sims/step0_jacobian.py                          # toy-deep (exact, 8 seeds) + gpt2-small (4 seeds)
    python sims/step0_jacobian.py --full                   # ... + qwen2-0.5b (prints its expected time first)
    python sims/step0_jacobian.py --preset qwen2-0.5b      # any preset of lostmid_jax.nn.PRESETS
    python sims/step0_jacobian.py --help

Reproduces the paper's central Step-0 measurement (Chowdhury, arXiv:2603.10123;
the claims: docs/theory.md §5): ||d y_L / d x_j||_F of initialized replicas,
RoPE (or learned positions) on and off, several seeds; compares the mean
profile with theory rows from the measured a_l and a fitted a, every number
with its 95% CI (lostmid_jax.analysis.agreement), and judges each claim:
reproduced, not reproduced within measurement noise, or a systematic misfit
(the chi^2 of the log-profile residuals). Writes runs/step0/<timestamp>/
(resumable with --out). The flags are the fields of
lostmid_jax.experiments.step0.Config; `lostmid step0` is the same command.

Costs in CPU seconds (user + sys) per unit, measured on a shared 2-core
machine: toy-deep exact at L = 512 with the pathway split 19 s, at L = 256
7 s; gpt2-small randomized at L = 1024 with 4 probes, total pathway only,
26 s; plus 20-45 s of compilation per (preset, variant). qwen2-0.5b (L =
2048, 8 probes, total pathway only) took about 4 min wall per unit on an idle
2-core machine, peak RSS 5.1 GB; the pathway split (--split) doubles the
backward passes.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("step0", prog="step0_jacobian"))
