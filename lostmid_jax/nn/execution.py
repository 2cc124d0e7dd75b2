"""Execution: how a Decoder runs a call, chosen at call time and never stored in its config.

    y = model(x)                                                  # Execution(): the defaults below
    y = model(x, execution=Execution(remat=False, unroll_layers=True))
    y = model(x, execution=Execution(attn_impl="fused_cpu"))      # compiles the C++ kernel on first use

No field changes the function computed, only speed, memory and float
rounding (tests check each route against the plain one). Frozen and hashable,
so it is a static argument of jitted functions.
"""

from __future__ import annotations

import dataclasses

from ..validation import check_bool, check_choice, check_optional_int

ATTN_IMPLS = ("blocked", "fused_cpu")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Execution:
    """Execution switches of one Decoder call.

    Attributes:
      remat: rematerialize each block in the backward pass (jax.checkpoint
        around the scanned block): memory O(H L D) instead of O(H L^2).
      attn_block: query block T >= 1 of softmax attention (see
        nn/attention_core.py); None picks ``attention_core.auto_block(L)``.
        Blocks skip the keys no query in them may see.
      keep_probs: keep the softmax probabilities for the backward pass instead
        of recomputing them from the row log-sum-exps (O(N L^2) memory per
        layer; faster when one forward serves many backward passes, as in the
        Jacobian engine, which turns it on).
      unroll_layers: apply the H blocks as an unrolled loop instead of a
        lax.scan (no stacked per-layer buffers to fill and slice: ~5% faster
        training steps on CPU; compile time grows with H).
      attn_impl: how softmax attention runs when the probabilities are not
        captured: "blocked" (XLA, nn/attention_core.py) or "fused_cpu" (the
        C++ kernel of lostmid_jax/kernels/fused_cpu, compiled on first use;
        CPU backend, float32 compute, softmax attention, no "document" mask,
        no attention sinks, no ALiBi, no segment ids; see
        :func:`fused_cpu_problems`).
    """

    remat: bool = True
    attn_block: int | None = None
    keep_probs: bool = False
    unroll_layers: bool = False
    attn_impl: str = "blocked"

    def __post_init__(self):
        check_bool("remat", self.remat)
        object.__setattr__(self, "attn_block", check_optional_int("attn_block", self.attn_block, 1))
        check_bool("keep_probs", self.keep_probs)
        check_bool("unroll_layers", self.unroll_layers)
        check_choice("attn_impl", self.attn_impl, ATTN_IMPLS)

    def check_for(self, cfg) -> "Execution":
        """This execution, after checking it can run the DecoderConfig ``cfg`` (ValueError if not)."""
        problems = fused_cpu_problems(cfg) if self.attn_impl == "fused_cpu" else None
        if problems:
            raise ValueError(f"attn_impl='fused_cpu' needs attention='softmax', a mask other than 'document', "
                             f"no attention sinks, a position other than 'alibi' and float32 compute; "
                             f"got {problems} (use attn_impl='blocked')")
        return self


def fused_cpu_problems(cfg) -> str | None:
    """None when the fused CPU kernel can run ``cfg``'s attention, else the offending fields.

    The kernel sees one contiguous key range per query, so it cannot run
    attention sinks (``cfg.sinks`` > 0: the sinks plus a window are two ranges).
    """
    compute = cfg.dtype or cfg.param_dtype
    sinks = getattr(cfg, "sinks", 0)
    if (cfg.attention != "softmax" or cfg.mask == "document" or cfg.position == "alibi" or compute != "float32"
            or sinks):
        return (f"attention={cfg.attention!r}, mask={cfg.mask!r}, sinks={sinks}, position={cfg.position!r}, "
                f"dtype={compute!r}")
    return None


def check_execution(execution, cfg) -> Execution:
    """``execution`` (None: ``Execution()``) checked against ``cfg``; ValueError naming ``execution``."""
    if execution is None:
        return DEFAULT_EXECUTION
    if not isinstance(execution, Execution):
        raise ValueError(f"execution must be an nn.Execution or None, got {type(execution).__name__}")
    return execution.check_for(cfg)


DEFAULT_EXECUTION = Execution()
