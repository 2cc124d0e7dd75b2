"""Alias: the text specs of the priors live in :mod:`lostmid_jax.masks.text` now."""

from ..masks.text import default_priors, parse_prior, prior_spec  # noqa: F401
