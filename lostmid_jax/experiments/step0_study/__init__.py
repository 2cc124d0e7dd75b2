"""Step-0 study: where the noise of the Step-0 profile comes from, how it converges, and which theory predicts it.

For each preset (seeds 0..S-1, the models and inputs of ``lostmid step0``) it
measures the Jacobian profile ||d y_L / d x_j||_F, the attention strengths
a_l, the branch gains g_l^2 and how far each layer's attention is from
uniform, then

- scores seven theory variants (:mod:`lostmid_jax.analysis.theory_variants`)
  on seeds held out from any fitting (:mod:`lostmid_jax.stats.heldout`),
  raw and binned, with 95% CIs and the noise ceiling;
- follows Spearman, W1 and the ceiling as the number of held-out seeds grows
  (the convergence study);
- measures how the per-position noise of the profile scales with width and
  seeds (a width grid of one preset, exact profiles).

    config.py    what runs (Config, SMOKE, PLANS)
    measure.py   one unit -> units/*.npz (resumable)
    tables.py    the tables (CSV rows), from the units alone
    claims.py    the summary table and the verdict
    columns.py   what every CSV column means (COLUMNS)
    figures.py   the figures, from the tables alone

Protocol and results: docs/step0.md.
"""

from __future__ import annotations

import dataclasses
import pathlib

from .config import PLANS, SMOKE, Config, PresetPlan
from .figures import figures  # {stem: Figure} drawn from the saved tables alone
from .. import influence_settings, preset_settings

NAME = "step0_study"
VERDICT_TITLE = "which theory predicts the Step-0 profile, and how far the measurement converges"
SMOKE_HELP = "toy preset, L=16, 4 seeds, noise grid at widths 16 and 32"
RESUMABLE = True
CLI_ALIASES = {**preset_settings.ALIASES, **influence_settings.ALIASES}  # --preset, --length, ...
CLI_LEGACY = preset_settings.LEGACY_FLAGS  # --presets, --param-dtype: the spellings before the config groups
FILES = {"units": "one .npz per (preset, seed) and per (width, seed) of the noise grid: the measured arrays"}


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns: the config, the units and the tables (:mod:`.tables`)."""

    config: Config
    units: dict
    noise_units: dict
    tables: dict


def run(cfg: Config, run_dir, *, progress: bool = True, mesh=None) -> Result:
    """Measure (or reload) every unit, then build the tables. ``mesh`` is unused; float64
    (``param_dtype``) is switched on for this call only."""
    import contextlib

    import jax

    with jax.enable_x64(True) if cfg.models.param_dtype == "float64" else contextlib.nullcontext():
        return _run(cfg, run_dir, progress=progress)


def _run(cfg: Config, run_dir, *, progress: bool) -> Result:
    from ..runner import writes_files
    from . import measure

    units, noise = measure.run_units(cfg, pathlib.Path(run_dir), progress=progress and writes_files())
    from .tables import tables  # after the units: a run that fails later keeps them and resumes

    return Result(cfg, units, noise, tables(cfg, units, noise))


def records(result: Result) -> dict[str, list[dict]]:
    """variants.csv, convergence.csv, ceiling.csv, profiles.csv, layers.csv, noise.csv (:data:`COLUMNS`)."""
    return {f"{name}.csv": rows for name, rows in result.tables.items() if rows}


def summary(result: Result) -> str:
    from .claims import summary_table

    return summary_table(result.config, result.tables)


def verdict(result: Result) -> list[str]:
    from .claims import verdict_lines

    return verdict_lines(result.config, result.tables)


def describe(result: Result) -> str:
    n = sum(len(v) for v in result.units.values()) + sum(len(v) for v in result.noise_units.values())
    return f"{n} units"


def __getattr__(name):
    if name == "COLUMNS":
        from .columns import COLUMNS

        return COLUMNS
    raise AttributeError(name)


__all__ = ["COLUMNS", "Config", "NAME", "PLANS", "PresetPlan", "Result", "SMOKE", "figures", "records", "run",
           "summary", "verdict"]
