"""A run directory read back as typed data.

    from lostmid_jax.runs import load_run
    run = load_run("runs/depth_sweep/20260101-120000-000000")
    run.experiment               # "depth_sweep"
    run.config                   # the experiment's Config, rebuilt from config.json
    run.tables["results"]        # pandas.DataFrame: numeric columns numeric, True/False columns bool
    run.columns["results"]       # {column: (meaning, unit)} from columns.csv ("" unit: dimensionless)
    run.verdict, run.summary     # verdict.txt, table.txt (None when absent)
    run.figures                  # the figure files (PNG, PDF, SVG)

An empty CSV field is the one missing-value encoding (NaN in the tables);
every other field is data, so a label such as "none" stays a string.

A run directory may come from someone else: reading it reads only regular
files inside it (:mod:`.inside`: a symlink out of it is refused), checks each
CSV for damage (truncation, ragged rows, unterminated quotes, damaged numbers,
and the cells of the grids its experiment declares in GRIDS, such as
diagnose's heat map: file and line named), and validates the stored config without resolving anything it names
(a Config checks its own fields only; checkpoints are looked up by the experiments' resolve step: no network).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import warnings

from .config import from_dict, unchecked
from .config_file import read_run_record
from .inside import inside_glob, read_text
from .registry import experiment_module, experiment_names
from .tables import check_grid, read_columns, read_tables

FIGURE_FORMATS = ("png", "pdf", "svg")
"""Formats a run's figures are saved in (:func:`lostmid_jax.present.plot.save_figures`)."""


class StoredConfigWarning(UserWarning):
    """config.json's configuration no longer validates here (e.g. a checkpoint directory that moved)."""


class UnfinishedRunWarning(UserWarning):
    """config.json's status is not "done" (running, interrupted, failed): the tables may be partial."""


@dataclasses.dataclass(frozen=True)
class Run:
    """One run directory, read back (:func:`load_run`).

    Attributes:
      path: the run directory.
      experiment: the experiment module name recorded in config.json (e.g. "depth_sweep").
      config: that experiment's Config, rebuilt from config.json.
      tables: CSV stem -> pandas.DataFrame (columns typed; empty fields are NaN).
      columns: CSV stem -> {column: (meaning, unit)}, from columns.csv ({} when the run has none).
      verdict: verdict.txt, or None.
      summary: table.txt, or None.
      figures: the figure files at the top of the directory, sorted.
      record: all of config.json (versions, git_revision, created_utc, status, ...).
    """

    path: pathlib.Path
    experiment: str
    config: object
    tables: dict
    columns: dict
    verdict: str | None
    summary: str | None
    figures: tuple
    record: dict

    def __repr__(self) -> str:
        """One line: experiment, directory, table shapes, figures and verdict length (no DataFrame dumped).

        >>> Run(pathlib.Path("runs/x"), "depth_sweep", None, {}, {}, "a\\nb", None, (), {})
        Run('runs/x', experiment='depth_sweep', tables={}, figures=0, verdict='2 lines')
        """
        tables = ", ".join(f"{stem}: {frame.shape[0]}x{frame.shape[1]}" for stem, frame in self.tables.items())
        verdict = "none" if self.verdict is None else f"{len(self.verdict.splitlines())} lines"
        return (f"Run({str(self.path)!r}, experiment={self.experiment!r}, tables={{{tables}}}, "
                f"figures={len(self.figures)}, verdict={verdict!r})")

    @property
    def module(self):
        """The experiment module (imports no jax)."""
        return experiment_module(self.experiment)


def _config(experiment: str, values: dict):
    """The experiment's Config from config.json's values; when they no longer validate here (a
    checkpoint that is not on this machine), the stored values unchecked, with a warning."""
    cls = experiment_module(experiment).Config
    try:  # a Config checks its own fields only: nothing resolved, no network
        return from_dict(cls, values)
    except ValueError as err:
        warnings.warn(f"config.json's config does not validate here ({err}); Run.config holds the stored "
                      "values unchecked", StoredConfigWarning, stacklevel=3)
        return unchecked(cls, values)


def load_run(path) -> Run:
    """Read the run directory ``path`` back: config, typed tables, column dictionary, verdict, figures.

    Warns:
      UnfinishedRunWarning: when config.json's status is not "done" (a run still running, interrupted
        or failed); StoredConfigWarning: when its config no longer validates here.

    Raises:
      ValueError: naming ``path`` when it is not a run directory (no config.json naming a known
        experiment), or naming the file and line of a damaged table.
    """
    run_dir = pathlib.Path(path)
    if not run_dir.is_dir():
        raise ValueError(f"path: {str(path)!r} is not a run directory (not a directory)")
    config_path, record = read_run_record(path, argument="path",
                                          missing="is not a run directory (it has no config.json)")
    experiment = record.get("experiment") if isinstance(record, dict) else None
    known = experiment_names()
    if experiment not in known:
        raise ValueError(f"path: {config_path} names no known experiment (experiment={experiment!r}); "
                         f"expected one of {known}")
    values = record.get("config", {})
    if not isinstance(values, dict):
        raise ValueError(f"path: {config_path}'s \"config\" must be an object of config fields, got "
                         f"{json.dumps(values)[:60]}")
    status = record.get("status", "done")
    if status != "done":
        warnings.warn(f"{run_dir} is an unfinished {experiment} run (status {status!r} in its config.json): its "
                      "tables and figures may be partial", UnfinishedRunWarning, stacklevel=2)
    figures = tuple(sorted(p for fmt in FIGURE_FORMATS for p in inside_glob(run_dir, f"*.{fmt}")))
    tables = read_tables(run_dir)
    for stem, columns in getattr(experiment_module(experiment), "GRIDS", {}).items():
        if stem in tables:
            check_grid(run_dir / f"{stem}.csv", tables[stem], columns)
    return Run(path=run_dir, experiment=experiment, config=_config(experiment, values),
               tables=tables, columns=read_columns(run_dir),
               verdict=read_text(run_dir, "verdict.txt"), summary=read_text(run_dir, "table.txt"),
               figures=figures, record=record)


__all__ = ["FIGURE_FORMATS", "Run", "StoredConfigWarning", "UnfinishedRunWarning", "load_run"]
