"""Cost terms of the masks (sizes as floats, the dense-matrix budget), checked against :mod:`lostmid_jax.resources`.

The per-kind terms of a structured row are each class's ``cost_terms``; the
cost model itself (ns per entry, per numpy call, per big number) is
:mod:`lostmid_jax.theory._costs`.
"""

from __future__ import annotations

import math

from ..resources import check_budget

FLOAT_BYTES = 8


def num(n) -> float:
    """An int size as a float; inf past float range (10**400 layers cost inf, and are refused)."""
    try:
        return float(n)
    except OverflowError:
        return math.inf


def check_dense(name: str, length: int, *, exact: bool, copies: float = 3.0, per_entry_ns: float = 10.0,
                heads: int = 0) -> None:
    """Budget of a dense L x L matrix (float64, or Fraction objects when ``exact``)."""
    entries = num(length) * num(length)
    if exact:
        nbytes, operations = entries * 120 * copies, entries * per_entry_ns
    else:
        nbytes, operations = entries * FLOAT_BYTES * (copies + heads), entries * per_entry_ns * max(1, heads)
    what = f"{name}: length={length}" + (f", n_heads={heads}" if heads else "") + (", exact=True" if exact else "")
    check_budget(what + " (a dense length x length matrix)", nbytes=nbytes, operations=operations)
