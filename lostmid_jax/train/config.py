"""TrainConfig: one frozen dataclass for a micro-training run, nesting the model's DecoderConfig.

Shapes: B batch, L positions, V vocabulary, K keys, NV values.

    cfg = TrainConfig(steps=100)                                  # the "toy" model below
    cfg = TrainConfig(model=toy_model(width=32), doc_length=16)
    cfg = TrainConfig(**json.load(open(run / "train_config.json")))   # round-trips (dicts, lists)
    execution = training_execution(cfg)       # resolves attn_impl "auto" (may compile the fused kernel)

Building or validating a TrainConfig never imports or compiles the fused
kernel: "auto" is resolved at run time by :func:`resolve_attn_impl`.
"""

from __future__ import annotations

import dataclasses
import warnings

from ..nn import ATTN_IMPLS, DecoderConfig, Execution, fused_cpu_problems, preset
from ..resources import check_max_steps
from ..validation import check_bool_like, check_choice, check_float, check_int, check_positive_float

FUSED_MAX_AUTO_HEAD_DIM = 32  # "auto" takes the fused kernel up to this head dim

TASKS = ("lm", "retrieval", "mixed", "passages")
KV_FORMATS = ("keyed", "shared")
INTERVENTIONS = ("none", "middle_weighted_loss", "oversample_middle", "curriculum")
RENAMED_INTERVENTIONS = {"middle_loss": "middle_weighted_loss"}
"""Old intervention names -> new ones: read from old run directories (config.json, train_config.json,
<run_dir>/<old name>/ and their CSV rows) and accepted as deprecated keywords for one release."""
SNAPSHOT_STEPS = (0, 1, 2, 5, 10, 20, 50, 100)
N_SPECIAL = 2  # token 0 = BOS (document boundary), token 1 = QUERY marker


def intervention_name(name, argument: str = "intervention"):
    """``name`` with an old intervention name (:data:`RENAMED_INTERVENTIONS`) replaced by its new
    one, with a DeprecationWarning naming ``argument``; anything else unchanged (checked by the caller)."""
    if isinstance(name, str) and name in RENAMED_INTERVENTIONS:
        new = RENAMED_INTERVENTIONS[name]
        warnings.warn(f"{argument}: {name!r} is now called {new!r}; the old name is read for one more "
                      "release", DeprecationWarning, stacklevel=3)
        return new
    return name


def intervention_dirs(name: str) -> tuple[str, ...]:
    """Directory names under which a run directory may hold intervention ``name``'s training runs:
    the name itself, then its old names (run directories written before the rename)."""
    return (name, *(old for old, new in RENAMED_INTERVENTIONS.items() if new == name))


def toy_model(*, width: int = 64, depth: int = 2, heads: int = 4, kv_heads: int = 2, vocab: int = 242,
              **overrides) -> DecoderConfig:
    """The trained model: the "toy" preset (Qwen2-like: GQA, RoPE, SwiGLU, RMSNorm) with
    MLP width 2 D and ``vocab`` tokens; ``overrides`` are further DecoderConfig fields."""
    fields = dict(width=width, depth=depth, heads=heads, kv_heads=kv_heads, mlp_width=2 * width, vocab_size=vocab)
    return preset("toy", **{**fields, **overrides})


DEFAULT_MODEL = toy_model()  # D = 64, H = 2, N = 4, G = 2, V = 242 = 2 + 15 keys + 15 x 15 keyed values


