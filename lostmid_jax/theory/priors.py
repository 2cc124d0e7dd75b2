"""Step-0 attention priors: which row-stochastic matrix A a layer applies.

At initialization query-key scores are ~0, so softmax attention is uniform
over whatever the mask allows (plus any score bias that does not depend on
the weights, such as ALiBi). Every prior below is such a Step-0 matrix A
[L, L] (1-based query i, key j), used in the residual block

    N_l = (1 - a_l) I + a_l A,     w_j = (N_H ... N_1)[L, j].

Uniform priors: A[i, j] = 1 / |S_i| for j in the allowed set S_i, else 0.

=================  ==========================================================
prior              allowed keys S_i of query i
=================  ==========================================================
Causal()           1..i                    (the Cesàro matrix, the default)
Bidirectional()    1..L
SlidingWindow(w)   max(1, i - w + 1)..i    (w keys including i)
Chunks(lengths)    start(i)..i, start(i) the first position of i's segment
PrefixLM(n)        1..max(n, i)            (the first n tokens see each other)
Sinks(s, w)        {j <= i : j <= s or j > i - w}   (StreamingLLM: s sink
                   tokens plus a causal window of w; w = None is the full
                   causal prefix, which already holds the sinks, so
                   Sinks(s) equals Causal())
=================  ==========================================================

ALiBi(n_heads) is the softmax of the bias alone, per head h:
A_h[i, j] = q_h^(i-j) / Z_i(q_h) for j <= i, q_h = e^(-m_h),
Z_i = sum_{d<i} q_h^d, slopes m_h by the ALiBi paper's rule for any head
count (Press et al. 2022; :mod:`.alibi_slopes`), or 2^(-8 h / n_heads) for
every count when asked for with ``rule="geometric"``.
The prior is the head average A = (1/n) sum_h A_h: with every head reading
and writing the same residual stream (value/output maps that average the
heads), the residual stream mixes heads linearly, so one block applies the
averaged matrix. A model whose heads never mix (a separate stream per head)
would instead give (1/n) sum_h prod_l N_l^(h), which differs from
prod_l (1/n) sum_h N_l^(h) when H >= 2; the toolkit uses the averaged one.

Softmax attention with score terms that survive initialization (a self
bonus, per-key content scores, per-layer ALiBi slopes, head weights, a
temperature) over any of the masks above is :class:`.content.Content`.

Fields are validated at construction; conditions that need L (Chunks
lengths summing to L, prefix <= L, count <= L) by :func:`check_prior`.
"""

from __future__ import annotations

import dataclasses
import math

from ..validation import check_int_like, check_real
from ._validate import check_length
from ..masks.alibi_slopes import SLOPE_RULES, slope_exponents
from ..resources import check_budget, check_max_heads


@dataclasses.dataclass(frozen=True)
class Causal:
    """Uniform causal attention, A[i, j] = 1/i for j <= i (Cesàro matrix)."""

    @property
    def label(self) -> str:
        return "causal"


@dataclasses.dataclass(frozen=True)
class Bidirectional:
    """Full attention, A[i, j] = 1/L for every i, j."""

    @property
    def label(self) -> str:
        return "bidirectional"


@dataclasses.dataclass(frozen=True)
class SlidingWindow:
    """Causal sliding window: query i sees keys max(1, i - w + 1)..i.

    Attributes:
      width: w >= 1, keys per query including itself (w >= L is Causal()).
    """

    width: int

    def __post_init__(self):
        object.__setattr__(self, "width", check_int_like("width", self.width, 1))

    @property
    def label(self) -> str:
        return f"sliding window w={self.width}"


@dataclasses.dataclass(frozen=True)
class Chunks:
    """Document / chunk mask: causal uniform attention inside each segment.

    Attributes:
      lengths: segment lengths (each >= 1), in order; they must sum to L.
        A list is stored as a tuple.
    """

    lengths: tuple[int, ...]

    def __post_init__(self):
        n = _size(self.lengths)
        if isinstance(self.lengths, (str, bytes, dict, set)) or not hasattr(self.lengths, "__iter__") or n is None:
            raise ValueError(f"lengths must be a sequence of integers >= 1, got {self.lengths!r}")
        _check_segments(n, f"lengths with {n} segments")
        values = tuple(check_int_like(f"lengths[{k}]", v, 1) for k, v in enumerate(self.lengths))
        if not values:
            raise ValueError("lengths must hold at least one segment length")
        object.__setattr__(self, "lengths", values)

    @classmethod
    def equal(cls, length: int, size: int) -> "Chunks":
        """Segments of ``size`` tokens, the last one shorter if size does not divide L.

        >>> Chunks.equal(10, 4)
        Chunks(lengths=(4, 4, 2))
        """
        length, size = check_length(length), check_int_like("size", size, 1)
        full, rest = divmod(length, size)
        _check_segments(full + (rest > 0), f"length={length} in segments of size={size} ({full + (rest > 0)} segments)")
        return cls((size,) * full + ((rest,) if rest else ()))

    @property
    def label(self) -> str:
        sizes = sorted(set(self.lengths))
        shown = f"{sizes[0]}" if len(sizes) == 1 else f"{min(sizes)}-{max(sizes)}"
        return f"chunks {len(self.lengths)}x{shown}"


