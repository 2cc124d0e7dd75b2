"""nn/capture.py: what a forward pass records, and per-layer slices of the records."""

import jax
import jax.numpy as jnp
import pytest

from lostmid_jax.nn.capture import Capture, Intermediates


def test_capture_switches_are_checked():
    assert Capture() == Capture(norms=True, probs=False)
    for bad in (dict(norms=1), dict(probs="yes")):
        with pytest.raises(ValueError, match=next(iter(bad))):
            Capture(**bad)


def test_intermediates_are_a_pytree_sliced_by_layer():
    record = Intermediates(resid_norm=jnp.arange(6.0).reshape(3, 2), attn_out_norm=jnp.ones((3, 2)))
    assert record.layer(1).resid_norm.tolist() == [2.0, 3.0] and record.layer(1).attn_probs is None
    doubled = jax.tree.map(lambda v: 2 * v, record)
    assert doubled.resid_norm[2].tolist() == [8.0, 10.0] and doubled.mlp_out_norm is None
    assert len(jax.tree.leaves(record)) == 2  # fields not captured are not leaves
