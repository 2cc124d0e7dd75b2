"""The flag spellings `lostmid train` took before its flags became dotted paths (earlier releases
named a nested field by its leaf: ``--kind`` for ``base.model.rope_scaling.kind``).

Written out, not derived: a field added later must not move an old spelling to another field.
They parse exactly as the dotted flag does and are not listed in ``--help``.
"""

from __future__ import annotations

_BASE = ("lm-length", "doc-length", "lm-batch", "kv-batch", "kv-pairs", "passage-length",
         "passage-key-tokens", "kv-format", "kv-keys", "kv-values", "needle-bins", "middle-strength",
         "curriculum-steps", "warmup", "weight-decay", "clip", "snapshot-steps", "eval-per-bin", "eval-seed",
         "profile-method", "probes", "ckpt-every", "keep", "streams", "unroll-layers", "attn-impl")
_MODEL = ("kv-heads", "head-dim", "qkv-bias", "out-bias", "qk-norm", "attention", "mask", "window", "prefix",
          "sinks", "position", "alibi-rule", "rope-theta", "max-positions", "norm", "norm-eps", "norm-bias",
          "pre-norm", "final-norm", "embed-norm", "mlp", "mlp-width", "mlp-bias", "residual", "attn-mix", "init",
          "init-std", "vocab-size", "tie-embeddings", "param-dtype", "dtype")
_ROPE_SCALING = ("kind", "factor", "low-freq-factor", "high-freq-factor", "original-max-positions", "beta-fast",
                 "beta-slow", "mscale", "mscale-all-dim", "attention-factor", "truncate")


def _under(prefix: str, names: tuple[str, ...]) -> dict[str, str]:
    return {name: prefix + name.replace("-", "_") for name in names}


LEGACY_FLAGS = {**_under("base.", _BASE), **_under("base.model.", _MODEL),
                **_under("base.model.rope_scaling.", _ROPE_SCALING)}
