"""RopeScaling: how a checkpoint rescales its RoPE frequencies (pure Python, no jax).

With the base frequencies f_c = theta^(-2c/Dh), c = 0..Dh/2 - 1, the
wavelengths lambda_c = 2 pi / f_c, s = ``factor`` and P =
``original_max_positions`` (the pre-training context), the kinds are those of
transformers' ``modeling_rope_utils`` (``_compute_*_parameters``):

    linear   f_c / s                                   (position interpolation)
    llama3   f_c                  if lambda_c < P / beta      (high frequencies kept)
             f_c / s              if lambda_c > P / alpha     (low frequencies scaled)
             (1 - u) f_c / s + u f_c   otherwise,  u = (P / lambda_c - alpha) / (beta - alpha)
    dynamic  theta' ^ (-2c/Dh),  theta' = theta (s L'/P - (s - 1))^(Dh / (Dh - 2)),
             L' = max(L, P) with L = 1 + the largest position of the sequence
             (dynamic NTK-aware scaling: no change up to P)
    yarn     f_c / s (1 - e_c) + f_c e_c,  e_c = 1 - clip((c - lo) / (hi - lo), 0, 1),
             lo, hi = the dims d(r) = Dh ln(P / (2 pi r)) / (2 ln theta) at
             r = beta_fast, beta_slow (floored / ceiled when ``truncate``, then
             clipped to [0, Dh - 1]); and cos, sin multiplied by the attention
             factor m = ``attention_factor``, else 0.1 ln(s) + 1 (s > 1; 1
             otherwise), or g(s, mscale) / g(s, mscale_all_dim) when both are set

with alpha = ``low_freq_factor``, beta = ``high_freq_factor``. Only yarn changes
the attention temperature (the logits q.k scale by m^2). transformers' dynamic
kind keeps the frequencies of the longest sequence it has seen (until a
sequence shorter than P resets them); here they are a pure function of the
current sequence, which equals transformers on a fresh model or on sequences of
non-decreasing length. A static NTK-aware rescaling is a larger ``rope_theta``
(theta s^(Dh / (Dh - 2))), not a kind. The frequencies themselves are computed
by :func:`lostmid_jax.nn.positions.rope_inv_freq`.
"""

from __future__ import annotations

import dataclasses
import math

from ..validation import check_bool_like, check_choice, check_float_like, check_int_like

SCALING_KINDS = ("linear", "llama3", "dynamic", "yarn")
_LLAMA3 = ("low_freq_factor", "high_freq_factor")
_YARN = ("beta_fast", "beta_slow", "mscale", "mscale_all_dim", "attention_factor", "truncate")
_USED = {"linear": (), "llama3": _LLAMA3 + ("original_max_positions",), "dynamic": ("original_max_positions",),
         "yarn": _YARN + ("original_max_positions",)}
_REQUIRED = {"linear": (), "llama3": _LLAMA3 + ("original_max_positions",), "dynamic": ("original_max_positions",),
             "yarn": ("original_max_positions",)}


