"""Tokenizers built here with the `tokenizers` library, and written as a checkpoint's tokenizer.json.

    tok = word_tokenizer(words)                    # WordLevel: [UNK] = 0, [BOS] = 1, then the words
    tok = bpe_tokenizer(texts, vocab_size=300)     # a byte-level BPE trained on texts (subword pieces)
    save_tokenizer(tok, path)                      # tokenizer.json + tokenizer_config.json (AutoTokenizer reads it)

A trained run's model is exported with a word-level tokenizer that names its ids (lostmid_jax.train.export), so
the directory is a checkpoint the probes read (lostmid_jax.probes.tokenizer.load_tokenizer); the tests build
their tokenizers here. The `tokenizers` library is imported on use.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Sequence

UNK, BOS = "[UNK]", "[BOS]"
"""Special tokens of :func:`word_tokenizer` and :func:`bpe_tokenizer` (ids 0 and 1)."""


def word_tokenizer(words: Sequence[str]):
    """A `tokenizers` WordLevel tokenizer: [UNK] = 0, [BOS] = 1, then ``words`` (duplicates dropped) in
    order; text is split on whitespace and punctuation, so "code." is "code" and ".". Decoding joins with
    spaces."""
    import tokenizers
    from tokenizers import decoders, models, pre_tokenizers

    vocab = {UNK: 0, BOS: 1}
    for word in words:
        vocab.setdefault(word, len(vocab))
    tok = tokenizers.Tokenizer(models.WordLevel(vocab, unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece()  # joins tokens with spaces
    return tok


def bpe_tokenizer(texts: Sequence[str], vocab_size: int = 300):
    """A byte-level BPE (the `tokenizers` library) of ``vocab_size`` ids trained on ``texts``: [UNK] = 0,
    [BOS] = 1, the 256 bytes, then merges. No text maps to [UNK] (every byte has an id); with few merges most
    words are several ids, as rare words are for a real model's tokenizer. Deterministic."""
    import tokenizers
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tok = tokenizers.Tokenizer(models.BPE(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(list(texts), trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=[UNK, BOS], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def save_tokenizer(tok, path) -> pathlib.Path:
    """Write a `tokenizers` Tokenizer as tokenizer.json plus a tokenizer_config.json naming [BOS] / [UNK]
    (what :func:`load_tokenizer` and transformers' AutoTokenizer read)."""
    path = pathlib.Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tok.save(str(path / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": UNK}
    if tok.token_to_id(BOS) is not None:
        config["bos_token"] = BOS
    (path / "tokenizer_config.json").write_text(json.dumps(config, indent=1))
    return path


__all__ = ["BOS", "UNK", "bpe_tokenizer", "save_tokenizer", "word_tokenizer"]