@dataclasses.dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """A micro-training run on synthetic tasks.

    Attributes:
      task: "lm" (synthetic corpus of documents), "retrieval" (key-value
        lookup), "mixed" (both losses summed each step) or "passages" (the
        templated passage retrieval of retrieval.token_probes: k = kv_pairs
        passages of filler, the fact in one; tasks.py).
      intervention: "none" (baseline), "middle_weighted_loss" (loss weighted toward
        middle positions / middle needle bins), "oversample_middle" (needle
        position drawn from a middle-peaked distribution) or "curriculum"
        (middle needles only for the first ``curriculum_steps`` steps, then
        uniform). The old name "middle_loss" is read as "middle_weighted_loss"
        (DeprecationWarning; removed in the next release).
      seed: model init and data stream; batch t is a pure function of (seed, t).
      steps: number of optimizer steps (>= 1).
      model: the trained decoder's architecture (an nn.DecoderConfig; a dict
        of its fields is accepted, as read back from JSON, the fields it
        lacks taken from the default model). Default
        :func:`toy_model`: D = 64, H = 2, 4 heads, 2 kv heads, V = 242. Needs
        depth >= 1 and a vocabulary (``model.vocab_size`` = V) >= 2 + K + K NV
        ("keyed") or 2 + K + NV ("shared"): BOS, QUERY, K key tokens, then
        the value tokens (see tasks.py).
      lm_length, doc_length: LM sequence length L and document length N (a
        BOS token starts every document, so boundaries sit at 0, N, 2N, ...).
      lm_batch, kv_batch: sequences per step for each task (task "passages":
        lm_batch rows of the induction warm-up, tasks.repeat_tokens).
      kv_pairs: k pairs per retrieval context (length 2k + 3); with task
        "passages", k passages.
      passage_length: T, the prompt length of task "passages" (>= 8).
      passage_key_tokens: ids per key of task "passages" (>= 1).
      kv_format: "keyed" (each key owns NV value tokens, so the needle is the
        one context value owned by the queried key: one attention layer finds
        and copies it) or "shared" (all keys draw from one set of NV values,
        Liu et al.'s format: needs a two-layer induction circuit, which this
        model size does not learn within 100 steps).
      kv_keys: K distinct key tokens (>= kv_pairs); None = kv_pairs.
      kv_values: NV, values per key ("keyed") or in all ("shared"); None = as
        many as the vocabulary holds.
      needle_bins: number of needle bins, by the needle's pair index in the
        context (bin b holds pair indices floor(b k / bins) ..
        floor((b+1) k / bins) - 1).
      middle_strength: s >= 0 in the middle weights w(x) = 1 + s (1 - |2x - 1|)
        (normalized to mean 1 over the batch); used by "middle_weighted_loss" and as the
        oversampling density for "oversample_middle".
      curriculum_steps: steps of middle-only needles for "curriculum".
      lr, warmup, weight_decay, clip: AdamW with linear warmup to ``lr`` then
        cosine decay to 0.1 lr at ``steps``; global-norm clipping at ``clip``
        (lr, clip > 0 and weight_decay >= 0, all finite, like every float field).
      snapshot_steps: steps at which profiles and accuracy are recorded (a
        list is accepted and stored as a tuple).
      eval_per_bin: retrieval evaluation examples per needle bin.
      eval_seed: seed of the (fixed) evaluation set and profile input.
      profile_method, probes: influence_profile method ("exact" or
        "randomized") and its probe count.
      ckpt_every, keep: orbax checkpoint interval (steps) and how many intact
        checkpoints to keep (older ones are deleted only after a newer one is
        written and verified, see checkpoint.py).
      streams: each task's batch is cut into this many equal sub-batches
        whose losses are computed independently and averaged (the same
        loss), so XLA runs them concurrently on the CPU cores (~5-10% faster
        on 2 cores); a task whose batch it does not divide is not cut.
        Ignored (1) when training data-parallel over several devices.
      unroll_layers: Execution.unroll_layers of the trained model (training
        runs without remat).
      attn_impl: Execution.attn_impl of the trained model, or "auto": resolved
        at run time by :func:`resolve_attn_impl` to "fused_cpu" where its
        kernel can be built (CPU backend and a C++ compiler;
        kernels.fused_cpu.available()), the model's attention suits it
        (nn.fused_cpu_problems) and the head dim is at most 32, else
        "blocked" (benchmarks/attention_bench.py, 2-core CPU: fwd+bwd 3.3x,
        1.5x, 1.3x the blocked speed at head dim 8, 16, 32; 0.9x at 64).
    """

    task: str = "mixed"
    intervention: str = "none"
    seed: int = 0
    steps: int = 100
    model: DecoderConfig = DEFAULT_MODEL
    lm_length: int = 600
    doc_length: int = 300
    lm_batch: int = 1
    kv_batch: int = 96
    kv_pairs: int = 15
    passage_length: int = 64
    passage_key_tokens: int = 1
    kv_format: str = "keyed"
    kv_keys: int | None = None
    kv_values: int | None = None
    needle_bins: int = 5
    middle_strength: float = 2.0
    curriculum_steps: int = 50
    lr: float = 1e-2
    warmup: int = 10
    weight_decay: float = 0.01
    clip: float = 1.0
    snapshot_steps: tuple[int, ...] = SNAPSHOT_STEPS
    eval_per_bin: int = 64
    eval_seed: int = 12345
    profile_method: str = "exact"
    probes: int = 16
    ckpt_every: int = 10
    keep: int = 2
    streams: int = 2
    unroll_layers: bool = True
    attn_impl: str = "auto"

    def __post_init__(self):
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731  (frozen)
        if isinstance(self.model, dict):  # as read back from JSON; missing fields: the default model's
            put("model", DecoderConfig.from_dict({**dataclasses.asdict(DEFAULT_MODEL), **self.model}))
        if isinstance(self.snapshot_steps, list):
            put("snapshot_steps", tuple(self.snapshot_steps))
        put("intervention", intervention_name(self.intervention, "intervention"))
        check_choice("task", self.task, TASKS)
        check_choice("intervention", self.intervention, INTERVENTIONS)
        check_choice("kv_format", self.kv_format, KV_FORMATS)
        check_choice("profile_method", self.profile_method, ("exact", "randomized"))
        check_choice("attn_impl", self.attn_impl, ("auto", *ATTN_IMPLS))
        for name, low in (("seed", 0), ("steps", 1), ("lm_length", 2), ("doc_length", 2), ("lm_batch", 1),
                          ("kv_batch", 1), ("kv_pairs", 1), ("passage_length", 8), ("passage_key_tokens", 1),
                          ("needle_bins", 1), ("curriculum_steps", 0),
                          ("warmup", 0), ("eval_per_bin", 1), ("eval_seed", 0), ("probes", 1),
                          ("ckpt_every", 1), ("keep", 1), ("streams", 1)):
            put(name, check_int(name, getattr(self, name), low))
        put("unroll_layers", check_bool_like("unroll_layers", self.unroll_layers))
        check_max_steps(self.steps)
        if self.needle_bins > self.kv_pairs:
            raise ValueError(f"needle_bins={self.needle_bins} must be <= kv_pairs={self.kv_pairs}")
        for name in ("kv_keys", "kv_values"):
            if getattr(self, name) is not None:
                put(name, check_int(name, getattr(self, name), self.kv_pairs if name == "kv_keys" else 1))
        self._check_model()
        keys, values = self.kv_sizes
        need = N_SPECIAL + keys + (keys if self.kv_format == "keyed" else 1) * max(values, 1)
        if values < 1 or self.vocab < need:
            raise ValueError(f"model.vocab_size must be >= {need} (2 + kv_keys + the {self.kv_format} value "
                             f"tokens), got {self.vocab}")
        for name in ("lr", "clip"):  # finite: lr=inf or nan would train straight to NaN
            put(name, check_positive_float(name, getattr(self, name)))
        for name in ("weight_decay", "middle_strength"):
            put(name, check_float(name, getattr(self, name), 0.0))
        steps = self.snapshot_steps
        if not isinstance(steps, tuple) or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in steps):
            raise ValueError(f"snapshot_steps must be a tuple of ints >= 0, got {steps!r}")
        if self.attn_impl == "fused_cpu":  # checked without building the kernel
            Execution(attn_impl="fused_cpu").check_for(self.model)

    def _check_model(self):
        model = self.model
        if not isinstance(model, DecoderConfig):
            raise ValueError(f"model must be an nn.DecoderConfig (or a dict of its fields), got {type(model).__name__}")
        if model.depth < 1:
            raise ValueError(f"model.depth must be an int >= 1, got {model.depth}")
        if model.vocab_size is None:
            raise ValueError("model.vocab_size must be set (the tasks' token vocabulary), got None")
        # training holds weights, gradients and two Adam moments: 4 float32 copies of every parameter
        model.check_size(16, "training model")
        longest = max(self.lm_length, self.kv_length)
        if model.position == "learned" and longest > model.max_positions:
            raise ValueError(f"model.max_positions={model.max_positions} must be >= the longest sequence "
                             f"({longest}) with learned positions")

    @property
    def vocab(self) -> int:
        """V, the model's vocabulary (``model.vocab_size``)."""
        return self.model.vocab_size

    @property
    def snapshots(self) -> tuple[int, ...]:
        """Sorted snapshot steps that fall in [0, steps]."""
        return tuple(sorted({s for s in self.snapshot_steps if s <= self.steps}))

    @property
    def kv_sizes(self) -> tuple[int, int]:
        """(K keys, NV values per key or in all), with the None defaults resolved."""
        keys = self.kv_pairs if self.kv_keys is None else self.kv_keys
        if self.kv_values is not None:
            return keys, self.kv_values
        room = self.vocab - N_SPECIAL - keys
        return keys, room // keys if self.kv_format == "keyed" else room

    @property
    def kv_length(self) -> int:
        """Retrieval context length 2k + 3 (BOS, k pairs, QUERY, key); T = passage_length for task "passages"."""
        return self.passage_length if self.task == "passages" else 2 * self.kv_pairs + 3

    def replace(self, **changes) -> "TrainConfig":
        """A copy with fields replaced (validated again)."""
        return dataclasses.replace(self, **changes)


