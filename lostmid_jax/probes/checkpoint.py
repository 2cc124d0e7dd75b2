"""The model a probe runs on: a checkpoint with its tokenizer, or the tiny random Llama of ``--smoke``.

    tiny_config()                               # the tiny Llama's DecoderConfig (vocabulary: the word tokenizer's)
    write_tiny_checkpoint(path, gain=5.0)       # save_hf of a random one + tokenizer.json (the `tokenizers` library)
    checkpoint = look_up_checkpoint(source, probe)   # looked up once: directory, config.json, DecoderConfig,
                                                     # tokenizer, text mode's checks; every later step takes it
    check_text_inputs(probe, tok)               # text mode: readable corpus and facts, every string known to the
                                                # tokenizer, distinct candidates (named errors)
    model_cfg, model, path, tok = load_checkpoint(checkpoint, run_dir, dtype=source.dtype)   # the weights, once
    probes = build_probes(probe, tok, vocab_size, length)                # text or token-level

``source`` and ``probe`` are the groups the experiments share
(:mod:`.settings`: CheckpointSettings, ProbeDesign; RANDOM_TINY writes the
tiny model into <run_dir>/checkpoint).
"""

from __future__ import annotations

import dataclasses
import logging
import pathlib

from .settings import RANDOM_TINY, CheckpointSource, ProbeDesign, checkpoint_title
from .tokenizer import TOKENIZER_FILES

TINY_LLAMA = dict(depth=2, width=32, heads=4, kv_heads=2, mlp_width=64, rope_theta=1e4, rope_scaling=None,
                  max_positions=512)
"""The tiny Llama's fields over preset "llama-3.2-1b": RMSNorm, SwiGLU, RoPE; width 32, 2 layers."""
TINY_SEED = 1234
WORD_JOINER = "\u2060"
"""The default marker of ``lostmid remedies`` (U+2060, the zero-width word joiner); the tiny tokenizer knows it."""
_LOG = logging.getLogger(__name__)


def tiny_words() -> tuple[str, ...]:
    """The tiny tokenizer's words (after [UNK] and [BOS]): the built-in generator's, then the default marker."""
    from .documents import builtin_vocabulary

    return builtin_vocabulary() + (WORD_JOINER,)


def tiny_config():
    """The DecoderConfig of the tiny Llama (its vocabulary: the word tokenizer over :func:`tiny_words`)."""
    from ..nn import preset

    return preset("llama-3.2-1b", vocab_size=len(tiny_words()) + 2, **TINY_LLAMA)


def tiny_tokenizer():
    """The tiny Llama's word-level tokenizer as a :class:`.tokenizer.TextTokenizer` (built here, nothing read)."""
    from ..retrieval.tokenizer_builders import BOS, word_tokenizer
    from .tokenizer import from_tokenizers

    tok = word_tokenizer(tiny_words())
    return from_tokenizers(tok, source=f"{RANDOM_TINY} (word level)", bos_id=tok.token_to_id(BOS))


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
    from ..retrieval.tokenizer_builders import save_tokenizer, word_tokenizer

    model_cfg = tiny_config()
    model = Decoder(model_cfg, rngs=nnx.Rngs(seed))
    if gain != 1.0:
        params = nnx.state(model, nnx.Param)
        nnx.update(model, jax.tree.map(lambda v: v * gain if v.ndim >= 2 else v, params))
    path = save_hf(model, model_cfg, path)
    save_tokenizer(word_tokenizer(tiny_words()), path)
    return pathlib.Path(path)


def check_tokenizer_files(path, weights, *, name: str = "weights") -> None:
    """A ValueError naming ``name`` when the checkpoint directory ``path`` carries no tokenizer file (a
    symlink counts only inside the checkpoint: :func:`lostmid_jax.nn.hf.files.checkpoint_file`)."""
    from ..nn.hf.files import checkpoint_file
    from .tokenizer import _no_tokenizer

    if not any(checkpoint_file(path, n) is not None for n in TOKENIZER_FILES):
        raise _no_tokenizer(name, weights)


def probe_facts(cfg: ProbeDesign):
    """The facts of the probe's examples: the first ``examples`` of its ``facts`` file, else the built-in ones
    (ValueError naming ``examples`` past the built-in generator's distinct facts)."""
    from .documents import builtin_facts, read_facts

    if cfg.facts:
        return read_facts(cfg.facts)[:cfg.examples]
    try:
        return builtin_facts(cfg.examples, seed=cfg.seed)
    except ValueError as err:
        raise ValueError(f"examples: the built-in generator cannot make {cfg.examples} distinct facts ({err}); "
                         "give a --facts file") from None


@dataclasses.dataclass(frozen=True)
class TextInputs:
    """What :func:`check_text_inputs` learned: the unknown strings (:class:`.unknown.UnknownCount`), the
    longest answer in ids (A: a scoring forward reads T + A - 1 positions) and the tokenizer."""

    unknown: object
    answer_ids: int
    tokenizer: object


