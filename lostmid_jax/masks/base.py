"""The two base classes: :class:`Prior` (any Step-0 attention matrix A) and :class:`Mask` (a 0/1 mask, uniform weights).

A prior answers, for a sequence of L positions (0-based query i, key j):

- ``allows(i, j)``: which keys query i sees, on broadcastable numpy or jax
  index arrays (the keys its weights live on, :attr:`Prior.support`);
- ``key_range(queries, length)``: the smallest key range [k0, k1) holding
  every key that queries [q0, q1) see (the blocks of nn's attention core);
- ``check(length)``: itself if it fits L, else a ValueError naming the field;
- ``causal_at(length)``: whether it allows exactly the causal keys at L
  (without L: at every L);
- ``label`` (for tables and figures) and ``spec`` (the text form of
  :mod:`.text`).

The structured row operators and costs are methods of the same classes.
Pure Python and numpy: no jax, no scipy.
"""

from __future__ import annotations


class Prior:
    """A Step-0 attention prior: a row-stochastic matrix A [L, L] (subclasses are frozen dataclasses)."""

    uniform = False
    """True for a 0/1 mask with uniform weights 1 / |S_i| (:class:`Mask`)."""

    causal = True
    """True when no query ever sees a later key (for any parameters and L)."""

    needs_segments = False
    """True when the rule needs segment ids at call time (documents without lengths)."""

    layers = 1
    """Rows of per-layer values (a prior with H' > 1 fits depth H' only)."""

    @property
    def support(self) -> "Mask":
        """The 0/1 mask whose keys the weights live on."""
        raise NotImplementedError

    def allows(self, i, j):
        """Allowed (query i, key j) pairs (0-based), on broadcastable numpy or jax index arrays."""
        return self.support.allows(i, j)

    def key_range(self, queries: tuple[int, int], length: int) -> tuple[int, int]:
        """Smallest key range [k0, k1) holding every key that queries [q0, q1) may see."""
        return self.support.key_range(queries, length)

    def check(self, length: int) -> "Prior":
        """``self`` if it fits L positions; a ValueError naming the field otherwise."""
        return self

    def causal_at(self, length: int | None = None) -> bool:
        """Whether the prior is the uniform causal one (Cesàro) at L = ``length`` (None: at every L)."""
        return False

    @property
    def label(self) -> str:
        raise NotImplementedError

    @property
    def spec(self) -> str:
        """The text spec :func:`.text.parse_prior` reads back."""
        raise NotImplementedError


class Mask(Prior):
    """A 0/1 mask: query i attends uniformly, A[i, j] = 1 / |S_i| for j in its allowed set S_i."""

    uniform = True

    alibi_separable = True
    """False where ALiBi inside this mask is computed densely (prefix-LM: a two-sided bias in the prefix)."""

    @property
    def support(self) -> "Mask":
        return self

    def allows(self, i, j):
        raise NotImplementedError

    def key_range(self, queries: tuple[int, int], length: int) -> tuple[int, int]:
        return 0, queries[1]  # causal masks: every key up to the last query
