"""Alias kept for one release: the HTML report of a run lives in :mod:`lostmid_jax.present.report`."""

from .present.report import build_html, write_report

__all__ = ["build_html", "write_report"]
