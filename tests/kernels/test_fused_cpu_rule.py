"""The fused C++ kernel's copy of the mask rule (attention.cc MaskRule) equals the mask classes' ``allows``.

With q = k = 0 every score is 0, so the kernel's softmax is uniform over the
keys its rule allows; with v the one-hot rows v_j = e_j (head dim L), output
row i is 1_{S_i} / |S_i|. Its support is the kernel's allowed set, compared
with ``MaskSpec(kind, ...).rule.allows`` (lostmid_jax/masks) on index arrays.
"""

import jax.numpy as jnp
import numpy as np
import pytest

from lostmid_jax import masks
from lostmid_jax.kernels import fused_cpu
from lostmid_jax.kernels.fused_cpu import MASK_CODES, FusedSpec, fused_attention

SPECS = [masks.MaskSpec("causal"), masks.MaskSpec("bidirectional")]
SPECS += [masks.MaskSpec("sliding_window", window=w) for w in (1, 3, 9, 40)]
SPECS += [masks.MaskSpec("prefix_lm", prefix=n) for n in (0, 1, 5, 40)]


@pytest.fixture(scope="module", autouse=True)
def kernel():
    if not fused_cpu.available():  # tests/kernels/test_fused_cpu.py requires the build; here it only skips
        pytest.skip(fused_cpu.unavailable_reason())


def kernel_allowed(spec: masks.MaskSpec, length: int) -> np.ndarray:
    """[L, L] bool: the keys the kernel attends to, read from uniform attention over one-hot values."""
    q = jnp.zeros((1, length, 1, 1, length), jnp.float32)
    k = jnp.zeros((1, length, 1, length), jnp.float32)
    v = jnp.eye(length, dtype=jnp.float32)[None, :, None, :]
    out = np.asarray(fused_attention(q, k, v, FusedSpec(spec)))[0, :, 0, 0, :]
    allowed = out > 0
    np.testing.assert_allclose(out[allowed], np.repeat(1.0 / allowed.sum(axis=1), allowed.sum(axis=1)), rtol=1e-6)
    return allowed


def test_every_kernel_kind_is_tested():
    assert {spec.kind for spec in SPECS} == set(MASK_CODES)


@pytest.mark.parametrize("length", [1, 7, 20])
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.kind}-{s.window or s.prefix}")
def test_kernel_rule_equals_the_mask_class(spec, length):
    i, j = np.indices((length, length))
    np.testing.assert_array_equal(kernel_allowed(spec, length), np.asarray(spec.rule.allows(i, j)))
