"""An accuracy against chance, in words, from its 95% interval [lo, hi].

    against_chance(0.07, 0.16, 0.20)     # 'at or below chance (ties count as wrong)'
    against_chance(0.25, 0.40, 0.20)     # 'above chance'
    against_chance(0.15, 0.30, 0.20)     # 'at chance (the 95% CI includes it)'

Above chance when lo > chance; at chance when the interval holds it; when the
whole interval lies below chance, "at or below chance" with the scoring rule
that puts a non-retrieving model there (``below``: ties counted against the
right answer, an argmax that may fall outside the candidates), never "below
chance" as if the model avoided the answer.
"""

from __future__ import annotations

ABOVE = "above chance"
AT = "at chance (the 95% CI includes it)"
AT_OR_BELOW = "at or below chance"
TIES = "ties count as wrong"


def against_chance(lo: float, hi: float, chance: float, *, below: str = TIES) -> str:
    """:data:`ABOVE`, :data:`AT`, or ':data:`AT_OR_BELOW` (``below``)' for the interval [lo, hi] (module docstring).

    >>> against_chance(0.5, 0.9, 0.2), against_chance(0.1, 0.3, 0.2)
    ('above chance', 'at chance (the 95% CI includes it)')
    """
    if lo > chance:
        return ABOVE
    if hi < chance:
        return f"{AT_OR_BELOW} ({below})"
    return AT


__all__ = ["ABOVE", "AT", "AT_OR_BELOW", "TIES", "against_chance"]
