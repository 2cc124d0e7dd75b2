"""Alias for one release: the measured Content prior lives in lostmid_jax.analysis.measured_prior, a unit's random
input in lostmid_jax.analysis.random_inputs."""

from .measured_prior import CONTENT_LENGTH, CONTENT_SCORES, content_records, measured_content_prior
from .random_inputs import model_input

__all__ = ["CONTENT_LENGTH", "CONTENT_SCORES", "content_records", "measured_content_prior", "model_input"]