@dataclasses.dataclass(frozen=True)
class PrefixLM:
    """Prefix-LM: the first n tokens attend to each other, the rest causally.

    Query i <= n sees keys 1..n; query i > n sees keys 1..i.

    Attributes:
      prefix: n, 0 <= n <= L (0 is Causal(), L is Bidirectional()).
    """

    prefix: int

    def __post_init__(self):
        object.__setattr__(self, "prefix", check_int_like("prefix", self.prefix, 0))

    @property
    def label(self) -> str:
        return f"prefix-LM n={self.prefix}"


@dataclasses.dataclass(frozen=True)
class Sinks:
    """Attention sinks (StreamingLLM): s always-visible first tokens plus a window.

    Query i sees {j <= i : j <= s or j > i - w} uniformly. Everything stays
    causal: a query before the end of the sinks sees only 1..i.

    Attributes:
      count: s >= 0 sink tokens, at most L.
      window: w >= 1, the causal window including the query; None is the full
        causal prefix (then the prior equals Causal()).
    """

    count: int
    window: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "count", check_int_like("count", self.count, 0))
        if self.window is not None:
            object.__setattr__(self, "window", check_int_like("window", self.window, 1))

    @property
    def label(self) -> str:
        return f"sinks s={self.count}" + ("" if self.window is None else f" + window w={self.window}")


@dataclasses.dataclass(frozen=True)
class ALiBi:
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

    @property
    def label(self) -> str:
        if self.slopes is not None:
            return f"ALiBi {self.n_heads} heads (custom slopes)"
        return f"ALiBi {self.n_heads} heads" + (" (geometric slopes)" if self.rule == "geometric" else "")


def check_slopes(name: str, slopes, n: int) -> tuple:
    """``n`` finite numbers >= 0 within float range, as a tuple (NumPy scalars as Python numbers)."""
    if isinstance(slopes, (str, bytes, dict, set)) or _size(slopes) is None:
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


def _size(values) -> int | None:
    """len(values), or None for an object without a length (a number, a 0-d array, a generator)."""
    try:
        return len(values)
    except TypeError:
        return None


def _check_segments(n: int, what: str) -> None:
    """Budget of building and validating ``n`` segment lengths (Python ints)."""
    n = n if n < 1e300 else math.inf
    check_budget(what, nbytes=40.0 * n, operations=1000.0 * n)


PRIORS = (Causal, Bidirectional, SlidingWindow, Chunks, PrefixLM, Sinks, ALiBi)
"""The priors of this module; :class:`.content.Content` is accepted too (see :func:`check_prior`)."""


def causal_here(prior, length: int | None = None) -> bool:
    """Whether mask prior ``prior`` allows exactly the causal keys (at L = ``length`` where that matters).

    Causal, PrefixLM(<= 1), Sinks without a window; with ``length``: a window >= L
    (SlidingWindow, Sinks) or one chunk of L.
    """
    if isinstance(prior, Causal) or (isinstance(prior, PrefixLM) and prior.prefix <= 1) or (
            isinstance(prior, Sinks) and prior.window is None):
        return True
    if length is None:
        return False
    if isinstance(prior, (SlidingWindow, Sinks)):
        return (prior.width if isinstance(prior, SlidingWindow) else prior.window) >= length
    return isinstance(prior, Chunks) and prior.lengths == (length,)


def check_prior(prior, length: int):
    """Validate ``prior`` for a sequence of ``length`` positions; return it.

    Accepts :data:`PRIORS` and :class:`.content.Content` (whose mask is
    checked the same way and whose ``scores`` must hold L values).

    Raises:
      ValueError: naming the argument, if ``prior`` is not one of these or
        does not fit L (Chunks ``lengths`` not summing to L, ``prefix`` > L,
        sink ``count`` > L, ``scores`` not of length L).
    """
    from .content import Content

    length = check_length(length)
    if isinstance(prior, Content):
        if prior.scores is not None and len(prior.scores) != length:
            raise ValueError(f"scores has {len(prior.scores)} entries but length is {length}; they must match")
        check_prior(prior.mask, length)
        return prior
    if not isinstance(prior, PRIORS):
        names = ", ".join(p.__name__ for p in PRIORS + (Content,))
        raise ValueError(f"prior must be one of {names}, got {prior!r}")
    if isinstance(prior, Chunks) and sum(prior.lengths) != length:
        raise ValueError(f"Chunks lengths sum to {sum(prior.lengths)} but length is {length}; they must match")
    if isinstance(prior, PrefixLM) and prior.prefix > length:
        raise ValueError(f"prefix must be <= length = {length}, got {prior.prefix}")
    if isinstance(prior, Sinks) and prior.count > length:
        raise ValueError(f"count must be <= length = {length}, got {prior.count}")
    return prior
