"""Alias for one release: step0's summaries, 95% CIs and CSV rows live in lostmid_jax.experiments.step0.tables."""

from .tables import (BINS, CLAIMS, HEAT_HEADS, LOOP_BOOT, METRIC_COLUMNS, PATHWAYS, PEAK_TO_TROUGH_BAND, THEORY_ROWS,
                     THRESHOLDS, TIMING_COLUMNS, agreement_records, alpha_records, attention_records, bin_choices,
                     content_prior, content_records, intervals, measured_content_prior, metric_ci, metric_records,
                     null_records, pathway_summary, profile_records, summarize, summarize_variant, timing_records)

__all__ = ["BINS", "CLAIMS", "HEAT_HEADS", "LOOP_BOOT", "METRIC_COLUMNS", "PATHWAYS", "PEAK_TO_TROUGH_BAND",
           "THEORY_ROWS", "THRESHOLDS", "TIMING_COLUMNS", "agreement_records", "alpha_records", "attention_records",
           "bin_choices", "content_prior", "content_records", "intervals", "measured_content_prior", "metric_ci",
           "metric_records", "null_records", "pathway_summary", "profile_records", "summarize", "summarize_variant",
           "timing_records"]
