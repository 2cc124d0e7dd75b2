"""Alias: the resource limits live in :mod:`lostmid_jax.resources` now (below theory and masks)."""

from ..resources import (DEFAULT_MEMORY_GB, Limits, check_budget, check_max_dps, check_max_heads,  # noqa: F401
                         check_memory, check_operations, current_limits, limits, physical_memory_bytes)