def check_text_inputs(cfg: ProbeDesign, tok, *, marker: str | None = None, tiny: bool = False) -> TextInputs:
    """Text mode's refusals before any work (ValueError, one line naming the field): a checkpoint without a
    tokenizer (``weights``; RANDOM_TINY brings its own), an unreadable ``corpus``, a ``facts`` file with fewer
    than 2 facts or too few distinct answers for the candidates, of the paper's formats with fewer than k - 1
    distractor documents in an example (``passages``) or more ids in an example's documents and question than
    the shortest prompt length (``lengths``), a string the tokenizer maps to its unknown id (unless
    ``cfg.allow_unknown_tokens``), answers that tokenize alike (:mod:`.unknown`), a ``marker`` (of markers
    remedies; None: none) the tokenizer cannot write. ``tok``: the checkpoint's tokenizer; ``tiny``: it is the
    tiny word-level one of RANDOM_TINY (the documents' length is not checked with it)."""
    from .documents import ANSWER, read_corpus, read_facts
    from .unknown import check_candidates, check_known, probe_texts
    corpus = read_corpus(cfg.corpus) if cfg.corpus is not None else None
    if cfg.facts is not None and len(read_facts(cfg.facts)) < 2:
        raise ValueError("facts: the file must hold >= 2 facts (the paired intervals need 2 examples)")
    facts = probe_facts(cfg)
    _check_documents(cfg, facts, None if tiny else tok)
    count = check_known(tok, probe_texts(facts, corpus=corpus, marker=marker, passages=cfg.passages),
                        allow=cfg.allow_unknown_tokens, marker=marker)
    answers = [f.answer for f in facts]
    if len(set(answers)) < cfg.candidates:
        raise ValueError(f"candidates: {cfg.candidates} answer candidates need as many distinct answers among the "
                         f"{len(facts)} facts of the examples, found {len(set(answers))}")
    check_candidates(tok, answers)
    if marker is not None:
        encode_marker(marker, tok)  # a marker that encodes to nothing is refused
    return TextInputs(count, max(len(tok.encode(ANSWER.format(answer=a))) for a in answers), tok)


def _check_documents(cfg: ProbeDesign, facts, tok) -> None:
    """Examples of the paper's formats (facts with distractor documents): k - 1 distractors each (``passages``),
    and, with the checkpoint's tokenizer ``tok``, documents and question within the shortest length."""
    if not facts or not hasattr(facts[0], "distractors"):
        return
    short = [e for e, f in enumerate(facts) if len(f.distractors) < cfg.passages - 1]
    if short:
        raise ValueError(f"passages: example {short[0]} of {cfg.facts!r} holds {len(facts[short[0]].distractors)} "
                         f"distractor documents; passages={cfg.passages} needs {cfg.passages - 1} (lower passages)")
    if tok is not None:
        from .documents import check_document_length, documents_needed

        check_document_length(documents_needed(tok, facts, cfg.passages), min(cfg.lengths), cfg.passages)


def encode_marker(marker: str, tok) -> list[int]:
    """The ids of a marker: a token id (digits), or the string encoded with ``tok`` (ValueError naming
    ``marker`` when it encodes to nothing)."""
    if marker.isdigit():
        return [int(marker)]
    ids = tok.encode(marker)
    if not ids:
        raise ValueError(f"marker: {marker!r} encodes to no token with the tokenizer {tok.source}; pass "
                         "a token id or another string")
    return ids


def stored_checkpoint_name(weights) -> str:
    """The checkpoint's name on a report page, from a run's stored ``weights`` alone (nothing read, nothing
    resolved): "tiny random Llama", the last part of a local path (never this machine's directories), or the
    hub id / relative path as given."""
    text = str(weights)
    if text == RANDOM_TINY:
        return checkpoint_title(text)
    if text.startswith(("/", "~", ".", "\\")) or text[1:3] in (":\\", ":/"):
        return pathlib.PurePath(text.replace("\\", "/")).name or text
    return text


@dataclasses.dataclass(frozen=True)
class ResolvedCheckpoint:
    """A checkpoint source looked up once, before any model loads (:func:`look_up_checkpoint`).

    Attributes:
      source: the weights and download permission it was looked up from.
      path: the local directory (None for RANDOM_TINY, written into the run directory when it loads).
      hf_config: its parsed config.json (None for RANDOM_TINY); ``load_hf`` reuses it.
      model_config: the DecoderConfig, its size checked, with a vocabulary.
      tokenizer: text mode: the checkpoint's tokenizer (the tiny word-level one for RANDOM_TINY), else None.
      text: text mode: what :func:`check_text_inputs` learned, else None.
    """

    source: CheckpointSource
    path: pathlib.Path | None
    hf_config: dict | None
    model_config: object
    tokenizer: object = None
    text: TextInputs | None = None

    @property
    def trained_context(self) -> tuple[int, str]:
        """(positions, how it was read) of the checkpoint's trained context (:func:`.context.trained_context`)."""
        from .context import trained_context

        return trained_context(self.model_config)

    @property
    def answer_ids(self) -> int | None:
        """A, the longest answer in ids (text mode), else None."""
        return self.text.answer_ids if self.text is not None else None


