"""ALiBi head slopes m_h = 2^e_h as exact exponents e_h (one definition for theory and nn).

Rule "alibi" (the ALiBi paper, Press et al. 2022, and its reference code): for
N heads let n = 2^floor(log2 N). The first n slopes are the geometric sequence
of n heads, e_h = -8 h / n for h = 1..n; when N is not a power of two, the
remaining N - n slopes are every other slope of the 2n-head sequence,
e = -8 (2k - 1) / (2n) = -4 (2k - 1) / n for k = 1..N - n.

Rule "geometric": e_h = -8 h / N for every N (equal to "alibi" only when N is
a power of two; kept for comparison, asked for by name).

>>> [str(e) for e in slope_exponents(2)]
['-4', '-8']
>>> [str(e) for e in slope_exponents(3)]
['-4', '-8', '-2']
>>> [str(e) for e in slope_exponents(3, rule="geometric")]
['-8/3', '-16/3', '-8']
"""

from __future__ import annotations

from fractions import Fraction

from ..validation import check_choice, check_int_like

SLOPE_RULES = ("alibi", "geometric")


def slope_exponents(heads: int, rule: str = "alibi") -> tuple[Fraction, ...]:
    """Exact exponents e_h with m_h = 2^e_h, h = 1..heads, in head order.

    Args:
      heads: N >= 1.
      rule: "alibi" (default, the published rule for any N) or "geometric"
        (2^(-8 h / N) for every N).

    Returns:
      A tuple of N Fractions.
    """
    heads = check_int_like("heads", heads, 1)
    check_choice("rule", rule, SLOPE_RULES)
    if rule == "geometric":
        return tuple(Fraction(-8 * h, heads) for h in range(1, heads + 1))
    n = 1 << (heads.bit_length() - 1)  # largest power of two <= N
    base = [Fraction(-8 * h, n) for h in range(1, n + 1)]
    extra = [Fraction(-4 * (2 * k - 1), n) for k in range(1, heads - n + 1)]
    return tuple(base + extra)


def float_slopes(heads: int, rule: str = "alibi") -> tuple[float, ...]:
    """The slopes m_h = 2^e_h as Python floats (exact for the power-of-two part).

    >>> float_slopes(2)
    (0.0625, 0.00390625)
    """
    return tuple(2.0 ** float(e) for e in slope_exponents(heads, rule))
