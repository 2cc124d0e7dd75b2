"""Alias for one release: a run's main table as text to paste lives in lostmid_jax.present.paste."""

from ..present.paste import FORMATS, check_format, needed, render

__all__ = ["FORMATS", "check_format", "needed", "render"]
