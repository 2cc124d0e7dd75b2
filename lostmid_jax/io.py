"""Alias kept for one release: run directories, config.json and CSV files live in :mod:`lostmid_jax.runs`."""

from .atomic import write_atomic
from .runs.claim import claim_run_dir
from .runs.config import jsonable
from .runs.config_file import git_revision, package_versions, write_config
from .runs.load import Run, load_run
from .runs.tables import na_field, read_csv, write_csv

__all__ = ["Run", "claim_run_dir", "git_revision", "jsonable", "load_run", "na_field", "package_versions", "read_csv",
           "write_atomic", "write_config", "write_csv"]
