"""The model a probe runs on: a checkpoint with its tokenizer, or the tiny random Llama of ``--smoke``.

    tiny_config()                               # the tiny Llama's DecoderConfig (vocabulary: the word tokenizer's)
    write_tiny_checkpoint(path, gain=5.0)       # save_hf of a random one + tokenizer.json (the `tokenizers` library)
    check_text_inputs(cfg)                      # text mode: a tokenizer, readable corpus and facts (named errors)
    model_cfg, model, path, tok = load_checkpoint(cfg, run_dir)      # cfg: weights, allow_download, mode
    probes = build_probes(cfg, tok, vocab_size, length)              # text or token-level, from cfg's fields

``cfg`` is any config with the probe fields the experiments share (``diagnose``
and ``remedies``): weights (RANDOM_TINY writes the tiny model into
<run_dir>/checkpoint), allow_download, mode ("text" or "tokens"), examples,
passages, candidates, key_tokens, value_tokens, facts, corpus, seed and
optionally low.
"""

from __future__ import annotations

import logging
import pathlib

RANDOM_TINY = "random:tiny-llama"
"""``weights`` of --smoke: a tiny random Llama written with save_hf, with a word-level tokenizer."""
TINY_LLAMA = dict(depth=2, width=32, heads=4, kv_heads=2, mlp_width=64, rope_theta=1e4, rope_scaling=None,
                  max_positions=512)
"""The tiny Llama's fields over preset "llama-3.2-1b": RMSNorm, SwiGLU, RoPE; width 32, 2 layers."""
TINY_SEED = 1234
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "spiece.model")
"""Files that make a checkpoint directory carry a tokenizer (:func:`.tokenizer.load_tokenizer` reads them)."""
_LOG = logging.getLogger(__name__)


def tiny_config():
    """The DecoderConfig of the tiny Llama (its vocabulary: the word tokenizer over the built-in words)."""
    from ..nn import preset
    from .documents import builtin_vocabulary

    return preset("llama-3.2-1b", vocab_size=len(builtin_vocabulary()) + 2, **TINY_LLAMA)


def write_tiny_checkpoint(path, *, gain: float = 1.0, seed: int = TINY_SEED) -> pathlib.Path:
    """A random tiny Llama (save_hf) and the word-level tokenizer of the built-in words, in ``path``.

    Args:
      gain: every weight matrix (ndim >= 2) is multiplied by it after the init (std 0.02 gain); > 1 makes
        attention depart from uniform, a stand-in for a trained model.
      seed: the init seed.
    """
    import jax
    from flax import nnx

    from ..nn import Decoder, save_hf
    from .documents import builtin_vocabulary
    from .tokenizer import save_tokenizer, word_tokenizer

    model_cfg = tiny_config()
    model = Decoder(model_cfg, rngs=nnx.Rngs(seed))
    if gain != 1.0:
        params = nnx.state(model, nnx.Param)
        nnx.update(model, jax.tree.map(lambda v: v * gain if v.ndim >= 2 else v, params))
    path = save_hf(model, model_cfg, path)
    save_tokenizer(word_tokenizer(builtin_vocabulary()), path)
    return pathlib.Path(path)


def check_tokenizer_files(path, weights, *, name: str = "weights") -> None:
    """A ValueError naming ``name`` when the checkpoint directory ``path`` carries no tokenizer file."""
    path = pathlib.Path(path)
    if not any((path / n).is_file() and not (path / n).is_symlink() for n in TOKENIZER_FILES):
        raise ValueError(f"{name}: the checkpoint {str(weights)!r} holds no tokenizer (tokenizer.json, "
                         "tokenizer.model or vocab.json); the text probe needs one: add it, or pass "
                         "--mode tokens (keys and values as token ids, no tokenizer)")


def check_text_inputs(cfg) -> None:
    """Text mode's refusals before any work (ValueError naming the field): a checkpoint without a tokenizer
    (``weights``; RANDOM_TINY brings its own), an unreadable ``corpus``, a ``facts`` file with fewer than 2 facts."""
    from .documents import read_corpus, read_facts

    if cfg.weights != RANDOM_TINY:
        from ..nn.hf.hub import checkpoint_config

        check_tokenizer_files(checkpoint_config(cfg.weights, allow_download=cfg.allow_download)[0], cfg.weights)
    if cfg.corpus is not None:
        read_corpus(cfg.corpus)
    if cfg.facts is not None and len(read_facts(cfg.facts)) < 2:
        raise ValueError("facts: the file must hold >= 2 facts (the paired intervals need 2 examples)")


