"""DecoderConfig: one frozen dataclass describing a decoder stack.

Every architectural choice the theory cares about is a field here: the
attention kind (softmax, or its Step-0 "uniform" limit), the mask topology,
the position encoding, norms, MLP, and the residual mixing weight a of

    x <- (1 - a) x + a Attn(norm(x))        (Chowdhury, arXiv:2603.10123, Sec. 1)

Invalid values raise ValueError naming the field, at construction.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

ATTENTION_KINDS = ("softmax", "uniform", "linear-value")
MASK_KINDS = ("causal", "bidirectional", "sliding_window", "document", "prefix_lm")
ATTN_IMPLS = ("blocked", "fused_cpu")
POSITION_KINDS = ("none", "rope", "learned", "alibi")
NORM_KINDS = ("layernorm", "rmsnorm", "none")
MLP_KINDS = ("none", "gelu", "swiglu")
INIT_SCHEMES = ("gpt2", "normal")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


@dataclasses.dataclass(frozen=True, kw_only=True)
class DecoderConfig:
    """Architecture of a decoder-only transformer stack.

    Shapes: L positions, D = ``width``, H = ``depth``.

    Attributes:
      depth: H >= 0, number of residual blocks.
      width: D >= 1, residual stream width.
      heads: number of query heads (>= 1).
      kv_heads: number of key/value heads for grouped-query attention; must
        divide ``heads``. None means ``heads`` (plain multi-head attention).
      head_dim: per-head width. None means ``width // heads`` (then ``heads``
        must divide ``width``).
      qkv_bias: bias on the query, key and value projections.
      out_bias: bias on the attention output projection.
      attention: "softmax" (normal scaled dot-product attention); "uniform"
        (q/k projections exist but every allowed position gets weight
        1 / #allowed: the theory's Step-0 limit, positions ignored);
        "linear-value" (the same uniform weights with no q/k parameters at
        all: only the value/output path).
      mask: which key positions j a query i may see (1-based or 0-based alike):
        "causal" (j <= i); "bidirectional" (all j); "sliding_window"
        (i - window < j <= i); "document" (causal and same segment id; segment
        ids are passed at call time); "prefix_lm" (j <= i or j < ``prefix``).
      window: w >= 1, positions visible to each query including itself; only
        with mask "sliding_window" (required there).
      prefix: n >= 0 prefix tokens seen bidirectionally; only with mask
        "prefix_lm" (required there).
      position: "none"; "rope" (rotary, rotate-half convention as in
        Llama/Qwen2); "learned" (absolute table added to the input, GPT-2);
        "alibi" (score bias -m_h |i - j|, slopes m_h = 2^(-8 h / heads),
        h = 1..heads).
      rope_theta: RoPE base theta (> 0).
      max_positions: size of the learned absolute position table (>= 1).
      norm: "layernorm", "rmsnorm" or "none"; used before attention and MLP
        (pre-norm) or after each residual add (post-norm), and at the end.
      norm_eps: epsilon inside the norm's square root (> 0).
      norm_bias: whether LayerNorm has a bias (ignored for RMSNorm).
      pre_norm: True for pre-norm blocks x + f(norm(x)); False for post-norm
        norm(x + f(x)).
      final_norm: apply a final norm after the last block (if ``norm`` is not
        "none").
      mlp: "none", "gelu" (tanh approximation, GPT-2) or "swiglu"
        (down(silu(gate(x)) * up(x)), Llama/Qwen2).
      mlp_width: hidden width of the MLP; None means 4 * width.
      mlp_bias: biases in the MLP projections.
      residual: keep the residual connections. False makes each block
        x <- Attn(norm(x)) and x <- MLP(norm(x)).
      attn_mix: residual mixing weight a in [0, 1] for the attention branch,
        x <- (1 - a) x + a Attn(norm(x)); a float for every layer, or a tuple of
        ``depth`` per-layer values. None means the plain x + Attn(norm(x)).
        Needs ``residual=True``.
      init: "gpt2" (all weights N(0, std^2), the output projections of
        attention and MLP N(0, std^2 / (2 depth)), biases 0) or "normal"
        (every weight N(0, std^2), biases 0: Qwen2 / Hugging Face default).
        Norm scales start at 1.
      init_std: std of the weight initializer (>= 0).
      vocab_size: token vocabulary; None means no token embedding / LM head
        (the stack then only maps input embeddings to hidden states).
      tie_embeddings: LM head is the transpose of the token embedding.
      param_dtype: parameter dtype name, e.g. "float32" or "float64".
      dtype: compute dtype name; None means ``param_dtype``. The input is cast
        to it.
      remat: rematerialize each block in the backward pass (jax.checkpoint
        around the scanned block): memory O(H L D) instead of O(H L^2).
      attn_block: query block T of softmax attention (see attention_core);
        None picks ``attention_core.auto_block(L)``. Blocks skip the keys no
        query in them may see; T changes speed and memory, not results.
      attn_keep_probs: keep the softmax probabilities for the backward pass
        instead of recomputing them (faster when one forward serves many
        backward passes, as in the Jacobian engine, which turns it on;
        O(N L^2) memory per layer). Same results.
      unroll_layers: apply the H blocks as an unrolled loop instead of a
        lax.scan (no stacked per-layer buffers to fill and slice: ~5% faster
        training steps on CPU; compile time grows with H). Same results.
      attn_impl: how softmax attention runs when the probabilities are not
        requested: "blocked" (XLA, attention_core) or "fused_cpu" (the C++
        kernel of nn/fused_cpu, built on first use; CPU backend, float32,
        no segment ids, no ALiBi, no "document" mask). Same results to
        float32 rounding.
    """

    depth: int = 2
    width: int = 32
    heads: int = 4
    kv_heads: int | None = None
    head_dim: int | None = None
    qkv_bias: bool = False
    out_bias: bool = False
    attention: str = "softmax"
    mask: str = "causal"
    window: int | None = None
    prefix: int | None = None
    position: str = "none"
    rope_theta: float = 10000.0
    max_positions: int = 1024
    norm: str = "rmsnorm"
    norm_eps: float = 1e-6
    norm_bias: bool = True
    pre_norm: bool = True
    final_norm: bool = True
    mlp: str = "gelu"
    mlp_width: int | None = None
    mlp_bias: bool = False
    residual: bool = True
    attn_mix: float | tuple[float, ...] | None = None
    init: str = "normal"
    init_std: float = 0.02
    vocab_size: int | None = None
    tie_embeddings: bool = True
    param_dtype: str = "float32"
    dtype: str | None = None
    remat: bool = True
    attn_block: int | None = None
    attn_keep_probs: bool = False
    unroll_layers: bool = False
    attn_impl: str = "blocked"

    def __post_init__(self):
        _check_int("depth", self.depth, 0)
        _check_int("width", self.width, 1)
        _check_int("heads", self.heads, 1)
        if self.attn_block is not None:
            _check_int("attn_block", self.attn_block, 1)
        if self.kv_heads is not None:
            _check_int("kv_heads", self.kv_heads, 1)
            if self.heads % self.kv_heads:
                raise ValueError(f"kv_heads={self.kv_heads} must divide heads={self.heads}")
        if self.head_dim is None:
            if self.width % self.heads:
                raise ValueError(
                    f"heads={self.heads} must divide width={self.width} (or set head_dim)"
                )
        else:
            _check_int("head_dim", self.head_dim, 1)
        _check_choice("attention", self.attention, ATTENTION_KINDS)
        _check_choice("mask", self.mask, MASK_KINDS)
        _check_choice("position", self.position, POSITION_KINDS)
        _check_choice("norm", self.norm, NORM_KINDS)
        _check_choice("mlp", self.mlp, MLP_KINDS)
        _check_choice("init", self.init, INIT_SCHEMES)
        _check_choice("param_dtype", self.param_dtype, FLOAT_DTYPES)
        if self.dtype is not None:
            _check_choice("dtype", self.dtype, FLOAT_DTYPES)
        if self.mask == "sliding_window":
            if self.window is None:
                raise ValueError("window is required with mask='sliding_window'")
            _check_int("window", self.window, 1)
        elif self.window is not None:
            raise ValueError(f"window is only used with mask='sliding_window', got mask={self.mask!r}")
        if self.mask == "prefix_lm":
            if self.prefix is None:
                raise ValueError("prefix is required with mask='prefix_lm'")
            _check_int("prefix", self.prefix, 0)
        elif self.prefix is not None:
            raise ValueError(f"prefix is only used with mask='prefix_lm', got mask={self.mask!r}")
        if self.position == "rope" and self.resolved_head_dim % 2:
            raise ValueError(f"head_dim={self.resolved_head_dim} must be even for position='rope'")
        _check_positive_float("rope_theta", self.rope_theta)
        _check_int("max_positions", self.max_positions, 1)
        _check_positive_float("norm_eps", self.norm_eps)
        if self.mlp_width is not None:
            _check_int("mlp_width", self.mlp_width, 1)
        if not (isinstance(self.init_std, (int, float)) and math.isfinite(self.init_std)
                and self.init_std >= 0):
            raise ValueError(f"init_std must be a finite float >= 0, got {self.init_std!r}")
        if self.vocab_size is not None:
            _check_int("vocab_size", self.vocab_size, 1)
        self._check_attn_mix()
        self._check_attn_impl()

    def _check_attn_impl(self):
        _check_choice("attn_impl", self.attn_impl, ATTN_IMPLS)
        if self.attn_impl == "blocked":
            return
        compute = self.dtype or self.param_dtype
        if self.attention != "softmax" or self.mask == "document" or self.position == "alibi" \
                or compute != "float32":
            raise ValueError("attn_impl='fused_cpu' needs attention='softmax', a mask other than 'document', "
                             "a position other than 'alibi' and float32 compute; got "
                             f"attention={self.attention!r}, mask={self.mask!r}, position={self.position!r}, "
                             f"dtype={compute!r}")

    def _check_attn_mix(self):
        mix = self.attn_mix
        if mix is None:
            return
        if not self.residual:
            raise ValueError("attn_mix needs residual=True")
        values = mix if isinstance(mix, tuple) else (mix,)
        if isinstance(mix, list):
            raise ValueError("attn_mix must be a float or a tuple (hashable), not a list")
        if isinstance(mix, tuple) and len(mix) != self.depth:
            raise ValueError(f"attn_mix has {len(mix)} values, expected depth={self.depth}")
        for a in values:
            if isinstance(a, bool) or not isinstance(a, (int, float, np.floating)) or not 0 <= a <= 1:
                raise ValueError(f"attn_mix values must be floats in [0, 1], got {a!r}")

    @property
    def resolved_kv_heads(self) -> int:
        """Number of key/value heads (``kv_heads`` or ``heads``)."""
        return self.heads if self.kv_heads is None else self.kv_heads

    @property
    def resolved_head_dim(self) -> int:
        """Per-head width (``head_dim`` or ``width // heads``)."""
        return self.width // self.heads if self.head_dim is None else self.head_dim

    @property
    def resolved_mlp_width(self) -> int:
        """MLP hidden width (``mlp_width`` or 4 * ``width``)."""
        return 4 * self.width if self.mlp_width is None else self.mlp_width

    @property
    def compute_dtype(self) -> str:
        """Compute dtype name (``dtype`` or ``param_dtype``)."""
        return self.param_dtype if self.dtype is None else self.dtype

    def layer_mix(self) -> tuple[float, ...] | None:
        """Per-layer attention mixing weights (length ``depth``), or None."""
        if self.attn_mix is None:
            return None
        if isinstance(self.attn_mix, tuple):
            return tuple(float(a) for a in self.attn_mix)
        return (float(self.attn_mix),) * self.depth


def _check_int(name: str, value, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")


def _check_choice(name: str, value, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def _check_positive_float(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
        math.isfinite(value) and value > 0
    ):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
