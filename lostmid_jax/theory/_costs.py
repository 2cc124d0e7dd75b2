"""Memory and work estimates of the theory computations, checked against :mod:`.resources` limits.

Each ``check_*`` function below estimates, from validated arguments only, the
bytes a computation holds and its elementary operations (~1 ns each on one
core, calibrated on the code of this package within a factor of a few), and
raises the ValueError of :mod:`.resources` when either is over its limit.
They run before any allocation or loop, so they answer in microseconds.

Cost model (ns): a numpy call costs ~1e4 (Python overhead per layer, head or
segment); a float64 row entry ~20 per layer, a log-space one ~150; one
big-number row update costs :func:`number_ns` (mpmath ~2e4 + 0.5 dps^1.5,
arb ~2e3 + 6 dps, Fraction ~2e3 + 25 b + b^2 / 9e3 for b-bit numbers).
Exact rows of the causal prior grow by ~1.45 L + 2 bits(a) bits per layer
(the denominators divide lcm(1..L)^H den(a)^H).
"""

from __future__ import annotations

from fractions import Fraction

from ..masks._costs import FLOAT_BYTES, check_dense  # noqa: F401  (check_dense kept importable here)
from ..masks._costs import num as _num
from ..resources import check_budget, check_operations

CALL_NS = 1e4
"""Python + numpy overhead of one vectorized step (a layer, a head, a segment)."""

def number_bytes(arithmetic: str, dps: int = 0, bits: float = 0.0) -> float:
    """Bytes of one number: float64 8; mpf / arb ~ dps digits; Fraction ~ bits of numerator + denominator."""
    if arithmetic in ("float64", "log", "jax"):
        return FLOAT_BYTES
    if arithmetic == "mpmath":
        return 200 + 0.42 * dps
    if arithmetic == "arb":
        return 100 + 0.42 * dps
    return 120 + bits / 4  # exact: numerator and denominator of ~bits / 2 ... bits each, plus objects


def number_ns(arithmetic: str, dps: int = 0, bits: float = 0.0) -> float:
    """ns of one row-entry update (a few adds / multiplies) in ``arithmetic``."""
    if arithmetic in ("float64", "jax"):
        return 20.0
    if arithmetic == "log":
        return 150.0
    if arithmetic == "mpmath":
        return 2e4 + 0.5 * dps ** 1.5
    if arithmetic == "arb":
        return 2e3 + 6.0 * dps
    return 2e3 + 25.0 * bits + bits * bits / 9e3


def value_bits(value) -> int:
    """Bits of numerator plus denominator of an exact real (floats converted exactly)."""
    if isinstance(value, int):
        return max(1, abs(value).bit_length())
    try:
        f = Fraction(value)
    except (TypeError, ValueError):
        from ._validate import to_fraction

        f = to_fraction(value)
    return max(1, abs(f.numerator).bit_length()) + f.denominator.bit_length()


def _prior_terms(prior, length: int) -> tuple[float, float, float, str]:
    """(entry multiplier, extra numpy calls per layer, exact bits per layer from the row sizes, description):
    the prior kind's own terms (``prior.cost_terms``)."""
    return prior.cost_terms(length)


def check_row(length: int, depth: int, prior, arithmetic: str, *, dps: int = 0, schedule=None) -> None:
    """Budget of one influence row: L entries, H layers, in ``arithmetic`` (float64, log, jax, exact, mpmath, arb).

    Without ``schedule`` (before the per-layer values exist) exact numbers
    are costed at their smallest size; call again with it for the exact backend.
    """
    mult, calls, bits_per_layer, prior_text = _prior_terms(prior, length)
    active = _num(depth) if schedule is None else sum(1 for a in schedule if a != 0)
    shown, length = length, _num(length)
    bits = 0.0
    if arithmetic == "exact" and schedule is not None and active:
        a_bits = max(value_bits(a) for a in schedule)
        bits = active * (bits_per_layer + 2 * a_bits + 2)
    per_entry = number_ns(arithmetic, dps, bits / 2)
    operations = active * (CALL_NS * (1 + calls) + length * mult * per_entry)
    heads = prior.norm_heads(length)
    operations += heads * length * per_entry  # ALiBi norms (and dense kernels), once
    nbytes = length * number_bytes(arithmetic, dps, bits) * (8 + 2 * heads) + 8.0 * active
    what = f"length={shown}, depth={depth}" + (f", {prior_text}" if prior_text else "")
    if arithmetic in ("mpmath", "arb"):
        what += f", dps={dps}"
    check_budget(what, nbytes=nbytes, operations=operations, hard=arithmetic == "arb")


def check_layers(depth: int, *, per_layer_bytes: float = 40.0, per_layer_ns: float = 300.0, what: str = "") -> None:
    """Budget of an O(H) Python loop over the layers (schedules, products over a_l)."""
    check_budget(what or f"depth={depth}", nbytes=_num(depth) * per_layer_bytes, operations=_num(depth) * per_layer_ns)


def check_hops(depth: int, arithmetic: str, *, dps: int = 0, schedule=None) -> None:
    """Budget of the hop-count distribution: an O(H^2) Poisson-binomial recursion."""
    shown, depth = depth, _num(depth)
    if arithmetic == "log":
        operations = depth * (2 * CALL_NS + 30.0 * depth)
        nbytes = 8.0 * (depth + 1) * 6 + 40.0 * depth
    else:
        bits = 0.0
        if arithmetic == "exact" and schedule is not None and depth:
            bits = depth * max(value_bits(a) for a in schedule)
        per_op = 4e3 + 0.25 * dps ** 1.5 if arithmetic == "mpmath" else number_ns("exact", 0, bits / 2)
        operations = depth * depth * per_op
        nbytes = (depth + 1) * number_bytes(arithmetic, dps, bits) * 2 + 40.0 * depth
    what = f"depth={shown}" + (f", dps={dps}" if arithmetic == "mpmath" else "")
    check_budget(what + " (hop distribution, O(depth^2))", nbytes=nbytes, operations=operations)


def check_density(n_x: int, depth: int, arithmetic: str = "log", *, dps: int = 0) -> None:
    """Budget of a continuum density at ``n_x`` points (hop sum or Laguerre series over k = 1..H)."""
    shown, depth = depth, _num(depth)
    if arithmetic == "log":
        nbytes, operations = 8.0 * n_x * max(depth, 1) * 5, n_x * (CALL_NS + 60.0 * depth)
    else:
        nbytes, operations = n_x * number_bytes("mpmath", dps) * 4, n_x * max(depth, 1) * 5 * number_ns("mpmath", dps)
    check_budget(f"x with {n_x} points, depth={shown}", nbytes=nbytes, operations=operations)


def check_matmul(n: int, m: int, p: int, bits: int) -> None:
    """Budget of an exact (n x m) @ (m x p) product of b-bit rationals."""
    per = number_ns("exact", 0, bits) * 2
    check_budget(f"exact_matmul: x is {n} x {m}, y is {m} x {p}", nbytes=n * p * number_bytes("exact", 0, 2 * bits) * 2,
                 operations=float(n) * m * p * per + (float(n) * m + float(m) * p) * 3000.0)  # + reading the entries


def check_positions(length: int, arrays: int = 4) -> None:
    """Budget of a few float64 / bool arrays [L]."""
    check_budget(f"length={length}", nbytes=_num(length) * FLOAT_BYTES * arrays, operations=_num(length) * arrays)


def check_items(n: int, what: str, per_item_ns: float = 1000.0) -> None:
    """Budget of a Python loop over ``n`` given items."""
    check_operations(what, n * per_item_ns)
