"""Test-wide settings: float64 for JAX, strict numerics.

float64 is enabled here (and at entry points), never inside the library.
Test files are imported by their basename (no __init__.py under tests/): two test files with the same
name in different folders stop collection ("import file mismatch"), so each name is unique in tests/.
"""

import os

_PLATFORMS_GIVEN = "JAX_PLATFORMS" in os.environ  # the GPU tier (-m gpu) keeps a user's choice, else sees every device
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# The commands turn on JAX's persistent compilation cache in the user's cache folder; the tests (and the
# commands they start) leave it alone unless a test asks for it in a temporary folder (tests/test_compile_cache.py).
os.environ.setdefault("LOSTMID_COMPILE_CACHE", "0")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

def pytest_configure(config):
    """The default run (-m 'not slow and not extended') compiles with JAX's jax_disable_most_optimizations.

    Its ~1900 tests compile thousands of tiny programs, where XLA's and LLVM's optimization passes cost
    more CPU than they save (about a sixth of the run). Float32 results then differ from the optimized
    build's in the last bits (never beyond float32 rounding). The commands the tests start inherit it
    through JAX_DISABLE_MOST_OPTIMIZATIONS. `-m extended` and `-m slow` (CI runs the first) keep the
    optimizations users get, and tests/test_jax_guard.py checks jit against eager with them on, in a fresh
    process. LOSTMID_TEST_XLA_OPT=default keeps them on everywhere.
    """
    import re

    markexpr = config.getoption("markexpr", "") or ""
    if re.search(r"(?<!not )\bgpu\b", markexpr) and not _PLATFORMS_GIVEN:  # -m gpu: let JAX find the GPU (tests/gpu)
        del os.environ["JAX_PLATFORMS"]
        jax.config.update("jax_platforms", "")
    default_run = "not slow" in markexpr and "not extended" in markexpr
    if default_run and os.environ.get("LOSTMID_TEST_XLA_OPT", "fast") == "fast":
        os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
        jax.config.update("jax_disable_most_optimizations", True)


# --- outputs recorded before the experiments moved to lostmid_jax/experiments (tests/data/golden) ---
import csv  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402

import pytest  # noqa: E402

GOLDEN = pathlib.Path(__file__).parent / "data" / "golden"


def _cells_match(old: str, new: str, rtol: float) -> bool:
    if old == new:
        return True
    try:
        a, b = float(old), float(new)
    except ValueError:
        return False
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=rtol, abs_tol=1e-300)


def assert_same_as_golden(run_dir, prefix: str, names, *, rtol: float, ignore_columns=(),
                          added_columns=()) -> list[str]:
    """Each file of ``run_dir`` equals tests/data/golden/<prefix>_<name>, written by the code before the
    experiments moved (the same flags): text files byte for byte; CSV files cell for cell, numbers within
    ``rtol`` (so that a CPU whose libm rounds differently in the last bit does not fail the test), with
    exactly the ``added_columns`` written since (left out of the comparison; the old columns keep their order).
    Returns the names that were byte-identical."""
    identical = []
    for name in names:
        old_path, new_path = GOLDEN / f"{prefix}_{name}", pathlib.Path(run_dir) / name
        old, new = old_path.read_bytes(), new_path.read_bytes()
        if old == new:
            identical.append(name)
            continue
        assert name.endswith(".csv"), f"{name} differs from {old_path.name}"
        old_rows = list(csv.reader(old.decode().splitlines()))
        new_rows = list(csv.reader(new.decode().splitlines()))
        assert [c for c in new_rows[0] if c not in added_columns] == old_rows[0], f"{name}: columns differ"
        assert len(old_rows) == len(new_rows), f"{name}: row count differs"
        where = {c: i for i, c in enumerate(new_rows[0])}
        keep = [(i, where[c]) for i, c in enumerate(old_rows[0]) if c not in ignore_columns]
        for k, (a, b) in enumerate(zip(old_rows[1:], new_rows[1:])):
            for i, j in keep:
                assert _cells_match(a[i], b[j], rtol), f"{name} row {k + 1} column {old_rows[0][i]}: {a[i]} != {b[j]}"
    return identical


@pytest.fixture
def golden():
    return assert_same_as_golden


# --- one run per experiment, shared by every test that reads it (tests/runs/test_load.py, test_plot.py,
# test_report.py and each experiment's own tests in tests/experiments) ---
ROOT = pathlib.Path(__file__).resolve().parents[1]
# The flags of each shared run: ``--smoke`` unless an experiment's own tests need other flags. step0's tests
# compare with tests/data/golden/step0_toy16_* (these flags, not --smoke; its --smoke path is checked by
# tests/experiments/test_step0.py::test_smoke_verdict_says_it_cannot_test_the_claims).
SHARED_FLAGS = {
    "step0": ["--preset", "toy", "--length", "16", "--seeds", "2", "--variants", "native,nopos", "--heat-length", "8",
              "--n-boot", "200"],
}
# experiments whose shared run is made by their sims/ script as a separate process (its stdout is kept)
AS_FILE = {"counterfactuals": "counterfactuals.py"}


@pytest.fixture(scope="session")
def smoke_runs(tmp_path_factory):
    """smoke_runs(name) -> the run directory of ``lostmid <command> --smoke`` (or SHARED_FLAGS[name]) for
    experiment module ``name`` (a key of lostmid_jax.experiments.EXPERIMENTS), made once per session on first
    use with every outbound connection refused; smoke_runs.stdout[name] is the output of a run made by its
    sims/ script (AS_FILE). Read it; never write into it (copy it first, or write elsewhere)."""
    import socket
    import subprocess
    import sys

    from lostmid_jax import cli
    from lostmid_jax.experiments import EXPERIMENTS

    made, failed = {}, {}

    def refuse(self, address):
        raise AssertionError(f"network access to {address} during a smoke run")

    def get(name: str) -> pathlib.Path:
        if name in failed:
            pytest.fail(f"the shared run of {name} failed earlier: {failed[name]}")
        if name not in made:
            out = tmp_path_factory.mktemp(f"smoke_{name}") / "run"
            flags = [*SHARED_FLAGS.get(name, ["--smoke"]), "--no-progress", "--out", str(out)]
            try:
                if name in AS_FILE:
                    proc = subprocess.run([sys.executable, str(ROOT / "sims" / AS_FILE[name]), *flags],
                                          capture_output=True, text=True, timeout=300, cwd=ROOT)
                    assert proc.returncode == 0, proc.stderr[-4000:]
                    get.stdout[name] = proc.stdout
                else:
                    with pytest.MonkeyPatch.context() as mp:
                        mp.setattr(socket.socket, "connect", refuse)
                        assert cli.main([EXPERIMENTS[name][0], *flags]) == 0
            except BaseException as err:
                failed[name] = repr(err)
                raise
            made[name] = out
        return made[name]

    get.stdout = {}
    get.flags = lambda name: list(SHARED_FLAGS.get(name, ["--smoke"]))  # the flags of a shared run
    return get
