"""Alias for one release: tensor layouts now live in each family module of lostmid_jax.nn.hf (families.py)."""

from .hf.families import IGNORED_SUFFIXES, PREFIX, from_hf, to_hf  # noqa: F401
