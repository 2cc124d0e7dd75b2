"""Parsers for list-valued command-line arguments."""

from __future__ import annotations


def int_list(text: str) -> tuple[int, ...]:
    """'1-4,8,16' -> (1, 2, 3, 4, 8, 16)."""
    values: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            if "-" in part[1:]:
                lo, hi = part.split("-", 1) if not part.startswith("-") else ("-" + part[1:].split("-", 1)[0], part[1:].split("-", 1)[1])
                values.extend(range(int(lo), int(hi) + 1))
            else:
                values.append(int(part))
        except ValueError:
            raise ValueError(f"expected integers or ranges like 1-64, got {part!r}") from None
    return tuple(values)


def float_list(text: str) -> tuple[float, ...]:
    """'0.1, 0.5,1' -> (0.1, 0.5, 1.0)."""
    try:
        return tuple(float(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise ValueError(f"expected comma-separated numbers, got {text!r}") from None
