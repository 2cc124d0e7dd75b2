"""Alias: the row operators of Content priors live in :mod:`lostmid_jax.masks.content_ops` now."""

from ..masks.content_ops import _slopes, alibi_sums, content_matrix, layer_operators  # noqa: F401
