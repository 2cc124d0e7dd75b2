"""What practitioners measure on a trained model: position-controlled retrieval on text or tokens.

Shapes: E examples, k passages (p = 1..k, the fact's passage), T prompt ids, C answer candidates.

    tok = load_tokenizer(DIR)                                   # the checkpoint's own tokenizer
    probes = text_probes(tok, builtin_facts(40), passages=5, length=1024)   # paired design, T ids exactly
    probes = token_probes(cfg.vocab_size, examples=40, length=256)         # no tokenizer: any model
    scores = score_probes(model, probes)                        # log P(answer), MC rank, greedy exact match
    result = position_test(scores)                              # accuracy per passage (Wilson), middle vs ends
    result.verdict                                              # "middle worse" / "no difference beyond noise"

One module per idea: documents (the generator and the paired design),
fact_files (the --facts file: facts, the paper's multi-document QA and
key-value formats), filler (text cut between whole words),
tokenizer (reading the model's tokenizer; a word-level one built with the
`tokenizers` library), scoring (log-probabilities, ranks, exact match),
accuracy_by_passage (accuracy per passage with intervals, and the paired middle-vs-ends difference),
settings (the groups diagnose and remedies share: CheckpointSettings,
ProbeDesign), checkpoint (the model a probe runs on, looked up once: a
checkpoint and its tokenizer, or the tiny random Llama of --smoke; the probe
set from a ProbeDesign),
unknown (strings the tokenizer maps to [UNK] and answers that tokenize alike,
refused or counted), context (the trained context; lengths beyond it) and
cost (a run's CPU seconds and memory, estimated before any model loads).
Attention received per key and the valley fit live with the other
measurements: :func:`lostmid_jax.analysis.attention_received`,
:func:`lostmid_jax.stats.valley.valley_fit`.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "DocumentExample": ".fact_files",
    "Fact": ".fact_files",
    "ProbeSet": "..retrieval.design",
    "builtin_facts": ".documents",
    "builtin_vocabulary": ".documents",
    "read_corpus": ".documents",
    "read_facts": ".fact_files",
    "document_probes": ".documents",
    "text_probes": ".documents",
    "token_probes": "..retrieval.token_probes",
    "TextTokenizer": ".tokenizer",
    "load_tokenizer": ".tokenizer",
    "save_tokenizer": "..retrieval.tokenizer_builders",
    "word_tokenizer": "..retrieval.tokenizer_builders",
    "bpe_tokenizer": "..retrieval.tokenizer_builders",
    "ProbeScores": ".scoring",
    "check_fits": ".scoring",
    "score_probes": ".scoring",
    "PositionResult": ".accuracy_by_passage",
    "middle_passages": ".accuracy_by_passage",
    "position_test": ".accuracy_by_passage",
    "CheckpointSettings": ".settings",
    "ProbeDesign": ".settings",
}
_SUBMODULES = ("accuracy_by_passage", "checkpoint", "context", "cost", "documents", "fact_files", "filler", "scoring",
               "settings", "tokenizer", "unknown")

__all__ = sorted(_EXPORTS) + list(_SUBMODULES)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
