"""The one NaN-aware number formatter of the tables and verdicts.

    fmt(0.12345)                      # '0.123'; '-' for None or NaN (inf prints as inf)
    fmt_interval(0.1, 0.2)            # '[0.100, 0.200]'; '[-]' where a bound is None or NaN
    fmt_ci(0.15, 0.1, 0.2)            # '0.150 [0.100, 0.200]'; '-' for a value that is not finite,
                                      # the value alone (plus ``no_ci``) where a bound is not finite

``spec`` is a format spec (``format(value, spec)``: ".3f", "+.3f", "11.2f", ".3g"), applied to the
value and both bounds.

>>> fmt(float("nan")), fmt(2.0, ".1f"), fmt_interval(float("nan"), 1.0)
('-', '2.0', '[-]')
>>> fmt_ci(1.0, 0.5, 1.5, ".1f"), fmt_ci(1.0, float("nan"), 1.5, ".1f", no_ci="[no CI]"), fmt_ci(None, 0, 1)
('1.0 [0.5, 1.5]', '1.0 [no CI]', '-')
"""

from __future__ import annotations

import math
import numbers


def _nan(value) -> bool:
    return value is None or (isinstance(value, numbers.Real) and math.isnan(value))


def _finite(value) -> bool:
    return isinstance(value, numbers.Real) and math.isfinite(value)


def fmt(value, spec: str = ".3f", missing: str = "-") -> str:
    """``format(value, spec)``, or ``missing`` for None and NaN."""
    return missing if _nan(value) else format(value, spec)


def fmt_interval(lo, hi, spec: str = ".3f", missing: str = "[-]") -> str:
    """'[lo, hi]' with ``spec``, or ``missing`` when either bound is None or NaN."""
    return missing if _nan(lo) or _nan(hi) else f"[{format(lo, spec)}, {format(hi, spec)}]"


def fmt_ci(value, lo, hi, spec: str = ".3f", *, missing: str = "-", no_ci: str = "") -> str:
    """'value [lo, hi]'; ``missing`` when the value is not finite; 'value' (then ' ' + ``no_ci`` if given)
    when a bound is not finite."""
    if not _finite(value):
        return missing
    if not (_finite(lo) and _finite(hi)):
        return format(value, spec) + (f" {no_ci}" if no_ci else "")
    return f"{format(value, spec)} {fmt_interval(lo, hi, spec)}"


__all__ = ["fmt", "fmt_ci", "fmt_interval"]
