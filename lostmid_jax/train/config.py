"""TrainConfig: one frozen dataclass for a micro-training run.

Shapes: B batch, L positions, V vocabulary, k key-value pairs.
"""

from __future__ import annotations

import dataclasses

from ..nn import DecoderConfig, fused_cpu, preset
from ..nn.config import ATTN_IMPLS

FUSED_MAX_AUTO_HEAD_DIM = 32  # "auto" takes the fused kernel up to this head dim

TASKS = ("lm", "retrieval", "mixed")
KV_FORMATS = ("keyed", "shared")
INTERVENTIONS = ("none", "middle_loss", "oversample_middle", "curriculum")
SNAPSHOT_STEPS = (0, 1, 2, 5, 10, 20, 50, 100)
N_SPECIAL = 2  # token 0 = BOS (document boundary), token 1 = QUERY marker


@dataclasses.dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """A micro-training run on synthetic tasks.

    Attributes:
      task: "lm" (chunked synthetic corpus), "retrieval" (key-value lookup)
        or "mixed" (both losses summed each step).
      intervention: "none" (baseline), "middle_loss" (loss weighted toward
        middle positions / middle-depth needles), "oversample_middle"
        (needle depth drawn from a middle-peaked distribution) or
        "curriculum" (middle-depth needles only for the first
        ``curriculum_steps`` steps, then uniform).
      seed: model init and data stream; batch t is a pure function of (seed, t).
      steps: number of optimizer steps (>= 1).
      width, depth, heads, kv_heads: the "toy" preset's fields overridden.
      vocab: V >= 2 + K + K NV ("keyed") or 2 + K + NV ("shared"): BOS,
        QUERY, K key tokens, then the value tokens (see tasks.py).
      lm_length, chunk: LM sequence length L and document length N (a BOS
        token starts every document, so boundaries sit at 0, N, 2N, ...).
      lm_batch, kv_batch: sequences per step for each task.
      kv_pairs: k pairs per retrieval context; length 2k + 3.
      kv_format: "keyed" (each key owns NV value tokens, so the needle is the
        one context value owned by the queried key: one attention layer finds
        and copies it) or "shared" (all keys draw from one set of NV values,
        Liu et al.'s format: needs a two-layer induction circuit, which this
        model size does not learn within 100 steps).
      kv_keys: K distinct key tokens (>= kv_pairs); None = kv_pairs.
      kv_values: NV, values per key ("keyed") or in all ("shared"); None = as
        many as ``vocab`` holds.
      depth_bins: number of needle-depth bins (bin b holds pair indices
        floor(b k / bins) .. floor((b+1) k / bins) - 1).
      middle_strength: s >= 0 in the middle weights w(x) = 1 + s (1 - |2x - 1|)
        (normalized to mean 1 over the batch); used by "middle_loss" and as the
        oversampling density for "oversample_middle".
      curriculum_steps: steps of middle-only needles for "curriculum".
      lr, warmup, weight_decay, clip: AdamW with linear warmup to ``lr`` then
        cosine decay to 0.1 lr at ``steps``; global-norm clipping at ``clip``.
      snapshot_steps: steps at which profiles and accuracy are recorded.
      eval_per_bin: retrieval evaluation examples per depth bin.
      eval_seed: seed of the (fixed) evaluation set and profile input.
      profile_method, probes: influence_profile method ("exact" or
        "randomized") and its probe count.
      ckpt_every, keep: orbax checkpoint interval (steps) and how many to keep.
      streams: each task's batch is cut into this many equal sub-batches
        whose losses are computed independently and averaged (the same
        loss), so XLA runs them concurrently on the CPU cores (~5-10% faster
        on 2 cores); a task whose batch it does not divide is not cut.
        Ignored (1) when training data-parallel over several devices.
      unroll_layers: DecoderConfig.unroll_layers for the trained model.
      attn_impl: DecoderConfig.attn_impl for the trained model, or "auto":
        "fused_cpu" where its kernel can be built (CPU backend and a C++
        compiler; nn.fused_cpu.available()) and the head dim is at most 32,
        else "blocked" (benchmarks/attention_bench.py, 2-core CPU: fwd+bwd
        3.3x, 1.5x, 1.3x the blocked speed at head dim 8, 16, 32; 0.9x at 64).
    """

    task: str = "mixed"
    intervention: str = "none"
    seed: int = 0
    steps: int = 100
    width: int = 64
    depth: int = 2
    heads: int = 4
    kv_heads: int = 2
    vocab: int = 242  # 2 + 15 keys + 15 x 15 keyed values
    lm_length: int = 600
    chunk: int = 300
    lm_batch: int = 1
    kv_batch: int = 96
    kv_pairs: int = 15
    kv_format: str = "keyed"
    kv_keys: int | None = None
    kv_values: int | None = None
    depth_bins: int = 5
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
        _choice("task", self.task, TASKS)
        _choice("intervention", self.intervention, INTERVENTIONS)
        _choice("kv_format", self.kv_format, KV_FORMATS)
        _choice("profile_method", self.profile_method, ("exact", "randomized"))
        _choice("attn_impl", self.attn_impl, ("auto", *ATTN_IMPLS))
        for name, low in (("seed", 0), ("steps", 1), ("width", 1), ("depth", 1), ("heads", 1),
                          ("kv_heads", 1), ("lm_length", 2), ("chunk", 2), ("lm_batch", 1),
                          ("kv_batch", 1), ("kv_pairs", 1), ("depth_bins", 1), ("curriculum_steps", 0),
                          ("warmup", 0), ("eval_per_bin", 1), ("eval_seed", 0), ("probes", 1),
                          ("ckpt_every", 1), ("keep", 1), ("streams", 1)):
            _int(name, getattr(self, name), low)
        if not isinstance(self.unroll_layers, bool):
            raise ValueError(f"unroll_layers must be a bool, got {self.unroll_layers!r}")
        if self.depth_bins > self.kv_pairs:
            raise ValueError(f"depth_bins={self.depth_bins} must be <= kv_pairs={self.kv_pairs}")
        for name in ("kv_keys", "kv_values"):
            if getattr(self, name) is not None:
                _int(name, getattr(self, name), self.kv_pairs if name == "kv_keys" else 1)
        keys, values = self.kv_sizes
        need = N_SPECIAL + keys + (keys if self.kv_format == "keyed" else 1) * max(values, 1)
        if values < 1 or self.vocab < need:
            raise ValueError(f"vocab must be >= {need} (2 + kv_keys + the {self.kv_format} value tokens), "
                             f"got {self.vocab}")
        for name in ("lr", "clip"):
            if not (isinstance(getattr(self, name), (int, float)) and getattr(self, name) > 0):
                raise ValueError(f"{name} must be a number > 0, got {getattr(self, name)!r}")
        for name in ("weight_decay", "middle_strength"):
            if not (isinstance(getattr(self, name), (int, float)) and getattr(self, name) >= 0):
                raise ValueError(f"{name} must be a number >= 0, got {getattr(self, name)!r}")
        steps = self.snapshot_steps
        if not isinstance(steps, tuple) or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in steps):
            raise ValueError(f"snapshot_steps must be a tuple of ints >= 0, got {steps!r}")
        # validates width / heads / kv_heads (and attn_impl) without building the fused kernel
        self._decoder_config("blocked" if self.attn_impl == "auto" else self.attn_impl)

    def model_config(self) -> DecoderConfig:
        """The decoder: the "toy" preset with this run's sizes and vocabulary."""
        return self._decoder_config(self.resolved_attn_impl)

    def _decoder_config(self, attn_impl: str) -> DecoderConfig:
        return preset("toy", width=self.width, depth=self.depth, heads=self.heads, kv_heads=self.kv_heads,
                      mlp_width=2 * self.width, vocab_size=self.vocab,
                      max_positions=max(1024, self.lm_length), remat=False,
                      unroll_layers=self.unroll_layers, attn_impl=attn_impl)

    @property
    def resolved_attn_impl(self) -> str:
        """attn_impl with "auto" resolved (see the class docstring)."""
        if self.attn_impl != "auto":
            return self.attn_impl
        small_heads = self.width // self.heads <= FUSED_MAX_AUTO_HEAD_DIM
        return "fused_cpu" if small_heads and fused_cpu.available() else "blocked"

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
        """Retrieval context length 2k + 3 (BOS, k pairs, QUERY, key)."""
        return 2 * self.kv_pairs + 3

    def replace(self, **changes) -> "TrainConfig":
        """A copy with fields replaced (validated again)."""
        return dataclasses.replace(self, **changes)


SMOKE = dict(steps=6, width=32, lm_length=64, chunk=16, lm_batch=2, kv_batch=8, kv_pairs=6,
             depth_bins=3, snapshot_steps=(0, 1, 2, 5), eval_per_bin=8, ckpt_every=3,
             curriculum_steps=3, warmup=2)


def _int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")


def _choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
