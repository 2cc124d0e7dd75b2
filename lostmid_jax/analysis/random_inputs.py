"""The random input x [L, D] of a profile unit (step0, step0-study): embedded uniform random tokens, or N(0, 1).

    x = model_input(model, L, key, "tokens")          # [L, D]

Shapes: L positions, D width.
"""

from __future__ import annotations


def model_input(model, length: int, key, kind: str) -> "jax.Array":  # noqa: F821
    """x [L, D]: embeddings of uniform random tokens ("tokens") or N(0, 1) ("gaussian")."""
    import jax

    cfg = model.cfg
    if kind == "tokens" and cfg.vocab_size is not None:
        tokens = jax.random.randint(key, (length,), 0, cfg.vocab_size)
        return model.embed(tokens)
    return jax.random.normal(key, (length, cfg.width), cfg.compute_dtype)


__all__ = ["model_input"]
