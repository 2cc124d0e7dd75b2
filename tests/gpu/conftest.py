"""The GPU tier (``python -m pytest -m gpu``): every test here is marked ``gpu`` and is skipped where JAX sees no
GPU. Neither the default run nor ``-m extended`` selects them; CI runs neither (docs/performance.md)."""

import jax
import pytest


@pytest.fixture(scope="session")
def gpu():
    """The first GPU device (skips the test where jax.devices("gpu") finds none)."""
    try:
        devices = jax.devices("gpu")
    except RuntimeError as err:  # no GPU backend (a CPU-only jaxlib, or JAX_PLATFORMS without it)
        pytest.skip(f"no GPU device: {str(err).splitlines()[0]}")
    if not devices:
        pytest.skip("no GPU device")
    return devices[0]


@pytest.fixture(scope="session")
def cpu():
    return jax.devices("cpu")[0]


@pytest.fixture(autouse=True)
def highest_precision():
    """float32 matrix products at full precision on both devices (no TF32 on the GPU): CPU and GPU then
    agree to float32 rounding."""
    with jax.default_matmul_precision("highest"):
        yield
