"""ALiBi at Step 0 (Press et al. 2022): per head the softmax of the bias alone, heads averaged.

A_h[i, j] = q_h^(i-j) / Z_i(q_h) for j <= i, q_h = e^(-m_h), Z_i = sum_{d<i} q_h^d,
slopes m_h by the ALiBi paper's rule for any head count (:mod:`.alibi_slopes`),
or 2^(-8 h / n_heads) for every count with ``rule="geometric"``. The prior is
the head average A = (1/n) sum_h A_h: with every head reading and writing the
same residual stream, the stream mixes heads linearly, so one block applies
the averaged matrix. A model whose heads never mix (a separate stream per
head) would instead give (1/n) sum_h prod_l N_l^(h), which differs from
prod_l (1/n) sum_h N_l^(h) when H >= 2; the toolkit uses the averaged one.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from ..resources import check_max_heads
from ..validation import check_int_like, check_real
from ._checks import is_sequence
from ._costs import check_dense, num
from .alibi_slopes import SLOPE_RULES, slope_exponents
from .base import Prior
from .causal import Causal


@dataclasses.dataclass(frozen=True)
class ALiBi(Prior):
    """ALiBi at Step 0: per-head softmax of -m_h (i - j) over j <= i, heads averaged.

    Attributes:
      n_heads: number of heads, 1 <= n_heads <= max_heads (4,096 unless
        raised with :func:`~lostmid_jax.theory.limits`).
      slopes: None for the standard slopes of ``rule`` (computed at the
        backend's precision); or n_heads finite slopes >= 0 (m = 0 is the
        uniform causal head), stored as a tuple (NumPy scalars as Python
        numbers). Any finite slope works, 1e308 included: a huge slope is a
        one-hot head on the diagonal.
      rule: the standard slopes when ``slopes`` is None: "alibi" (default,
        the ALiBi paper's rule for any head count: for N not a power of two
        the first 2^floor(log2 N) slopes are geometric and the rest are every
        other slope of the doubled count) or "geometric" (2^(-8 h / N) for
        every N, equal to "alibi" only for N a power of two). See
        :mod:`.alibi_slopes`. Must stay "alibi" when ``slopes`` is given.
    """

    n_heads: int
    slopes: tuple | None = None
    rule: str = "alibi"

    def __post_init__(self):
        n = check_max_heads(check_int_like("n_heads", self.n_heads, 1))
        object.__setattr__(self, "n_heads", n)
        if not isinstance(self.rule, str) or self.rule not in SLOPE_RULES:
            raise ValueError(f"rule must be one of {', '.join(SLOPE_RULES)}, got {self.rule!r}")
        if self.slopes is None:
            return
        if self.rule != "alibi":
            raise ValueError(f"rule={self.rule!r} names the standard slopes; it cannot be combined with given slopes")
        object.__setattr__(self, "slopes", check_slopes("slopes", self.slopes, n))

    @property
    def support(self) -> Causal:
        return Causal()

    def slope_values(self) -> tuple:
        """The slopes as given, or the standard ones as exact exponents of 2.

        Returns:
          A tuple of n_heads entries: the given numbers, or ``Fraction`` e with
          m_h = 2^e (:func:`.alibi_slopes.slope_exponents` of ``rule``), so
          each backend evaluates them at its own precision.
        """
        if self.slopes is not None:
            return self.slopes
        return slope_exponents(self.n_heads, self.rule)

    def float_slopes(self) -> tuple[float, ...]:
        """The slopes m_h as floats.

        >>> ALiBi(2).float_slopes()
        (0.0625, 0.00390625)
        >>> ALiBi(3).float_slopes()
        (0.0625, 0.00390625, 0.25)
        """
        if self.slopes is not None:
            return tuple(float(m) for m in self.slopes)
        return tuple(math.pow(2.0, float(e)) for e in self.slope_values())

    def row_operator(self, length: int, ops):
        """(rA)_j = (1/n) sum_h s^h_j, s^h_j = sum_{i >= j} (r_i / Z_i^h) e^(-m_h (i-j)): a reverse
        linear scan s_j = u_j + e^(-m) s_{j+1} per head."""
        if self.slopes is None:
            slopes = [ops.pow2(e) for e in self.slope_values()]  # exact exponents of the slope rule
        else:
            slopes = [ops.param(m) for m in self.slopes]
        norms = [ops.geometric_recip_norm(m, length) for m in slopes]
        inv_heads = ops.recip(np.array([self.n_heads]))[0]

        def apply(r):
            heads = [ops.geometric_suffix(ops.mul(r, z), m) for m, z in zip(slopes, norms)]
            return ops.mul(functools.reduce(ops.add, heads), inv_heads)

        return apply

    def cost_terms(self, length: int):
        n = self.n_heads
        return 2.0 * n, 2.0 * n, 1.45 * num(length), f"prior=ALiBi(n_heads={n})"

    def norm_heads(self, length: float) -> float:
        return self.n_heads

    def attention_matrix(self, length: int, *, exact: bool = False):
        """Head average of softmax_j(-m_h (i - j)) over j <= i, float64 [L, L]."""
        check_dense("attention_matrix", length, exact=exact, copies=6.0, heads=0 if exact else self.n_heads,
                    per_entry_ns=3000.0 if exact else 30.0)
        if exact:
            raise ValueError("exact=True is not available for ALiBi: its weights e^(-m) are irrational")
        i, j = np.indices((length, length))
        heads = []
        for m in self.float_slopes():
            with np.errstate(over="ignore"):  # a huge slope: -m (i - j) = -inf off the diagonal, a one-hot head
                logits = np.where(j <= i, -m * (i - j), -np.inf)
            weights = np.exp(logits - logits.max(axis=1, keepdims=True))
            heads.append(weights / weights.sum(axis=1, keepdims=True))
        return np.mean(heads, axis=0)

    def content_form(self):
        """The same heads as a :class:`.content.Content` prior over the causal mask."""
        from .content import Content

        return Content(heads=self.n_heads, slopes=self.rule if self.slopes is None else self.slopes)

    @property
    def label(self) -> str:
        if self.slopes is not None:
            return f"ALiBi {self.n_heads} heads (custom slopes)"
        return f"ALiBi {self.n_heads} heads" + (" (geometric slopes)" if self.rule == "geometric" else "")

    @property
    def spec(self) -> str:
        if self.slopes is None:
            return f"alibi:{self.n_heads}" + ("" if self.rule == "alibi" else f":{self.rule}")
        return f"alibi:{self.n_heads}:" + "/".join(repr(float(m)) for m in self.slopes)


def check_slopes(name: str, slopes, n: int) -> tuple:
    """``n`` finite numbers >= 0 within float range, as a tuple (NumPy scalars as Python numbers)."""
    if not is_sequence(slopes):
        raise ValueError(f"{name} must be None or a sequence of {n} numbers >= 0, got {slopes!r}")
    if len(slopes) != n:
        raise ValueError(f"{name} has {len(slopes)} entries but n_heads is {n}; they must match")
    values = tuple(check_real(f"{name}[{k}]", m, 0) for k, m in enumerate(slopes))
    for k, m in enumerate(values):
        try:
            in_range = math.isfinite(float(m))
        except OverflowError:
            in_range = False
        if not in_range:  # an exact number beyond float range
            raise ValueError(f"{name}[{k}] must be a finite number within float range, got {m!r}")
    return values