def resolve_attn_impl(cfg: TrainConfig) -> str:
    """``cfg.attn_impl`` with "auto" resolved (see TrainConfig.attn_impl).

    "auto" asks kernels.fused_cpu.available(), which imports the kernel and
    builds it (or loads it from the cache; logged at INFO) when the model
    could use it: call this when a run starts, not to validate a config.
    """
    if cfg.attn_impl == "fused_cpu":  # asked for by name: a kernel that cannot load is one clear error
        from ..kernels import fused_cpu

        reason = fused_cpu.unavailable_reason()
        if reason is not None:
            raise ValueError(f"attn_impl='fused_cpu': the kernel is unavailable here ({reason.splitlines()[0]}); "
                             "use attn_impl 'auto' (falls back to XLA's attention) or 'blocked'")
    if cfg.attn_impl != "auto":
        return cfg.attn_impl
    model = cfg.model
    if model.resolved_head_dim > FUSED_MAX_AUTO_HEAD_DIM or fused_cpu_problems(model) is not None:
        return "blocked"
    from ..kernels import fused_cpu  # imported (and built) only here

    return "fused_cpu" if fused_cpu.available() else "blocked"


def training_execution(cfg: TrainConfig, attn_impl: str | None = None) -> Execution:
    """How the trained model runs: no remat, ``cfg.unroll_layers``, the attention ``attn_impl``
    (default :func:`resolve_attn_impl`)."""
    impl = resolve_attn_impl(cfg) if attn_impl is None else attn_impl
    return Execution(remat=False, unroll_layers=cfg.unroll_layers, attn_impl=impl).check_for(cfg.model)


# The --smoke size: one layer of width 16 and one stream keep the compiled programs small (cold, the
# step-0 snapshot and the training step compile in about 4 s and 9 s of CPU; warm, from JAX's cache).
SMOKE = dict(steps=5, model=toy_model(width=16, depth=1, heads=2, kv_heads=1), lm_length=48, doc_length=16,
             lm_batch=1, kv_batch=8, kv_pairs=6, needle_bins=3, snapshot_steps=(0, 1, 2, 5), eval_per_bin=8,
             ckpt_every=5, curriculum_steps=2, warmup=2, streams=1)
