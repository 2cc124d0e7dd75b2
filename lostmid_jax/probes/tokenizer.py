"""The model's own tokenizer, read from its checkpoint directory.

    tok = load_tokenizer("path/to/checkpoint")     # tokenizer.json (the `tokenizers` library), else AutoTokenizer
    ids = tok.encode(" The code of Arlo is 42.")   # list[int], no special tokens added
    tok.bos_id                                     # the beginning-of-sequence id, or None
    tok.decode(ids)                                # the text of ids (examples.jsonl)
    tok.unk_id, tok.unk_token                      # the unknown id and its text ("[UNK]"), or None (byte-level BPE)

Tokenizers built here (word-level, a small byte-level BPE) and save_tokenizer, which writes one, live in
:mod:`lostmid_jax.retrieval.tokenizer_builders`, below training and probing.

Text is encoded piece by piece (passages, fact, question, answer) without
special tokens, so every piece has the same ids wherever it is placed
(:mod:`.documents`); the document alone gets the BOS id, when the
tokenizer has one, in front.

Reading never executes code from the directory: tokenizer.json is read by the
`tokenizers` library; the fallback is transformers' AutoTokenizer with
``local_files_only=True`` and ``trust_remote_code=False``. Every damaged or
unreadable tokenizer file is one ValueError line naming the file.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import logging
import pathlib
from collections.abc import Callable, Sequence

from .._moved import old_names

TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "spiece.model")
"""Files that make a checkpoint directory carry a tokenizer (:func:`load_tokenizer` reads them)."""


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


def _bos_from_config(directory: pathlib.Path, token_to_id, name: str) -> int | None:
    """The id of tokenizer_config.json's bos_token (a string, or an object with "content"), or None."""
    from ..nn.hf.files import checkpoint_file
    from ..untrusted import read_json_object, typed

    path = checkpoint_file(directory, "tokenizer_config.json")
    if path is None:
        return None
    record = read_json_object(path, name)
    bos = record.get("bos_token")
    if isinstance(bos, dict):
        bos = typed(bos, "content", "a string", f"{name}: {path} bos_token")
    elif bos is not None and not isinstance(bos, str):
        raise ValueError(f"{name}: {path} bos_token must be a string or an object with \"content\", got "
                         f"{json.dumps(bos)[:60]}")
    return token_to_id(bos) if isinstance(bos, str) else None


@functools.lru_cache(maxsize=4)
def _fast_tokenizer(path: str, name: str, _stamp: tuple):
    """The `tokenizers` Tokenizer of tokenizer.json ``path`` (read by :mod:`lostmid_jax.untrusted` first, so
    every damage is one line naming the file); ``_stamp`` (mtime, size) keys the cache."""
    import tokenizers

    from ..untrusted import read_json_text

    text, data = read_json_text(path, name, kind="an object")  # a regular, bounded, UTF-8 file
    model = data.get("model")
    if not isinstance(model, dict):
        raise ValueError(f"{name}: {path} holds no tokenizer (no \"model\" object); save it with the "
                         "`tokenizers` library or transformers' save_pretrained")
    try:
        return tokenizers.Tokenizer.from_str(text)
    except Exception as err:  # the Rust library raises its own Exception type, with serde's message
        detail = " ".join(str(err).split())[:200]
        raise ValueError(f"{name}: {path} is not a tokenizer the `tokenizers` library reads (its model has "
                         f"type {model.get('type')!r}: {detail}); save it again with the `tokenizers` library "
                         "or transformers' save_pretrained") from None


def _no_tokenizer(name: str, weights) -> ValueError:
    return ValueError(f"{name}: the checkpoint {str(weights)!r} holds no tokenizer (tokenizer.json, "
                      "tokenizer.model or vocab.json); the text probe needs one: add it, or pass "
                      "--mode tokens (keys and values as token ids, no tokenizer)")