def read_source(source: CheckpointSource, tiny_name: str, tiny_config_of):
    """(directory or None, parsed config.json or None, size-checked DecoderConfig) of ``source``: one config.json
    read (:func:`lostmid_jax.nn.hf.hub.read_checkpoint`), or none for the random stand-in ``tiny_name`` whose
    DecoderConfig ``tiny_config_of()`` gives (written when it loads). ValueError naming ``weights``."""
    if source.weights == tiny_name:
        return None, None, tiny_config_of().check_size()
    from ..nn.hf.hub import read_checkpoint

    path, raw, model_cfg = read_checkpoint(source.weights, allow_download=source.allow_download)
    return path, raw, model_cfg.check_size()


def look_up_checkpoint(source: CheckpointSource, probe: ProbeDesign, *, marker: str | None = None
                       ) -> ResolvedCheckpoint:
    """``source.weights`` looked up once (one config.json read; nothing for RANDOM_TINY): the directory, its
    DecoderConfig (size checked, a vocabulary; ValueError naming ``weights``) and, in the probe's text mode, its
    tokenizer and :func:`check_text_inputs`' refusals (``marker``: of markers remedies, or None)."""
    path, raw, model_cfg = read_source(source, RANDOM_TINY, tiny_config)
    if model_cfg.vocab_size is None:
        raise ValueError("weights: the checkpoint has no vocabulary (config.json without vocab_size)")
    if probe.mode != "text":
        return ResolvedCheckpoint(source, path, raw, model_cfg)
    from .tokenizer import load_tokenizer

    tok = tiny_tokenizer() if path is None else load_tokenizer(path)
    return ResolvedCheckpoint(source, path, raw, model_cfg, tok,
                              check_text_inputs(probe, tok, marker=marker, tiny=path is None))


def load_checkpoint(checkpoint: ResolvedCheckpoint, run_dir, *, dtype: str, gain: float = 1.0):
    """(DecoderConfig, Decoder, directory, tokenizer or None) of the checkpoint :func:`look_up_checkpoint`
    looked up, its parameters in ``dtype`` (``CheckpointSettings.dtype``); RANDOM_TINY is written first (into
    <run_dir>/checkpoint, or a temporary directory without a run directory)."""
    from ..nn import load_hf
    from .tokenizer import load_tokenizer

    raw, tok = checkpoint.hf_config, checkpoint.tokenizer
    if checkpoint.source.weights == RANDOM_TINY:
        import tempfile

        from ..runs.ledger import note

        path = pathlib.Path(run_dir) / "checkpoint" if run_dir is not None else \
            pathlib.Path(tempfile.mkdtemp(prefix="lostmid_tiny_llama_"))
        note(path)  # listed in the run's record before it is written (what --replace-unfinished removes)
        _LOG.info(f"writing a tiny random Llama (seed {TINY_SEED}) and a word-level tokenizer to {path}")
        write_tiny_checkpoint(path, gain=gain)
        tok = load_tokenizer(path) if tok is not None else None  # text mode: the tokenizer written there, as read
    else:
        path = checkpoint.path
    _LOG.info(f"loading {path} with nn.load_hf ({dtype})")
    model_cfg, model = load_hf(path, param_dtype=dtype, hf_config=raw)
    return model_cfg, model, path, tok


def build_probes(cfg: ProbeDesign, tok, vocab_size: int, length: int, *, low: int = 0):
    """The probe set of design ``cfg`` at prompt length T = ``length`` (text with ``tok``, or token ids drawn
    from ``low`` up)."""
    from ..retrieval.token_probes import token_probes
    from .documents import read_corpus, text_probes

    if cfg.mode == "tokens":
        return token_probes(vocab_size, examples=cfg.examples, passages=cfg.passages, length=length,
                            candidates=cfg.candidates, key_tokens=cfg.key_tokens, value_tokens=cfg.value_tokens,
                            low=low, seed=cfg.seed)
    corpus = read_corpus(cfg.corpus) if cfg.corpus else None
    return text_probes(tok, probe_facts(cfg), passages=cfg.passages, length=length, candidates=cfg.candidates,
                       corpus=corpus, seed=cfg.seed)


__all__ = ["RANDOM_TINY", "ResolvedCheckpoint", "TINY_LLAMA", "TINY_SEED", "TOKENIZER_FILES", "TextInputs",
           "WORD_JOINER", "build_probes", "check_text_inputs", "check_tokenizer_files", "checkpoint_title",
           "encode_marker", "load_checkpoint", "look_up_checkpoint", "probe_facts", "read_source",
           "stored_checkpoint_name", "tiny_config", "tiny_tokenizer", "tiny_words", "write_tiny_checkpoint"]
