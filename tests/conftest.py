"""Test-wide settings: float64 for JAX, strict numerics.

float64 is enabled here (and at entry points), never inside the library.
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)


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


def assert_same_as_golden(run_dir, prefix: str, names, *, rtol: float, ignore_columns=()) -> list[str]:
    """Each file of ``run_dir`` equals tests/data/golden/<prefix>_<name>, written by the code before the
    experiments moved (the same flags): text files byte for byte; CSV files cell for cell, numbers within
    ``rtol`` (so that a CPU whose libm rounds differently in the last bit does not fail the test).
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
        assert old_rows[0] == new_rows[0], f"{name}: columns differ"
        assert len(old_rows) == len(new_rows), f"{name}: row count differs"
        keep = [i for i, c in enumerate(old_rows[0]) if c not in ignore_columns]
        for k, (a, b) in enumerate(zip(old_rows[1:], new_rows[1:])):
            for i in keep:
                assert _cells_match(a[i], b[i], rtol), f"{name} row {k + 1} column {old_rows[0][i]}: {a[i]} != {b[i]}"
    return identical


@pytest.fixture
def golden():
    return assert_same_as_golden
