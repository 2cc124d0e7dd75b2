"""Arguments of the depth sweep: depths, the a schedules, lengths and the band (Config), and the --smoke sizes."""

from __future__ import annotations

import dataclasses

from ...runs.config import tuples_from_lists
from ...validation import check_float, check_int


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the depth sweep.

    Attributes:
      depths: the H values, each >= 1 (default 1..64 plus 128 and 256).
      alphas: a values in [0, 1] for the constant schedules, and a0 for the power-law ones.
      power_b: exponent b of the power-law schedules a_l = a0 (l+1)^-b; none skips them.
      custom: an optional per-layer schedule; layer l of every depth uses
        custom[l], so it needs at least max(depths) entries.
      lengths: the discrete L values (each >= 2); the continuum limit is always added.
      band: width in x of the primacy and late bands, in (0, 0.5).
    """

    depths: tuple[int, ...] = tuple(range(1, 65)) + (128, 256)
    alphas: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 1.0)
    power_b: float | None = 0.5
    custom: tuple[float, ...] | None = None
    lengths: tuple[int, ...] = (2048,)
    band: float = 0.1

    def __post_init__(self):
        from ...theory import check_band, power_law_schedule

        self._check_rows()  # from the counts alone, before a million values are validated one by one
        tuples_from_lists(self)
        if not self.depths:
            raise ValueError("depths must not be empty")
        for h in self.depths:
            check_int("depths", h, 1)
        if not self.alphas:
            raise ValueError("alphas must not be empty")
        for i, a in enumerate(self.alphas):
            check_float(f"alphas[{i}]", a, 0, 1)
        if not self.lengths:
            raise ValueError("lengths must not be empty")
        for length in self.lengths:
            check_int("lengths", length, 2)  # L = 1 has no middle, no valley and no peak-to-trough
        if self.power_b is not None:
            try:
                power_law_schedule(1, 1.0, self.power_b)  # validates b
            except ValueError as err:
                raise ValueError(f"power_b: {err}") from None
        if self.custom is not None:
            for i, a in enumerate(self.custom):
                check_float(f"custom[{i}]", a, 0, 1)
            if len(self.custom) < max(self.depths):
                raise ValueError(f"custom has {len(self.custom)} entries; it needs max(depths) = {max(self.depths)}")
        object.__setattr__(self, "band", check_band(self.band))
        self._check_work()

    def _check_rows(self) -> None:
        """Refuse a sweep whose result rows alone (~1 ms of Python each) are over the work limit."""
        from ...resources import ROW_OPERATIONS, check_operations

        def count(value):
            return len(value) if isinstance(value, (list, tuple)) else 1

        schedules = count(self.alphas) * (2 if self.power_b is not None else 1) + (self.custom is not None)
        rows = schedules * count(self.depths) * (count(self.lengths) + 1)
        check_operations(f"{schedules} schedules x {count(self.depths)} depths x {count(self.lengths) + 1} lengths "
                         f"(the continuum included): {rows} rows", rows * ROW_OPERATIONS)

    def _check_work(self) -> None:
        """Refuse, before any work, a sweep over the work limit: ~10 ns per H L entry of a row, ~100 ns per
        H^2 of a continuum point, and ~1 ms of Python per result row (resources.ROW_OPERATIONS: one row
        per schedule, depth and L or the continuum); theory.limits / --limits raises the limit."""
        from ...resources import ROW_OPERATIONS, check_operations

        schedules = len(self.alphas) * (2 if self.power_b is not None else 1) + (self.custom is not None)
        per_schedule = sum(10.0 * h * sum(self.lengths) + 100.0 * h * h for h in self.depths)
        rows = schedules * len(self.depths) * (len(self.lengths) + 1)
        check_operations(f"{schedules} schedules x depths (max {max(self.depths)}, {len(self.depths)} values) x "
                         f"lengths (max {max(self.lengths)}, {len(self.lengths)} values): {rows} rows",
                         schedules * per_schedule + rows * ROW_OPERATIONS)


SMOKE = {"depths": (1, 2, 4, 8, 16, 32), "alphas": (0.25, 0.5, 1.0), "lengths": (256,)}
SMOKE_HELP = "H up to 32, L=256"
