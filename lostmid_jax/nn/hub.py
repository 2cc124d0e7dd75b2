"""Alias for one release: hub ids in the local cache now live in lostmid_jax.nn.hf.hub."""

from .hf.hub import WEIGHT_PATTERNS, resolve_checkpoint  # noqa: F401