@dataclasses.dataclass(frozen=True, kw_only=True)
class RopeScaling:
    """A RoPE frequency rescaling (hashable; a DecoderConfig field).

    Attributes:
      kind: "linear", "llama3", "dynamic" (NTK-aware) or "yarn" (see the
        module docstring; "ntk" is refused with a pointer to "dynamic").
      factor: s > 0.
      low_freq_factor: alpha > 0 ("llama3" only, required there).
      high_freq_factor: beta > alpha ("llama3" only, required there).
      original_max_positions: P >= 1, the pre-training context ("llama3",
        "dynamic" and "yarn"; required there; for "dynamic" transformers'
        max_position_embeddings).
      beta_fast, beta_slow: yarn's rotation counts bounding the ramp (None:
        32 and 1, transformers' defaults).
      mscale, mscale_all_dim: yarn's DeepSeek-style attention factor
        g(s, mscale) / g(s, mscale_all_dim), g(s, m) = 0.1 m ln(s) + 1 (s > 1),
        used only when both are set and nonzero.
      attention_factor: yarn's attention factor m, overriding the rule above.
      truncate: yarn's rounding of the ramp bounds (None: True).
    """

    kind: str
    factor: float
    low_freq_factor: float | None = None
    high_freq_factor: float | None = None
    original_max_positions: int | None = None
    beta_fast: float | None = None
    beta_slow: float | None = None
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention_factor: float | None = None
    truncate: bool | None = None

    def __post_init__(self):
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731  (frozen)
        if self.kind == "ntk":
            raise ValueError("rope_scaling.kind='ntk' is not a transformers kind: use 'dynamic' (dynamic "
                             "NTK-aware scaling) or, for a static NTK-aware rescaling, rope_theta * "
                             "factor^(Dh / (Dh - 2))")
        check_choice("rope_scaling.kind", self.kind, SCALING_KINDS)
        put("factor", check_float_like("rope_scaling.factor", self.factor, 0.0, open_min=True))
        for name in ("original_max_positions", *_LLAMA3, *_YARN):
            if getattr(self, name) is not None and name not in _USED[self.kind]:
                users = [k for k, used in _USED.items() if name in used]
                raise ValueError(f"rope_scaling.{name} is only used with kind in {users}, got kind={self.kind!r}")
        for name in _REQUIRED[self.kind]:
            if getattr(self, name) is None:
                raise ValueError(f"rope_scaling.{name} is required with kind={self.kind!r}")
        if self.original_max_positions is not None:
            put("original_max_positions",
                check_int_like("rope_scaling.original_max_positions", self.original_max_positions, 1))
        if self.kind == "llama3":
            low = check_float_like("rope_scaling.low_freq_factor", self.low_freq_factor, 0.0, open_min=True)
            high = check_float_like("rope_scaling.high_freq_factor", self.high_freq_factor, 0.0, open_min=True)
            if high <= low:
                raise ValueError(f"rope_scaling.high_freq_factor={high} must exceed low_freq_factor={low}")
            put("low_freq_factor", low)
            put("high_freq_factor", high)
        for name in ("beta_fast", "beta_slow", "mscale", "mscale_all_dim"):
            if getattr(self, name) is not None:
                put(name, check_float_like(f"rope_scaling.{name}", getattr(self, name)))
        if self.attention_factor is not None:
            put("attention_factor", check_float_like("rope_scaling.attention_factor", self.attention_factor,
                                                     0.0, open_min=True))
        if self.truncate is not None:
            put("truncate", check_bool_like("rope_scaling.truncate", self.truncate))
        if self.kind == "yarn":
            self._check_yarn()

    def _check_yarn(self) -> None:
        """yarn's numbers where they divide or take a log: beta_fast, beta_slow >= 0 (0: the default), and
        each term g(s, m) = 0.1 m ln(s) + 1 and the attention factor finite and > 0 (ValueError naming the key)."""
        for name in ("beta_fast", "beta_slow"):
            if getattr(self, name) is not None and getattr(self, name) < 0:
                raise ValueError(f"rope_scaling.{name}={getattr(self, name)} must be >= 0 (a rotation count; 0 "
                                 "reads as transformers' default); yarn takes log(P / (2 pi {name}))")
        if self.yarn_betas[0] < self.yarn_betas[1]:
            raise ValueError(f"rope_scaling.beta_fast={self.yarn_betas[0]} must be >= beta_slow={self.yarn_betas[1]}")
        if self.attention_factor is None and self.mscale and self.mscale_all_dim:
            for name in ("mscale", "mscale_all_dim"):
                term = _yarn_term(self.factor, getattr(self, name))
                if not (math.isfinite(term) and term > 0):
                    raise ValueError(f"rope_scaling.{name}={getattr(self, name)} makes yarn's attention term "
                                     f"0.1 * {name} * ln(factor) + 1 = {term:.4g} with factor={self.factor}; it "
                                     "must be > 0 (the attention factor is the ratio of the mscale and "
                                     "mscale_all_dim terms)")
        scale = self.attention_scale
        if not (math.isfinite(scale) and scale > 0):
            raise ValueError(f"rope_scaling: yarn's attention factor is {scale!r} with factor={self.factor}, "
                             f"mscale={self.mscale}, mscale_all_dim={self.mscale_all_dim}; it must be finite and > 0")

    @property
    def yarn_betas(self) -> tuple[float, float]:
        """(beta_fast, beta_slow) with transformers' defaults 32 and 1 (a 0 reads as the default, as there)."""
        return float(self.beta_fast or 32), float(self.beta_slow or 1)

    @property
    def attention_scale(self) -> float:
        """m, the factor on cos and sin (so q.k scales by m^2): 1 except for "yarn" (module docstring)."""
        if self.kind != "yarn":
            return 1.0
        if self.attention_factor is not None:
            return self.attention_factor

        if self.mscale and self.mscale_all_dim:  # both terms checked > 0 when built
            return float(_yarn_term(self.factor, self.mscale) / _yarn_term(self.factor, self.mscale_all_dim))
        return _yarn_term(self.factor)


def _yarn_term(scale: float, m: float = 1.0) -> float:
    """g(s, m) = 0.1 m ln(s) + 1 for s > 1, else 1 (transformers' get_mscale)."""
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


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
