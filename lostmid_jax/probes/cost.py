"""The work and memory of a probe run, estimated from its sizes alone, before any model is loaded.

Shapes and sizes: R rows of T positions, B rows per forward, D width, H depth, N heads of size Dh, F the
MLP width, V the vocabulary, P_b the parameters of the blocks, b the bytes of the compute dtype (>= 4 for
the attention scores).

    cost = Cost.forward(model_cfg, rows=R, length=T, batch=B)       # one scoring pass
    total = cost + Cost.bootstrap(replicates=2000, units=40) + ...   # parts add: seconds add, memory is the peak
    total.check("diagnose: lengths=1024, examples=40, ...")           # resources.check_budget: one line over a limit

Work, in the CPU-seconds of one core that :mod:`lostmid_jax.resources` counts
(``max_operations``, ~1 ns each):

    forward FLOPs  = R T (2 P_b + 4 H N Dh T) + 2 R A V D            (blocks, attention scores and mixing, head)
    seconds        = FLOPs x NS_PER_FLOP 1e-9 + calls x CALL_SECONDS + programs x (COMPILE_SECONDS
                     + H COMPILE_SECONDS_PER_LAYER)
    bootstrap      replicates x REPLICATE_SECONDS (a row bootstrap: a fit per replicate), or
                   replicates x (5e-6 + units 1e-7) (the paired bootstrap: multinomial counts, vectorized)

Memory (bytes) held at the peak of a part, on top of the weights (P b_param,
twice where a Step-0 copy sits beside the model):

    forward        B T (4 max(D, N Dh) + 2 F) b + B N T^2 4 + B A V 4   (one block's activations and scores)
    attention      H N T^2 4 + A N T^2 4 + 17 T^2                       (every layer's probabilities, the heat
                                                                         map's batch, the mask and its shares)
    bootstrap      replicates x units x 16                              (resample weights or counts)

The constants are measured on the 2-core CPU these tests run on and rounded up
(the estimate is meant to bound a run from above: the smoke runs, cold, took
11 and 21 CPU-seconds against estimates of ~18 and ~45; tests/experiments
check the shared smoke run against its estimate); the compile time of deep
models and a GPU's FLOP rate are not measured here, so there the estimate is
only indicative.
"""

from __future__ import annotations

import dataclasses

NS_PER_FLOP = 0.1
"""CPU nanoseconds per FLOP of a forward / backward pass (XLA on one core: ~10 GFLOP/s, rounded down)."""
CALL_SECONDS = 0.01
"""CPU seconds of one jitted call besides its FLOPs (dispatch, host transfers, the Python around it)."""
COMPILE_SECONDS = 1.5
"""CPU seconds to compile one program (a forward, a backward, an attention capture) of a 2-layer model: the
smoke runs measure ~1.1-1.3 s."""
COMPILE_SECONDS_PER_LAYER = 0.25
"""CPU seconds a program's compile grows by per layer (a guess: deep models were not timed here)."""
REPLICATE_SECONDS = 3e-4
"""CPU seconds of one replicate of a row bootstrap (a valley fit on the resampled mean: measured 1.1e-4 at
T = 64, 1.6e-4 at T = 1024)."""
_LOAD_SECONDS = 2.0  # importing the model code and reading a checkpoint (beyond its bytes)


