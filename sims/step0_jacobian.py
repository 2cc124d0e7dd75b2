"""Step 0: Jacobian influence profiles of freshly initialized decoders vs the exact theory.

    python sims/step0_jacobian.py --smoke                  # about a minute
    python sims/step0_jacobian.py --preset toy             # exact, L = 1024, 8 seeds
    python sims/step0_jacobian.py --preset qwen2-0.5b      # randomized, L = 2048
    python sims/step0_jacobian.py                          # every preset (long)
    python sims/step0_jacobian.py --help

Reproduces the paper's central Step-0 measurement (Chowdhury, arXiv:2603.10123):
||d y_L / d x_j||_F for toy, GPT-2 small/medium and Qwen2-0.5B replicas, RoPE
(or learned positions) on and off, a RoPE base sweep, several seeds; compares
with theory rows from measured a_l and a fitted a; writes
runs/step0/<timestamp>/ (resumable with --out). The flags are the fields of
lostmid_jax.experiments.step0.Config; `lostmid step0` is the same command.

Measured with the blocked attention backward (nn/attention_core.py) on an idle
2-core machine: qwen2-0.5b default (2 units: RoPE on / off, L = 2048, 8 probes,
total pathway only) 8 min 9 s wall (~4 min per unit), peak RSS 5.1 GB
(`/usr/bin/time -v python sims/step0_jacobian.py --preset qwen2-0.5b`). The
pathway split (--split) doubles the backward passes (~16 min for qwen2).
Before the blocked backward, on a loaded machine (load 4-12): toy default (40
units, exact, L = 1024) 30 min; gpt2-small, 8 probes, --no-split: 6-9 min per
unit, peak RSS 2.9 GB.
"""

import sys

from lostmid_jax.experiments.script import main

if __name__ == "__main__":
    sys.exit(main("step0", prog="step0_jacobian"))
