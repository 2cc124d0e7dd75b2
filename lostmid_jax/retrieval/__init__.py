"""Position-controlled retrieval as token ids, below training and probing (both use it; it imports neither).

Shapes: E examples, k passages (p = 1..k), T prompt ids, C answer candidates, A the longest candidate.

    probes = token_probes(vocab_size, examples=40, length=256)   # keys and values as ids: no tokenizer
    probes.prompts [E, k, T]; probes.answers [E, C, A]             # a ProbeSet: prompts differ only in p
    save_tokenizer(word_tokenizer(words), path)                    # a tokenizer built here, as tokenizer.json

    design.py              ProbeSet and the paired layout: k passages, the fact in passage p, the question
    token_probes.py        the token-level probe (lostmid train's "passages" task, the --mode tokens probe)
    tokenizer_builders.py  word_tokenizer, bpe_tokenizer, save_tokenizer (the `tokenizers` library)

The text probes (a tokenizer, facts, filler sentences) are built on the same design in
:mod:`lostmid_jax.probes.documents`. Imports numpy and lostmid_jax.validation only.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "ProbeSet": ".design",
    "check_design": ".design",
    "token_probes": ".token_probes",
    "BOS": ".tokenizer_builders",
    "UNK": ".tokenizer_builders",
    "bpe_tokenizer": ".tokenizer_builders",
    "save_tokenizer": ".tokenizer_builders",
    "word_tokenizer": ".tokenizer_builders",
}
_SUBMODULES = ("design", "token_probes", "tokenizer_builders")

__all__ = sorted(_EXPORTS) + list(_SUBMODULES)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
