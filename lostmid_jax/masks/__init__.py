"""Attention masks and Step-0 priors: one class per kind, each owning its rule (shared by nn and theory).

At initialization query-key scores are ~0, so softmax attention is uniform
over whatever the mask allows (plus any score bias that does not depend on
the weights, such as ALiBi). Every prior is such a Step-0 matrix A [L, L],
used in the residual block N_l = (1 - a_l) I + a_l A, w_j = (N_H ... N_1)[L, j].

Uniform priors: A[i, j] = 1 / |S_i| for j in the allowed set S_i, else 0
(1-based query i, key j; ``allows(i, j)`` takes 0-based indices):

=====================  ============================================  ================
class (file)           allowed keys S_i of query i                   nn mask
=====================  ============================================  ================
Causal()               1..i   (the Cesàro matrix, the default)       "causal"
  (causal.py)
Bidirectional()        1..L                                          "bidirectional"
  (causal.py)
SlidingWindow(w)       max(1, i - w + 1)..i   (w keys including i)   "sliding_window"
  (window.py)
Sinks(s, w)            {j <= i : j <= s or j > i - w}; w = None is   "sliding_window"
  (window.py)          the causal prefix (= Causal())                with sinks=s
Chunks(lengths)        start(i)..i, start(i) the first position of   "document"
  (chunks.py)          i's segment (lengths None: ids at call time)  (lengths None)
PrefixLM(n)            1..max(n, i)   (the first n see each other)   "prefix_lm"
  (prefix.py)
ALiBi(n_heads)         softmax of -m_h (i - j) over j <= i, heads    position "alibi"
  (alibi.py)           averaged (slopes: :mod:`.alibi_slopes`)
Content(mask, ...)     softmax over ``mask`` with self bonus, key    measured scores
  (content.py)         scores, ALiBi, head weights, temperature
=====================  ============================================  ================

Each class answers ``allows``, ``key_range``, ``check(L)``, ``causal_at(L)``,
``label`` and ``spec`` (:mod:`.base`); fields are validated at construction.
nn's :class:`.spec.MaskSpec` (DecoderConfig's mask strings) holds the class
as its ``rule`` (:func:`.spec.mask_of`).
Field names are nn's: ``window`` and ``sinks`` (the old theory names
``width`` and ``count`` are accepted for one release). Text specs:
:mod:`.text`. Pure Python and numpy: no jax, no scipy.
"""

from .alibi import ALiBi, check_slopes
from .base import Mask, Prior
from .causal import Bidirectional, Causal
from .chunks import Chunks
from .content import MASKS, Content
from .kinds import PRIORS, causal_here, check_prior
from .prefix import PrefixLM
from .spec import MASK_KINDS, MaskSpec, mask_of
from .text import default_priors, parse_prior, prior_spec
from .window import SlidingWindow, Sinks

__all__ = [
    "ALiBi", "Bidirectional", "Causal", "Chunks", "Content", "MASKS", "MASK_KINDS", "Mask", "MaskSpec", "PRIORS",
    "PrefixLM", "Prior", "SlidingWindow", "Sinks", "causal_here", "check_prior", "check_slopes", "default_priors",
    "mask_of", "parse_prior", "prior_spec",
]
