"""The math and the package root import no jax, flax, matplotlib or tqdm.

The imports run in one fresh interpreter (this test process already holds jax),
which reports the heavy modules loaded after each step; the set only grows, so
each step's own imports are checked. jax loads only when ``backend="jax"`` is asked for.
"""

import json
import subprocess
import sys

HEAVY = ("jax", "flax", "matplotlib", "tqdm")
MODULES = ["lostmid_jax", "lostmid_jax.theory", "lostmid_jax.validation"]
THEORY_ROWS = ("from lostmid_jax import theory\n"
               "theory.log_influence_row(64, 4, 0.5, prior=theory.SlidingWindow(8))\n"
               "theory.influence_row(16, 3, 0.5, backend='exact')\n"
               "theory.summarize_log_row(theory.log_influence_row(64, 4, 0.5))\n")
JAX_ROW = "theory.influence_row(16, 3, 0.5, backend='jax')"


def _loaded_after_each(steps: list[str]) -> list[list[str]]:
    """The HEAVY modules in sys.modules after each code step, run in order in one new interpreter."""
    lines = ["import sys, json", "seen = []"]
    for code in steps:
        lines += [code, f"seen.append([m for m in {HEAVY!r} if m in sys.modules])"]
    lines.append("print(json.dumps(seen))")
    out = subprocess.run([sys.executable, "-c", "\n".join(lines)], capture_output=True, text=True, check=True,
                         timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_imports_and_theory_rows_leave_heavy_modules_out_until_jax_is_asked_for():
    steps = [f"import {m}" for m in MODULES] + [THEORY_ROWS, JAX_ROW]
    seen = _loaded_after_each(steps)
    assert dict(zip(steps, seen)) == {**{s: [] for s in steps[:-1]}, JAX_ROW: ["jax"]}
