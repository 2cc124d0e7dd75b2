"""Laws for the middle density rho_H(x) (proofs/08_factorial_middle.md).

* All-attention path (a = 1): rho_H(x) = (ln 1/x)^(H-1) / (H-1)! exactly; at
  x = 1/2 that is the paper's factorial dead zone (ln 2)^(H-1) / (H-1)!.
* a < 1 (constant): the Laguerre form a (1-a)^(H-1) L^(1)_{H-1}(-z),
  z = (a / (1-a)) ln(1/x), and Perron's asymptotic of Laguerre polynomials at
  negative argument (Szegő Thm 8.22.3; DLMF 18.15(iv)), written with N = H
  (proofs/08_factorial_middle.md), give the geometric-times-exp(sqrt) law
      rho_H(x) ~ (a / (1-a)) (1-a)^H e^(-z/2) e^(2 sqrt(H z)) H^(1/4)
                 / (2 sqrt(pi) z^(3/4)),
  with relative error (4 z^2 - 9) / (48 sqrt(z H)) + O(1/H).
All functions return natural logs so deep stacks never underflow.
"""

from __future__ import annotations

import math

from ..validation import check_float_like
from ._validate import check_alpha, check_depth


_MAX_DEPTH = 2**53
"""Largest H of the float64 laws (H - 1 and lgamma(H) exact in float64)."""


def _check_law_depth(depth, minimum: int, law: str) -> int:
    depth = check_depth(depth)
    if depth < minimum:
        raise ValueError(f"depth must be >= {minimum} for the {law}, got {depth}")
    if depth > _MAX_DEPTH:
        raise ValueError(f"depth must be <= 2**53 for the float64 {law}, got {depth}")
    return depth


def _check_x(x: float) -> float:
    return check_float_like("x", x, 0, 1, open_min=True, open_max=True)


def log_factorial_law(depth: int, x: float = 0.5) -> float:
    """log of (ln 1/x)^(H-1) / (H-1)!: the a = 1 density, H >= 1.

    >>> round(math.exp(log_factorial_law(3)), 12)  # (ln 2)^2 / 2
    0.240226506959
    """
    depth = _check_law_depth(depth, 1, "factorial law")
    t = math.log(1.0 / _check_x(x))
    return (depth - 1) * math.log(t) - math.lgamma(depth)


def log_geometric_law(depth: int, alpha: float, x: float = 0.5) -> float:
    """log of the large-H asymptotic of rho_H(x) for constant a in (0, 1), H >= 2."""
    depth = _check_law_depth(depth, 2, "asymptotic law")
    a = float(check_alpha("alpha", alpha))
    if not 0 < a < 1:
        raise ValueError(f"alpha must be in (0, 1) for the geometric law, got {alpha!r}")
    z = a / (1.0 - a) * math.log(1.0 / _check_x(x))
    return (
        math.log(a)
        + (depth - 1) * math.log1p(-a)
        - z / 2
        + 2 * math.sqrt(depth * z)
        + 0.25 * math.log(depth)
        - math.log(2 * math.sqrt(math.pi))
        - 0.75 * math.log(z)
    )
