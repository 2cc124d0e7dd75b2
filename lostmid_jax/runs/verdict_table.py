"""Alias for one release: a verdict read as a claims table lives in lostmid_jax.present.verdict_table."""

from ..present.verdict_table import Claim, DETAILS, OUTCOMES, claim_rows

__all__ = ["Claim", "DETAILS", "OUTCOMES", "claim_rows"]
