"""Input classes for the fuzz suite (hypothesis strategies)."""

import math

import numpy as np
from hypothesis import strategies as st

# values that broke an entry point once, or are easy to get wrong
ODD = [None, "abc", "", "False", "True", "no", True, False, np.bool_(True), -1, 0, 1, 2, 3, -0.5, 0.0, 0.5,
       1.0, 1.5, math.nan, math.inf, -math.inf, 1e308, 1e-300, 10**12, 2**63, np.int64(3), np.int32(2),
       np.float32(0.5), np.float64(0.25), np.array(0.5), np.array(2), np.array([1, 2]), [1, 2], [], (), {},
       object()]

odd = st.sampled_from(ODD)
small_int = st.integers(-3, 40)
real = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, 0.25, 0.5, 1.0])
huge = st.sampled_from([10**9, 10**12, 2**63])  # must be refused at once (sizes that fit are legitimate work)


def size(cap: int = 64):
    """A size: mostly in range (cheap when valid), sometimes odd, sometimes huge (must be refused at once)."""
    fine = st.integers(1, cap)
    return st.one_of(fine, fine, fine, fine, st.integers(-3, 0), odd, huge)


def unit(values=(0.0, 0.25, 0.5, 0.9, 1.0)):
    """A value for a parameter in [0, 1]: mostly in range, sometimes out of range or odd."""
    fine = st.sampled_from(values)
    return st.one_of(fine, fine, fine, fine, real, odd)


def finite_array(value) -> bool:
    arr = np.asarray(value, dtype=np.float64)
    return bool(np.all(np.isfinite(arr)))
