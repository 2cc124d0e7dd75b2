"""The math and the package root import no jax, flax, matplotlib or tqdm.

Each import runs in a fresh interpreter (this test process already holds jax).
jax loads only when ``backend="jax"`` is asked for.
"""

import json
import subprocess
import sys

import pytest

HEAVY = ("jax", "flax", "matplotlib", "tqdm")


def _loaded_after(code: str) -> list[str]:
    """The HEAVY modules in sys.modules after running ``code`` in a new interpreter."""
    probe = f"import sys, json\n{code}\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", ["lostmid_jax", "lostmid_jax.theory", "lostmid_jax.validation"])
def test_import_leaves_heavy_modules_out(module):
    assert _loaded_after(f"import {module}") == []


def test_theory_rows_run_without_jax_until_asked_for():
    code = ("from lostmid_jax import theory\n"
            "theory.log_influence_row(64, 4, 0.5, prior=theory.SlidingWindow(8))\n"
            "theory.influence_row(16, 3, 0.5, backend='exact')\n"
            "theory.summarize_log_row(theory.log_influence_row(64, 4, 0.5))\n"
            "assert 'jax' not in sys.modules\n"
            "theory.influence_row(16, 3, 0.5, backend='jax')")
    assert _loaded_after(code) == ["jax"]