def _transformers_tokenizer(directory: pathlib.Path, name: str):
    """transformers' AutoTokenizer of ``directory`` (local files only, no code of the checkpoint run); its
    multi-line errors as one line saying what to do."""
    from ..nn.hf.files import checkpoint_file
    from ..untrusted import read_json_object

    config = checkpoint_file(directory, "tokenizer_config.json")
    record = read_json_object(config, name) if config is not None else {}
    if "auto_map" in record:
        raise ValueError(f"{name}: {config} maps the tokenizer to the checkpoint's own code (auto_map), which is "
                         "never run (no trust_remote_code); save the tokenizer as tokenizer.json where that code "
                         "runs (AutoTokenizer.from_pretrained(..., trust_remote_code=True).save_pretrained(DIR) "
                         "with a fast tokenizer), or pass --mode tokens")
    needs = ["transformers"] + (["sentencepiece"] if any(checkpoint_file(directory, f) is not None
                                                         for f in ("tokenizer.model", "spiece.model")) else [])
    missing = [pkg for pkg in needs if importlib.util.find_spec(pkg) is None]
    if missing:
        raise ValueError(f"{name}: the tokenizer of {directory} is not a tokenizer.json; reading it needs "
                         f"{' and '.join(missing)}: pip install {' '.join(missing)} (or save it as tokenizer.json, "
                         "or pass --mode tokens)")
    from transformers import AutoTokenizer

    quiet = logging.getLogger("transformers")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # its warnings of fallbacks tried ("Falling back to ...") say nothing we do not
    try:
        return AutoTokenizer.from_pretrained(directory, local_files_only=True, trust_remote_code=False)
    except Exception as err:  # transformers raises ValueError, ImportError, OSError, ... over several lines
        text = " ".join(str(err).split())
        missing = next((pkg for pkg in ("sentencepiece", "protobuf", "tiktoken") if pkg in text.lower()), None)
        if missing is not None:
            raise ValueError(f"{name}: the tokenizer of {directory} needs the {missing} package: pip install "
                             f"{missing} (or save it as tokenizer.json, or pass --mode tokens)") from None
        raise ValueError(f"{name}: transformers cannot read the tokenizer of {directory} ({type(err).__name__}: "
                         f"{text[:200]}); save it as tokenizer.json, or pass --mode tokens") from None
    finally:
        quiet.setLevel(level)


def load_tokenizer(weights, *, name: str = "weights") -> TextTokenizer:
    """The tokenizer stored with a checkpoint (a directory, or a hub id in the local cache).

    tokenizer.json is read by :mod:`lostmid_jax.untrusted` (a regular file, UTF-8, a JSON object with a
    "model") and built by the `tokenizers` library; other tokenizer files by transformers' AutoTokenizer
    (local files only, no code of the checkpoint). A symlink is followed only inside the checkpoint (or
    its hub cache repo folder: :func:`lostmid_jax.nn.hf.files.checkpoint_file`).

    Args:
      weights: the checkpoint directory or hub id (as ``nn.load_hf`` takes).
      name: the argument name used in error messages.

    Raises:
      ValueError: one line naming ``name`` and the file: no tokenizer (with the way out: the token-level
        probe, which needs none), a damaged tokenizer.json or tokenizer_config.json, a tokenizer
        transformers cannot read (what to install or do).
    """
    from ..nn.hf.files import checkpoint_file
    from ..nn.hf.hub import resolve_checkpoint

    directory = resolve_checkpoint(weights)
    path = checkpoint_file(directory, "tokenizer.json")
    if path is not None:
        stat = path.stat()
        tok = _fast_tokenizer(str(path), name, (stat.st_mtime_ns, stat.st_size))
        return from_tokenizers(tok, source=str(path), bos_id=_bos_from_config(directory, tok.token_to_id, name))
    if any(checkpoint_file(directory, f) is not None for f in TOKENIZER_FILES[1:]):
        tok = _transformers_tokenizer(directory, name)
        return TextTokenizer(encode=lambda text: tok.encode(text, add_special_tokens=False),
                             bos_id=tok.bos_token_id, vocab_size=len(tok), source=str(directory),
                             decode=lambda ids: tok.decode([int(i) for i in ids], skip_special_tokens=False),
                             unk_id=tok.unk_token_id, unk_token=tok.unk_token if tok.unk_token_id is not None else None)
    raise _no_tokenizer(name, weights)


__all__ = ["TOKENIZER_FILES", "TextTokenizer", "from_tokenizers", "load_tokenizer"]


__getattr__ = old_names(__name__)  # UNK, BOS, word_tokenizer, bpe_tokenizer, save_tokenizer: lostmid_jax._moved.NAMES
