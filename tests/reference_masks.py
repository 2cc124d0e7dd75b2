"""Dense reference masks shared by the decoder (tests/nn) and kernel (tests/kernels) tests (numpy, independent of
lostmid_jax; importable from every test folder: tests/ is on sys.path through tests/conftest.py)."""

import numpy as np


def reference_mask(length, mask, window=None, prefix=None, segments=None):
    """[L, L] bool: which keys j each query i may attend to, from the mask's definition."""
    i, j = np.indices((length, length))
    allowed = {
        "causal": j <= i,
        "bidirectional": np.ones((length, length), bool),
        "sliding_window": (j <= i) & (j > i - (window or 0)),
        "document": j <= i,
        "prefix_lm": (j <= i) | (j < (prefix or 0)),
    }[mask]
    if segments is not None:
        allowed = allowed & (segments[:, None] == segments[None, :])
    return allowed
