"""Small decoders shared by the analysis tests (float64 unless a test asks otherwise).

Every test uses the same few configurations and lengths, so jit compilations
(keyed on the graph definition and shapes) are shared across tests.
"""

import jax
import jax.numpy as jnp
from flax import nnx

from lostmid_jax.nn import Decoder, preset

LENGTH = 16


def make_model(dtype="float64", seed=0, **overrides):
    """The toy preset (Qwen2-like, D = 32, H = 2) with overrides."""
    return Decoder(preset("toy", param_dtype=dtype, **overrides), rngs=nnx.Rngs(seed))


def make_input(model, length=LENGTH, seed=1):
    """x ~ N(0, 1), [L, D] in the model's compute dtype."""
    return jax.random.normal(jax.random.key(seed), (length, model.cfg.width), jnp.dtype(model.cfg.compute_dtype))
