"""Per-layer attention-strength schedules a_1..a_H.

Every function returns a tuple of H floats in [0, 1], ready for the
``alpha`` argument of the theory functions.
"""

from __future__ import annotations

from ..validation import check_float_like
from . import _costs
from ._validate import check_alpha, check_depth


def power_law_schedule(depth: int, a0: float, b: float) -> tuple[float, ...]:
    """a_l = a0 (l + 1)^(-b) for l = 0..H-1 (layer 0 gets a0).

    Args:
      depth: H >= 0.
      a0: strength of the first layer, in [0, 1].
      b: decay exponent, finite and >= 0 (b = 0 is the constant schedule).

    Raises:
      ValueError: naming the argument; for a depth whose tuple would be over
        the limits of :mod:`.resources` (e.g. 10**9 layers).

    >>> power_law_schedule(3, 0.8, 1.0)
    (0.8, 0.4, 0.26666666666666666)
    """
    depth = check_depth(depth)
    a0 = float(check_alpha("a0", a0))
    b = check_float_like("b", b, 0)
    _costs.check_layers(depth, per_layer_bytes=40.0, per_layer_ns=300.0)
    return tuple(a0 * (layer + 1) ** (-float(b)) for layer in range(depth))
