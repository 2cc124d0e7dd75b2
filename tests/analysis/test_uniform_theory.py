"""Uniform-attention linear stacks: the measured profile is the exact theory row."""

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax import theory
from lostmid_jax.analysis import influence_profile
from lostmid_jax.stats import profile_metrics as metrics
from lostmid_jax.analysis.theory_fit import fit_constant_alpha, theory_row
from lostmid_jax.nn import Decoder, DecoderConfig

from analysis_helpers import make_input


def linear_stack(depth, mix, width=8, heads=2):
    """x <- (1 - a_l) x + a_l M x exactly: uniform causal attention, identity value/output maps."""
    cfg = DecoderConfig(depth=depth, width=width, heads=heads, attention="linear-value", norm="none",
                        mlp="none", final_norm=False, attn_mix=mix, param_dtype="float64")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    eye = jnp.broadcast_to(jnp.eye(width), (depth, width, width))
    model.blocks.attn.v.kernel[...] = eye
    model.blocks.attn.o.kernel[...] = eye
    return model


@pytest.mark.parametrize("mix", [0.35, (0.9, 0.2, 1.0, 0.35)])
def test_profile_is_the_theory_row(mix):
    depth, length = 4, 40
    model = linear_stack(depth, mix)
    prof = influence_profile(model, make_input(model, length))
    w = theory.influence_row(length, depth, mix)
    # J_j = w_j I_D, so ||J_j||_F = w_j sqrt(D)
    np.testing.assert_allclose(prof.norms / np.sqrt(model.cfg.width), w, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(metrics.to_distribution(prof.norms), theory_row(length, np.broadcast_to(mix, depth)), rtol=1e-10)
    if not isinstance(mix, tuple):  # the fitted constant a recovers the stack's a
        assert fit_constant_alpha(prof.norms, depth) == pytest.approx(mix, abs=1e-4)
        assert fit_constant_alpha(prof.norms, depth, objective="wasserstein") == pytest.approx(mix, abs=1e-3)
