"""Alias for one release: the counterfactual sweep (run, records, Result) lives in
lostmid_jax.experiments.counterfactuals.measure."""

from .measure import PROFILE_POINTS, Result, dead_zone, profile_depths, profile_record, profile_rows, records, run

__all__ = ["PROFILE_POINTS", "Result", "dead_zone", "profile_depths", "profile_record", "profile_rows", "records", "run"]
