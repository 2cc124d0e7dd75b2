"""The benchmark scripts parse, and the training benchmark runs end to end at a tiny size.

Benchmarks are not tests (their numbers live in their docstrings); this only
keeps them runnable. Speed is not checked here.
"""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script", sorted((ROOT / "benchmarks").glob("*.py")), ids=lambda p: p.name)
def test_benchmark_script_compiles(script):
    compile(script.read_text(), str(script), "exec")


@pytest.mark.extended  # a benchmark script in its own process
def test_train_bench_runs_tiny():
    pytest.importorskip("torch")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "train_bench.py"), "--depth", "1", "--width", "16",
                          "--length", "16", "--batch", "4", "--vocab", "16", "--steps", "2"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ratio JAX/PyTorch" in out.stdout and "2 stream(s)" in out.stdout


def test_misfit_false_alarm_cell_counts_rejections():
    """benchmarks/misfit_false_alarm.py at a tiny size: against the tilted reference with iid noise and
    16 seeds the test rejects in most ensembles; against the right one in few."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import misfit_false_alarm as bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    counts = bench.cell("u-shape", "iid-lognormal", 16, 32, 50)
    assert counts["hits"] >= 40 and counts["alarms"] <= 10, counts
