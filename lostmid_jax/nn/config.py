"""DecoderConfig: one frozen dataclass describing a decoder stack.

Every architectural choice the theory cares about is a field here: the
attention kind (softmax, or its Step-0 "uniform" limit), the mask topology,
the position encoding, norms, MLP, and the residual mixing weight a of

    x <- (1 - a) x + a Attn(norm(x))        (Chowdhury, arXiv:2603.10123, Sec. 1)

Architecture only: how a call runs (remat, attention route and block, layer
loop) is an nn.Execution passed at call time. Invalid values raise ValueError
naming the field, at construction (booleans must be True or False).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..validation import check_bool_like, check_choice, check_float_like, check_int_like
from ..masks.alibi_slopes import SLOPE_RULES
from ..masks.spec import MASK_KINDS, MaskSpec
from .rope_scaling import RopeScaling, as_rope_scaling

ATTENTION_KINDS = ("softmax", "uniform", "linear-value")
POSITION_KINDS = ("none", "rope", "learned", "alibi")
NORM_KINDS = ("layernorm", "rmsnorm", "none")
MLP_KINDS = ("none", "gelu", "gelu-exact", "swiglu")
INIT_SCHEMES = ("gpt2", "normal")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
BOOL_FIELDS = ("qkv_bias", "out_bias", "qk_norm", "norm_bias", "pre_norm", "final_norm", "mlp_bias", "residual",
               "tie_embeddings", "embed_norm")


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
      qk_norm: RMSNorm (eps ``norm_eps``, one scale [Dh] shared by the heads)
        on every query and key head before RoPE (Qwen3).
      attention: "softmax" (normal scaled dot-product attention); "uniform"
        (q/k projections exist but every allowed position gets weight
        1 / #allowed: the theory's Step-0 limit, positions ignored);
        "linear-value" (the same uniform weights with no q/k parameters at
        all: only the value/output path).
      mask: which key positions j a query i may see (1-based or 0-based alike;
        the rules are nn.MaskSpec's, built by ``MaskSpec.from_config(cfg)``):
        "causal" (j <= i); "bidirectional" (all j); "sliding_window"
        (i - window < j <= i); "document" (causal and same segment id; segment
        ids are passed at call time); "prefix_lm" (j <= i or j < ``prefix``).
      window: w >= 1, positions visible to each query including itself; only
        with mask "sliding_window" (required there).
      prefix: n >= 0 prefix tokens seen bidirectionally; only with mask
        "prefix_lm" (required there).
      sinks: s >= 0 attention sinks (StreamingLLM): key positions 1..s are
        visible to every query at or after them, in addition to ``mask``
        (with "sliding_window" this is theory.Sinks(s, window)); not with
        mask "document". 0: none.
      position: "none"; "rope" (rotary, rotate-half convention as in
        Llama/Qwen2); "learned" (absolute table added to the input, GPT-2);
        "alibi" (score bias -m_h |i - j|, h = 1..heads, slopes by
        ``alibi_rule``).
      alibi_rule: ALiBi slopes m_h = 2^e_h (used with position "alibi"):
        "alibi" (the ALiBi paper's rule for any head count N: with n the
        largest power of two <= N, e_h = -8 h / n for h <= n, then
        e = -4 (2k - 1) / n for the remaining k = 1..N - n; BLOOM, MPT) or
        "geometric" (e_h = -8 h / N for every N; equal when N is a power of
        two).
      rope_theta: RoPE base theta (> 0).
      rope_scaling: None, or an nn.RopeScaling ("linear", "llama3",
        "dynamic" or "yarn" frequency rescaling; a dict of its fields is converted); used, like
        ``rope_theta``, only with position "rope".
      max_positions: size of the learned absolute position table (>= 1).
      norm: "layernorm", "rmsnorm" or "none"; used before attention and MLP
        (pre-norm) or after each residual add (post-norm), and at the end.
      norm_eps: epsilon inside the norm's square root (> 0).
      norm_bias: whether LayerNorm has a bias (ignored for RMSNorm).
      pre_norm: True for pre-norm blocks x + f(norm(x)); False for post-norm
        norm(x + f(x)).
      final_norm: apply a final norm after the last block (if ``norm`` is not
        "none").
      embed_norm: apply a norm of kind ``norm`` to the input embeddings (after
        adding learned positions) before the first block (BLOOM's
        word_embeddings_layernorm).
      mlp: "none", "gelu" (tanh approximation, GPT-2, BLOOM), "gelu-exact"
        (x Phi(x) with the erf, MPT) or "swiglu" (down(silu(gate(x)) * up(x)),
        Llama/Qwen2).
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
    """

    depth: int = 2
    width: int = 32
    heads: int = 4
    kv_heads: int | None = None
    head_dim: int | None = None
    qkv_bias: bool = False
    out_bias: bool = False
    qk_norm: bool = False
    attention: str = "softmax"
    mask: str = "causal"
    window: int | None = None
    prefix: int | None = None
    sinks: int = 0
    position: str = "none"
    alibi_rule: str = "alibi"
    rope_theta: float = 10000.0
    rope_scaling: RopeScaling | None = None
    max_positions: int = 1024
    norm: str = "rmsnorm"
    norm_eps: float = 1e-6
    norm_bias: bool = True
    pre_norm: bool = True
    final_norm: bool = True
    embed_norm: bool = False
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

    def __post_init__(self):
        for name in ("depth", "width", "heads"):
            self._int(name, 0 if name == "depth" else 1)
        for name in ("kv_heads", "head_dim", "mlp_width", "vocab_size"):
            if getattr(self, name) is not None:
                self._int(name, 1)
        if self.kv_heads is not None and self.heads % self.kv_heads:
            raise ValueError(f"kv_heads={self.kv_heads} must divide heads={self.heads}")
        if self.head_dim is None and self.width % self.heads:
            raise ValueError(f"heads={self.heads} must divide width={self.width} (or set head_dim)")
        for name, choices in (("attention", ATTENTION_KINDS), ("mask", MASK_KINDS), ("position", POSITION_KINDS),
                              ("norm", NORM_KINDS), ("mlp", MLP_KINDS), ("init", INIT_SCHEMES),
                              ("param_dtype", FLOAT_DTYPES), ("alibi_rule", SLOPE_RULES)):
            check_choice(name, getattr(self, name), choices)
        if self.dtype is not None:
            check_choice("dtype", self.dtype, FLOAT_DTYPES)
        for name in BOOL_FIELDS:  # np.bool_ accepted, stored as a Python bool; 'False' and None refused
            object.__setattr__(self, name, check_bool_like(name, getattr(self, name)))
        self._int("sinks", 0)
        MaskSpec.from_config(self)  # window / prefix: required with their mask, refused otherwise
        object.__setattr__(self, "rope_scaling", as_rope_scaling(self.rope_scaling))
        if self.qk_norm and self.attention == "linear-value":
            raise ValueError("qk_norm needs queries and keys: not with attention='linear-value'")
        if self.position == "rope" and self.resolved_head_dim % 2:
            raise ValueError(f"head_dim={self.resolved_head_dim} must be even for position='rope'")
        self._float("rope_theta", 0.0, open_min=True)
        self._check_rope_scaling_divisors()
        self._int("max_positions", 1)
        self._float("norm_eps", 0.0, open_min=True)
        self._float("init_std", 0.0)
        self._check_attn_mix()
        from ..resources import check_max_depth

        check_max_depth("model", self.depth)  # a config of 10**5 layers is refused before anything loops over them

    def _check_rope_scaling_divisors(self) -> None:
        """The divisors of the scaled frequencies (nn.positions.rope_inv_freq): yarn's ramp divides by
        ln(rope_theta), dynamic NTK raises theta to Dh / (Dh - 2)."""
        kind = self.rope_scaling.kind if self.rope_scaling is not None else None
        if kind == "yarn" and self.rope_theta <= 1:
            raise ValueError(f"rope_theta={self.rope_theta} must be > 1 with yarn scaling (its ramp divides by "
                             "ln(rope_theta))")
        if kind == "dynamic" and self.resolved_head_dim <= 2:
            raise ValueError(f"head_dim={self.resolved_head_dim} must be > 2 with dynamic scaling (it raises "
                             "rope_theta to head_dim / (head_dim - 2))")

    def check_size(self, bytes_per_parameter: float | None = None, what: str = "model") -> "DecoderConfig":
        """Refuse (ValueError naming the sizes and the limit) building this model when its parameters
        (:meth:`parameter_count`) times ``bytes_per_parameter`` (default: the size of ``param_dtype``;
        16 to train with Adam) are over ``max_memory_gb``; returns ``self``. Nothing is built."""
        from ..resources import check_model_size

        size = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8}[self.param_dtype]
        check_model_size(f"{what} depth={self.depth}, width={self.width}, vocab_size={self.vocab_size}", self.depth,
                         self.parameter_count(), bytes_per_parameter=bytes_per_parameter or size)
        return self

    def parameter_count(self) -> int:
        """Parameters of the model this config builds, from its sizes alone (nothing is built): per layer
        W_q [D, n Dh], W_k and W_v [D, n_kv Dh], W_o [n Dh, D], the MLP (two matrices, three for SwiGLU,
        [D, F]), norms and biases; plus the token embedding [V, D], an untied LM head, learned positions
        [max_positions, D] and the final norm."""
        d, dh, n, kv = self.width, self.resolved_head_dim, self.heads, self.resolved_kv_heads
        f = self.resolved_mlp_width
        attention = 0 if self.attention == "linear-value" else d * n * dh + d * kv * dh
        attention += d * kv * dh + n * dh * d
        attention += (n * dh + 2 * kv * dh) * self.qkv_bias + d * self.out_bias + 2 * dh * self.qk_norm
        mlp = {"none": 0, "swiglu": 3 * d * f}.get(self.mlp, 2 * d * f)
        mlp += (0 if self.mlp == "none" else (f * (2 if self.mlp == "swiglu" else 1) + d) * self.mlp_bias)
        norm = 0 if self.norm == "none" else d * (1 + (self.norm == "layernorm" and self.norm_bias))
        layer = attention + mlp + 2 * norm
        vocab = self.vocab_size or 0
        outer = vocab * d * (1 if self.tie_embeddings else 2) + norm * (self.final_norm + self.embed_norm)
        outer += self.max_positions * d if self.position == "learned" else 0
        return int(self.depth * layer + outer)

    def _int(self, name: str, minimum: int) -> None:
        object.__setattr__(self, name, check_int_like(name, getattr(self, name), minimum))

    def _float(self, name: str, minimum: float, *, open_min: bool = False) -> None:
        object.__setattr__(self, name, check_float_like(name, getattr(self, name), minimum, open_min=open_min))

    def _check_attn_mix(self):
        mix = self.attn_mix
        if mix is None:
            return
        if not self.residual:
            raise ValueError("attn_mix needs residual=True")
        if isinstance(mix, list):
            raise ValueError("attn_mix must be a float or a tuple (hashable), not a list")
        if isinstance(mix, tuple) and len(mix) != self.depth:
            raise ValueError(f"attn_mix has {len(mix)} values, expected depth={self.depth}")
        for a in mix if isinstance(mix, tuple) else (mix,):
            if isinstance(a, bool) or not isinstance(a, (int, float, np.floating)) or not 0 <= a <= 1:
                raise ValueError(f"attn_mix values must be floats in [0, 1], got {a!r}")

    @classmethod
    def from_dict(cls, fields: dict) -> "DecoderConfig":
        """A DecoderConfig from its JSON form (``dataclasses.asdict``, lists where tuples were)."""
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})

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
