"""Alias for one release: the summary over seeds of a model's units lives in lostmid_jax.analysis.seed_summary."""

from .seed_summary import (BINS, LOOP_BOOT, NULL_ALPHAS, bin_choices, intervals, null_references, null_scores,
                           pathway_summary, summarize_variant, unit_timings)

__all__ = ["BINS", "LOOP_BOOT", "NULL_ALPHAS", "bin_choices", "intervals", "null_references", "null_scores",
           "pathway_summary", "summarize_variant", "unit_timings"]
