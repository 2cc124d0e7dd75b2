"""RopeScaling: how a checkpoint rescales its RoPE frequencies (pure Python, no jax).

With the base frequencies f_c = theta^(-2c/Dh), c = 0..Dh/2 - 1, and the
wavelengths lambda_c = 2 pi / f_c:

    linear   f_c / s                                   (position interpolation)
    llama3   f_c                  if lambda_c < P / beta      (high frequencies kept)
             f_c / s              if lambda_c > P / alpha     (low frequencies scaled)
             (1 - u) f_c / s + u f_c   otherwise,  u = (P / lambda_c - alpha) / (beta - alpha)

with s = ``factor``, alpha = ``low_freq_factor``, beta = ``high_freq_factor``
and P = ``original_max_positions`` (Llama 3.1 / 3.2; the formulas of
transformers' ``_compute_llama3_parameters``). Neither changes the attention
temperature. The frequencies themselves are computed by
:func:`lostmid_jax.nn.positions.rope_inv_freq`.
"""

from __future__ import annotations

import dataclasses

from ..validation import check_choice, check_float_like, check_int_like

SCALING_KINDS = ("linear", "llama3")
_LLAMA3_FIELDS = ("low_freq_factor", "high_freq_factor", "original_max_positions")


@dataclasses.dataclass(frozen=True, kw_only=True)
class RopeScaling:
    """A RoPE frequency rescaling (hashable; a DecoderConfig field).

    Attributes:
      kind: "linear" or "llama3" (see the module docstring).
      factor: s > 0.
      low_freq_factor: alpha > 0 ("llama3" only, required there).
      high_freq_factor: beta > alpha ("llama3" only, required there).
      original_max_positions: P >= 1, the pre-training context ("llama3"
        only, required there).
    """

    kind: str
    factor: float
    low_freq_factor: float | None = None
    high_freq_factor: float | None = None
    original_max_positions: int | None = None

    def __post_init__(self):
        check_choice("rope_scaling.kind", self.kind, SCALING_KINDS)
        object.__setattr__(self, "factor", check_float_like("rope_scaling.factor", self.factor, 0.0, open_min=True))
        if self.kind == "linear":
            for name in _LLAMA3_FIELDS:
                if getattr(self, name) is not None:
                    raise ValueError(f"rope_scaling.{name} is only used with kind='llama3', got kind='linear'")
            return
        for name in _LLAMA3_FIELDS:
            if getattr(self, name) is None:
                raise ValueError(f"rope_scaling.{name} is required with kind='llama3'")
        low = check_float_like("rope_scaling.low_freq_factor", self.low_freq_factor, 0.0, open_min=True)
        high = check_float_like("rope_scaling.high_freq_factor", self.high_freq_factor, 0.0, open_min=True)
        if high <= low:
            raise ValueError(f"rope_scaling.high_freq_factor={high} must exceed low_freq_factor={low}")
        object.__setattr__(self, "low_freq_factor", low)
        object.__setattr__(self, "high_freq_factor", high)
        object.__setattr__(self, "original_max_positions",
                           check_int_like("rope_scaling.original_max_positions", self.original_max_positions, 1))


def as_rope_scaling(value) -> RopeScaling | None:
    """None, a RopeScaling, or its ``dataclasses.asdict`` form (a JSON config) as a RopeScaling."""
    if value is None or isinstance(value, RopeScaling):
        return value
    if isinstance(value, dict):
        unknown = sorted(set(value) - {f.name for f in dataclasses.fields(RopeScaling)})
        if unknown:
            raise ValueError(f"rope_scaling has no field(s) {unknown}")
        missing = [k for k in ("kind", "factor") if k not in value]
        if missing:
            raise ValueError(f"rope_scaling is missing the field(s) {missing}")
        return RopeScaling(**value)
    raise ValueError(f"rope_scaling must be None, an nn.RopeScaling or a dict of its fields, got {value!r}")
