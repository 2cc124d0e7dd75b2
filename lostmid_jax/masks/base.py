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

and, for theory's exact rows in O(L) per layer (0-based arrays [L] in an
arithmetic ``ops`` of :mod:`lostmid_jax.theory._arith`):

- ``row_operator(length, ops)``: the map r -> r A, (r A)_j = sum_i r_i A[i, j];
- for a :class:`Mask`, ``counts`` (|S_i|), ``forward`` (F(g)_i = sum_{j in S_i} g_j),
  ``gather`` (G(u)_j = sum_{i : j in S_i} u_i) and ``alibi_sums`` (the same
  with weights q^|i-j|), from which a uniform row is r -> G(r / c) and a
  content row is built (:mod:`.content_ops`);
- ``cost_terms(length)`` and ``norm_heads(length)``: the kind's terms of the
  cost model of :mod:`lostmid_jax.theory._costs`;
- ``attention_matrix(length, exact=...)``: the dense A, the independent
  route the tests compare the operators with.

Pure Python and numpy: no jax, no scipy.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

from ._costs import check_dense, num
from ._sums import uniform_operator


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

    def row_operator(self, length: int, ops) -> Callable:
        """The map r -> r A at length L in ``ops`` arithmetic ([L] -> [L]; a list of them, one per layer,
        for per-layer values). Precomputed row sizes / norms are reused across calls."""
        raise NotImplementedError

    def suffix_segments(self, length: int) -> list[tuple[int, int]] | None:
        """The segments [start, end) (0-based, covering 0..L-1) when the row operator is exactly a suffix
        sum per segment of r / c, (rA)_j = sum_{i >= j, i in seg(j)} r_i / c_i with c = counts, computed by
        ``suffix``; else None. Such rows may run in theory's compiled kernel (theory/native_row.py)."""
        return None

    def cost_terms(self, length: int) -> tuple[float, float, float, str]:
        """(entry multiplier, extra numpy calls per layer, exact bits per layer from the row sizes, description)."""
        return 1.0, 2.0, 1.45 * num(length), ""

    def norm_heads(self, length: float) -> float:
        """Head norms computed once per row (ALiBi heads; Content heads per layer row, L each when dense)."""
        return 0

    def attention_matrix(self, length: int, *, exact: bool = False):
        """The dense row-stochastic A [L, L] (float64; exact: a list of lists of Fraction where rational)."""
        raise NotImplementedError

    def content_form(self):
        """The same prior as a :class:`.content.Content`, or None where it has no content terms."""
        return None

    def check_rational(self) -> None:
        """Raise a ValueError naming backend 'exact' if the weights are irrational (content terms)."""


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

    def counts(self, length: int) -> np.ndarray:
        """Row sizes |S_i|, integers [L]."""
        raise NotImplementedError

    def forward(self, length: int, ops) -> Callable:
        """g -> F(g), F(g)_i = sum_{j in S_i} g_j (the row sums weighted by g), O(L)."""
        raise NotImplementedError

    def gather(self, length: int, ops) -> Callable:
        """u -> G(u), G(u)_j = sum_{i : j in S_i} u_i (the transposed mask sum), O(L)."""
        raise NotImplementedError

    def alibi_sums(self, length: int, m, ops) -> tuple[Callable, Callable] | None:
        """(forward, gather) with ALiBi weights q^|i-j|, q = e^(-m), over the allowed keys, O(L);
        None where they are dense (:attr:`alibi_separable` False)."""
        raise NotImplementedError

    def row_operator(self, length: int, ops) -> Callable:
        """r -> G(r / c), c = :meth:`counts`."""
        return uniform_operator(self.counts(length), ops, self.gather(length, ops))

    def allowed(self, length: int) -> np.ndarray:
        """Boolean [L, L], True where query i may attend to key j (0-based)."""
        check_dense("allowed_mask", length, exact=False, copies=4.0)
        i, j = np.indices((length, length))
        return np.asarray(self.allows(i, j))

    def attention_matrix(self, length: int, *, exact: bool = False):
        check_dense("attention_matrix", length, exact=exact, copies=6.0, per_entry_ns=3000.0 if exact else 30.0)
        mask = self.allowed(length)
        counts = mask.sum(axis=1)
        if exact:
            return [[Fraction(int(mask[r, c]), int(counts[r])) for c in range(length)] for r in range(length)]
        return mask / counts[:, None]