@dataclasses.dataclass(frozen=True)
class Cost:
    """An estimate: CPU seconds (they add) and the bytes held at the peak (the largest part's)."""

    seconds: float = 0.0
    nbytes: float = 0.0

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(self.seconds + other.seconds, max(self.nbytes, other.nbytes))

    def times(self, count: float) -> "Cost":
        """``count`` runs of this part one after the other: the seconds multiply, the memory does not."""
        return Cost(self.seconds * count, self.nbytes)

    @classmethod
    def forward(cls, cfg, *, rows: float, length: float, batch: float = 1, answer_ids: float = 1,
                backward: float = 0, programs: float = 1) -> "Cost":
        """R = ``rows`` forward passes over T = ``length`` positions in batches of ``batch`` (each with
        ``backward`` backward passes of twice its FLOPs), compiled once per program. The last batch is padded
        to ``batch`` rows (probes.scoring), so the memory counts ``batch`` rows even past R."""
        batch = max(1.0, float(batch))
        flops = rows * (length * (2.0 * block_parameters(cfg) + 4.0 * cfg.depth * cfg.heads * _head_dim(cfg) * length)
                        + 2.0 * answer_ids * (cfg.vocab_size or 0) * cfg.width) * (1 + 2 * backward)
        calls = -(-rows // batch) * (1 + (backward > 0))  # the cotangents of a row share batched backward calls
        b = max(_itemsize(cfg.compute_dtype), 4)
        width = max(cfg.width, cfg.heads * _head_dim(cfg))
        activations = batch * length * (4 * width + 2 * _mlp_width(cfg)) * b + batch * cfg.heads * length**2 * 4
        head = batch * answer_ids * (cfg.vocab_size or 0) * 4
        compile_seconds = programs * (COMPILE_SECONDS + cfg.depth * COMPILE_SECONDS_PER_LAYER)
        return cls(flops * NS_PER_FLOP * 1e-9 + calls * CALL_SECONDS + compile_seconds,
                   activations * (1 + 2 * (backward > 0)) + head)

    @classmethod
    def attention(cls, cfg, *, prompts: float, length: float, programs: float = 2) -> "Cost":
        """Attention received on ``prompts`` prompts of T = ``length``: every layer's probabilities held."""
        probs = (cfg.depth + prompts) * cfg.heads * length**2 * 4.0 + 17.0 * length**2
        return cls.forward(cfg, rows=prompts, length=length, programs=programs) + cls(0.0, probs)

    @classmethod
    def bootstrap(cls, *, replicates: float, units: float, fits: float = 1, width: float = 1) -> "Cost":
        """``fits`` row bootstraps of ``replicates`` resamples of ``units`` rows of ``width`` values each."""
        seconds = fits * replicates * (REPLICATE_SECONDS + units * width * 1e-9)
        return cls(seconds, replicates * units * 16.0)

    @classmethod
    def paired(cls, *, replicates: float, units: float, fits: float = 1) -> "Cost":
        """``fits`` paired bootstraps (stats.paired) of ``replicates`` resamples of ``units`` differences."""
        return cls(fits * replicates * (5e-6 + units * 1e-7), replicates * (units + 2) * 8.0)

    @classmethod
    def weights(cls, cfg, *, copies: float = 1) -> "Cost":
        """Holding ``copies`` models of ``cfg`` (and reading the checkpoint)."""
        size = _itemsize(cfg.param_dtype)
        return cls(_LOAD_SECONDS + cfg.parameter_count() * 2e-9, copies * cfg.parameter_count() * size)

    def check(self, what: str) -> "Cost":
        """Refuse (ValueError, one line naming ``what``) over ``max_memory_gb`` or ``max_operations``."""
        from ..resources import check_budget

        check_budget(what, nbytes=self.nbytes, operations=self.seconds * 1e9)
        return self


def block_parameters(cfg) -> float:
    """P_b: the parameters of the blocks (those a forward multiplies per position)."""
    outer = (cfg.vocab_size or 0) * cfg.width * (1 if cfg.tie_embeddings else 2)
    return max(float(cfg.parameter_count() - outer), 0.0)


def _head_dim(cfg) -> int:
    return cfg.resolved_head_dim


def _mlp_width(cfg) -> int:
    return cfg.resolved_mlp_width if cfg.mlp != "none" else 0


def _itemsize(dtype: str) -> int:
    return {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8}[dtype]


__all__ = ["CALL_SECONDS", "COMPILE_SECONDS", "COMPILE_SECONDS_PER_LAYER", "Cost", "NS_PER_FLOP", "REPLICATE_SECONDS", "block_parameters"]
