"""Alias for one release: the report page's title and results table lives in lostmid_jax.present.page."""

from ..present.page import PageTable, page_parts

__all__ = ["PageTable", "page_parts"]
