"""The model's own tokenizer, read from its checkpoint directory, and a word-level one built here.

    tok = load_tokenizer("path/to/checkpoint")     # tokenizer.json (the `tokenizers` library), else AutoTokenizer
    ids = tok.encode(" The code of Arlo is 42.")   # list[int], no special tokens added
    tok.bos_id                                     # the beginning-of-sequence id, or None
    tok.decode(ids)                                # the text of ids (examples.jsonl)
    tok.unk_id, tok.unk_token                      # the unknown id and its text ("[UNK]"), or None (byte-level BPE)
    word_tokenizer(words)                          # a `tokenizers` WordLevel tokenizer over a word list
    bpe_tokenizer(texts, vocab_size=300)           # a byte-level BPE trained on texts (subword pieces)
    save_tokenizer(word_tokenizer(words), path)    # tokenizer.json + tokenizer_config.json (AutoTokenizer reads it)

Text is encoded piece by piece (passages, fact, question, answer) without
special tokens, so every piece has the same ids wherever it is placed
(:mod:`.documents`); the document alone gets the BOS id, when the
tokenizer has one, in front.

Reading never executes code from the directory: tokenizer.json is read by the
`tokenizers` library; the fallback is transformers' AutoTokenizer with
``local_files_only=True`` and ``trust_remote_code=False``.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from collections.abc import Callable, Sequence

UNK, BOS = "[UNK]", "[BOS]"
"""Special tokens of :func:`word_tokenizer` (ids 0 and 1)."""


@dataclasses.dataclass(frozen=True)
class TextTokenizer:
    """What the probes need of a tokenizer.

    Attributes:
      encode: text -> token ids, no special tokens added.
      bos_id: the id put before a document, or None.
      vocab_size: the number of ids.
      source: where it was read from (for reports).
      decode: token ids -> text, special tokens kept (examples.jsonl), or None.
      unk_id: the id a text the vocabulary cannot write maps to, or None (byte-level BPE has none).
      unk_token: its text (e.g. "[UNK]", "<unk>"), or None.
    """

    encode: Callable[[str], list[int]]
    bos_id: int | None
    vocab_size: int
    source: str
    decode: Callable[[Sequence[int]], str] | None = None
    unk_id: int | None = None
    unk_token: str | None = None


def from_tokenizers(tok, *, source: str, bos_id: int | None = None) -> TextTokenizer:
    """A :class:`TextTokenizer` of a `tokenizers` Tokenizer; its unknown id is the model's own ("unk_token" of
    WordLevel, WordPiece and BPE, "unk_id" of Unigram; None when the model has none)."""
    model = json.loads(tok.to_str()).get("model", {})
    unk_token, unk_id = model.get("unk_token"), model.get("unk_id")
    if isinstance(unk_token, str):
        unk_id = tok.token_to_id(unk_token)
    elif isinstance(unk_id, int) and not isinstance(unk_id, bool):
        unk_token = tok.id_to_token(unk_id)
    else:
        unk_token = unk_id = None
    return TextTokenizer(encode=lambda text: tok.encode(text, add_special_tokens=False).ids, bos_id=bos_id,
                         vocab_size=tok.get_vocab_size(with_added_tokens=True), source=source,
                         decode=lambda ids: tok.decode([int(i) for i in ids], skip_special_tokens=False),
                         unk_id=unk_id, unk_token=unk_token if unk_id is not None else None)


def _bos_from_config(directory: pathlib.Path, token_to_id) -> int | None:
    path = directory / "tokenizer_config.json"
    if not path.is_file() or path.is_symlink():
        return None
    try:
        bos = json.loads(path.read_text()).get("bos_token")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(bos, dict):
        bos = bos.get("content")
    return token_to_id(bos) if isinstance(bos, str) else None


def load_tokenizer(weights, *, name: str = "weights") -> TextTokenizer:
    """The tokenizer stored with a checkpoint (a directory, or a hub id in the local cache).

    Args:
      weights: the checkpoint directory or hub id (as ``nn.load_hf`` takes).
      name: the argument name used in error messages.

    Raises:
      ValueError: naming ``name`` when the directory holds no tokenizer (with the way out: the
        token-level probe, which needs none).
    """
    from ..nn.hf.hub import resolve_checkpoint

    directory = resolve_checkpoint(weights)
    path = directory / "tokenizer.json"
    if path.is_file() and not path.is_symlink():
        import tokenizers

        tok = tokenizers.Tokenizer.from_file(str(path))
        return from_tokenizers(tok, source=str(path), bos_id=_bos_from_config(directory, tok.token_to_id))
    files = ("tokenizer.model", "vocab.json", "spiece.model")
    if any((directory / f).is_file() for f in files):
        try:
            from transformers import AutoTokenizer
        except ImportError:
            raise ValueError(f"{name}: the checkpoint {str(weights)!r} has no tokenizer.json, only a slow tokenizer "
                             f"({', '.join(f for f in files if (directory / f).is_file())}), which needs transformers: "
                             "pip install 'lostmid-jax[hf]'") from None

        tok = AutoTokenizer.from_pretrained(directory, local_files_only=True, trust_remote_code=False)
        return TextTokenizer(encode=lambda text: tok.encode(text, add_special_tokens=False),
                             bos_id=tok.bos_token_id, vocab_size=len(tok), source=str(directory),
                             decode=lambda ids: tok.decode([int(i) for i in ids], skip_special_tokens=False),
                             unk_id=tok.unk_token_id, unk_token=tok.unk_token if tok.unk_token_id is not None else None)
    raise ValueError(f"{name}: the checkpoint {str(weights)!r} holds no tokenizer (tokenizer.json, "
                     f"tokenizer.model or vocab.json); the text probe needs one: add it, or use the "
                     "token-level probe (mode 'tokens'), which needs none")


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


__all__ = ["BOS", "TextTokenizer", "UNK", "bpe_tokenizer", "from_tokenizers", "load_tokenizer", "save_tokenizer",
           "word_tokenizer"]
