"""Test-wide settings: float64 for JAX, strict numerics.

float64 is enabled here (and at entry points), never inside the library.
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
