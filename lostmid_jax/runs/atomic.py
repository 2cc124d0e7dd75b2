"""Alias for one release: the atomic writer (below every package, so kernel builders may use it) lives in lostmid_jax.atomic."""

from ..atomic import TEMPORARY_SUFFIX, is_temporary, remove_temporaries, replacing, write_atomic

__all__ = ["TEMPORARY_SUFFIX", "is_temporary", "remove_temporaries", "replacing", "write_atomic"]