def checkpoint_title(weights: str) -> str:
    """The checkpoint's name in titles: "tiny random Llama", the directory's name, or the hub id."""
    if weights == RANDOM_TINY:
        return "tiny random Llama"
    path = pathlib.Path(weights)
    return path.resolve().name if path.is_dir() else weights


def load_checkpoint(cfg, run_dir, *, gain: float = 1.0):
    """(DecoderConfig, Decoder, directory, tokenizer or None) of ``cfg.weights``; RANDOM_TINY is written first
    (into <run_dir>/checkpoint, or a temporary directory without a run directory)."""
    from ..nn import load_hf
    from ..nn.hf.hub import checkpoint_config
    from .tokenizer import load_tokenizer

    if cfg.weights == RANDOM_TINY:
        import tempfile

        from ..runs.ledger import note

        path = pathlib.Path(run_dir) / "checkpoint" if run_dir is not None else \
            pathlib.Path(tempfile.mkdtemp(prefix="lostmid_tiny_llama_"))
        note(path)  # listed in the run's record before it is written (what --replace-unfinished removes)
        _LOG.info(f"writing a tiny random Llama (seed {TINY_SEED}) and a word-level tokenizer to {path}")
        write_tiny_checkpoint(path, gain=gain)
    else:
        path = checkpoint_config(cfg.weights, allow_download=cfg.allow_download)[0]
    tok = load_tokenizer(path) if cfg.mode == "text" else None
    _LOG.info(f"loading {path} with nn.load_hf")
    model_cfg, model = load_hf(path)
    return model_cfg, model, path, tok


def build_probes(cfg, tok, vocab_size: int, length: int):
    """The probe set of ``cfg`` at prompt length T = ``length`` (text with ``tok``, or token ids)."""
    from .documents import builtin_facts, read_corpus, read_facts, text_probes, token_probes

    if cfg.mode == "tokens":
        return token_probes(vocab_size, examples=cfg.examples, passages=cfg.passages, length=length,
                            candidates=cfg.candidates, key_tokens=cfg.key_tokens, value_tokens=cfg.value_tokens,
                            low=getattr(cfg, "low", 0), seed=cfg.seed)
    facts = read_facts(cfg.facts)[:cfg.examples] if cfg.facts else builtin_facts(cfg.examples, seed=cfg.seed)
    corpus = read_corpus(cfg.corpus) if cfg.corpus else None
    return text_probes(tok, facts, passages=cfg.passages, length=length, candidates=cfg.candidates,
                       corpus=corpus, seed=cfg.seed)



class CheckpointSource:
    """The checkpoint side of an experiment config with fields ``weights``, ``allow_download``, ``mode``,
    ``corpus`` and ``facts`` (diagnose, remedies): validation, the local directory, the DecoderConfig, a title."""

    def check_source(self) -> None:
        """weights non-empty, allow_download a bool, mode one of ``modes``, corpus / facts only in mode 'text'."""
        from ..validation import check_bool_like

        if not isinstance(self.weights, str) or not self.weights:
            raise ValueError(f"weights must be a checkpoint directory or hub id, got {self.weights!r}")
        object.__setattr__(self, "allow_download", check_bool_like("allow_download", self.allow_download))
        for name in ("corpus", "facts"):
            if getattr(self, name) is not None and self.mode != "text":
                raise ValueError(f"{name} is used by mode 'text' only, got mode={self.mode!r}")

    def checked_model_config(self):
        """The checkpoint's DecoderConfig, its size checked, with a vocabulary (ValueError naming ``weights``)."""
        model_cfg = self.model_config().check_size()
        if model_cfg.vocab_size is None:
            raise ValueError("weights: the checkpoint has no vocabulary (config.json without vocab_size)")
        return model_cfg

    def checkpoint(self) -> pathlib.Path | None:
        """The checkpoint's local directory (None for the tiny random one); ValueError naming ``weights``."""
        return None if self.weights == RANDOM_TINY else self._read_checkpoint()[0]

    def model_config(self):
        """The checkpoint's DecoderConfig from its config.json (ValueError naming ``weights``)."""
        return tiny_config() if self.weights == RANDOM_TINY else self._read_checkpoint()[1]

    def _read_checkpoint(self):
        from ..nn.hf.hub import checkpoint_config

        return checkpoint_config(self.weights, allow_download=self.allow_download)

    @property
    def title(self) -> str:
        """The checkpoint's name in titles."""
        return checkpoint_title(self.weights)

__all__ = ["CheckpointSource", "RANDOM_TINY", "TINY_LLAMA", "TINY_SEED", "TOKENIZER_FILES", "build_probes", "check_text_inputs", "check_tokenizer_files", "checkpoint_title",
           "load_checkpoint", "tiny_config", "write_tiny_checkpoint"]
