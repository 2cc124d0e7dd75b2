"""Run one experiment into its run directory: the steps every experiment shares.

    resolve ("auto" -> what runs; the inputs looked up once) -> claim the run directory (never someone else's results)
    -> config.json (status "running") -> run -> records (CSV) -> columns.csv (the column
    dictionary, from the module's COLUMNS) -> summary (table.txt) -> verdict (verdict.txt)
    -> figures: module.figures(tables, cfg) on the tables read back from the CSV files just
    written (so ``lostmid plot`` redraws the same figures), PNG at 150 dpi
    -> config.json (status "done", seconds, figures, ...) -> the list of files written.

Every file is written under a temporary name, then renamed. A run that fails
leaves what it finished (experiments that take long keep their finished units
and resume from them with the same flags); one that fails before finishing
anything removes the directory it created.

Phases are logged on the "lostmid_jax.experiments" logger (INFO; shown on
stderr while a run prints, unless logging is configured elsewhere): experiment
modules announce their long set-up steps (building models, compiling) with
``logging.getLogger(__name__).info(...)``.

A CSV column that the module's COLUMNS does not describe is marked
"(undocumented)" in columns.csv and raises
:class:`~lostmid_jax.runs.UndocumentedColumnsWarning` once everything is
written (an error under the test suite's settings).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import pathlib
import shutil
import sys
import time
import warnings

from ..atomic import write_atomic
from ..present.plot import draw_figures, failure_line, figure_title, save_figures
from ..runs import stop
from ..runs.claim import REPLACE_FLAG, claim, resolve_out
from ..runs.config import jsonable
from ..runs.config_file import CONFIG_FILE, read_config, write_config
from ..runs.ledger import LEDGER_FILE, recording
from ..runs.tables import (COLUMNS_FILE, UNDOCUMENTED, UndocumentedColumnsWarning, csv_name, dictionary, read_tables,
                           write_csv)

log = logging.getLogger("lostmid_jax.experiments")

_STANDARD_FILES = {
    CONFIG_FILE: "the configuration, package versions, git revision, status and run time",
    COLUMNS_FILE: "the column dictionary: file, column, meaning, unit of every CSV column",
    "table.txt": "the summary table printed above",
    "verdict.txt": "the verdict printed above",
    LEDGER_FILE: "the names of the entries this run wrote (all that --replace-unfinished may remove)",
}


@dataclasses.dataclass(frozen=True)
class Resolved:
    """What an experiment's ``resolve(cfg)`` may return instead of a config: the config that runs (recorded in
    config.json) and what it looked up once before the run directory is claimed (a checkpoint: its directory,
    config.json, tokenizer), handed to ``run(cfg, run_dir, ..., resolved=inputs)``."""

    config: object
    inputs: object


def resolved_run(exp, cfg):
    """(config, {"resolved": inputs} or {}) after ``exp.resolve`` (where the experiment has one)."""
    if not hasattr(exp, "resolve"):
        return cfg, {}
    out = exp.resolve(cfg)
    return (out.config, {"resolved": out.inputs}) if isinstance(out, Resolved) else (out, {})


def writes_files() -> bool:
    """False on the non-zero processes of a multi-host job (only process 0 writes)."""
    if "jax" not in sys.modules:
        return True
    from ..parallel import is_process0

    return is_process0()


def _holds_only_config(run_dir: pathlib.Path) -> bool:
    return {p.name for p in run_dir.iterdir()} <= {CONFIG_FILE, LEDGER_FILE}


@contextlib.contextmanager
def _phase_log(show: bool):
    """Show the experiments' INFO lines on stderr for the run (when nothing else handles them)."""
    if not show or log.handlers or logging.getLogger().handlers:
        yield
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    level, propagate = log.level, log.propagate
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False  # a root handler added mid-run (absl's basicConfig) must not print each line twice
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
        log.propagate = propagate


def _draw(exp, cfg, run_dir: pathlib.Path) -> dict[str, str]:
    """Draw and save the figures; {file name: what it shows}.

    A figure that cannot be drawn or saved does not fail the run (its tables are written): one warning line
    names the figure and the error, and the run's other figures are saved.
    """
    tables = read_tables(run_dir)  # exactly what load_run gives `lostmid plot`
    redraw = f"the tables are written; redraw with: lostmid plot {run_dir}"
    try:
        figures = draw_figures(exp, tables, cfg)
    except Exception as err:  # noqa: BLE001 - a figure never costs a finished run its status
        log.warning(f"{exp.NAME}: no figure drawn ({failure_line(err)}); {redraw}")
        return {}
    titles = {stem: figure_title(fig) for stem, fig in figures.items()}
    log.info(f"{exp.NAME}: saving {len(figures)} figures")
    written = []
    for stem, fig in figures.items():
        try:
            written += save_figures({stem: fig}, run_dir, ("png",))
        except Exception as err:  # noqa: BLE001
            log.warning(f"{exp.NAME}: figure {stem} not saved ({failure_line(err)}); {redraw}")
    return {p.name: "figure" + (f": {titles[p.stem]}" if titles[p.stem] else "") for p in written}


def files_block(exp, run_dir: pathlib.Path, tables: dict[str, list[dict]], figures: dict[str, str]) -> str:
    """The closing block: each top-level entry of ``run_dir`` and what it is (``exp.FILES`` describes
    the experiment's own extra files and folders)."""
    described = dict(_STANDARD_FILES)
    for name, rows in tables.items():
        described[name] = f"table, {len(rows)} rows x {len(rows[0])} columns (meanings and units in columns.csv)"
    described.update(figures)
    described.update(getattr(exp, "FILES", {}))
    entries = sorted((p.name + ("/" if p.is_dir() else ""), p.name) for p in run_dir.iterdir()
                     if not p.name.startswith(".") or p.name == LEDGER_FILE)
    width = max(len(shown) for shown, _ in entries)
    lines = [f"Files in {run_dir}:"]
    for shown, name in entries:
        lines.append(f"  {shown:<{width}}  {described.get(name, 'written by the experiment')}")
    return "\n".join(lines)


def execute(exp, cfg, run_dir, *, smoke: bool = False, progress: bool = True, figures: bool = True,
            mesh=None, echo=print, replace_unfinished: bool = False, profile: bool = False):
    """Run ``cfg`` of experiment module ``exp`` and write its run directory; returns the result.

    Args:
      exp: an experiment module (see :mod:`lostmid_jax.experiments`).
      cfg: its ``Config``.
      run_dir: the run directory: new, empty, or this very run's (resumable experiments).
      smoke: recorded in config.json.
      progress: show progress bars.
      figures: draw the figures (PNG).
      mesh: devices to spread the work over (experiments that take one), or None.
      echo: where the table, the verdict and the list of files are printed (None: nowhere; the
        phase log is then left to the logging configuration).
      replace_unfinished: an unfinished run of this experiment in ``run_dir`` (interrupted: config.json's
        status is not "done") is deleted and started again (``--replace-unfinished``).
      profile: print where the time went after the run (``--profile``): the phases (config.json
        "phase_seconds": run, tables, text, figures) and, where the experiment has a ``profile(result,
        phases)``, its own table (step0: each unit's compile, device and host seconds).

    ``run_dir`` is resolved once (~ expanded, symlinks resolved) and claimed atomically
    (:func:`lostmid_jax.runs.claim.claim`); every file is written under that one path and listed in the
    run's record (:mod:`lostmid_jax.runs.ledger`). SIGINT and SIGTERM stop a run at the next write or unit
    boundary at the latest (:mod:`lostmid_jax.runs.stop`: never lost, wherever they land); config.json then
    says "interrupted" ("failed" after an error), and the refusal of the same command names the run as
    unfinished.
    """
    with _phase_log(echo is not None), stop.watching():
        return _execute(exp, cfg, run_dir, smoke=smoke, progress=progress, figures=figures, mesh=mesh, echo=echo,
                        replace_unfinished=replace_unfinished, profile=profile)


def _execute(exp, cfg, run_dir, *, smoke, progress, figures, mesh, echo, replace_unfinished, profile):
    start = time.perf_counter()
    cfg, resolved = resolved_run(exp, cfg)  # "auto" choices made now, so config.json records what runs
    if not writes_files():  # multi-host: process 0 claims and writes; the others compute
        return exp.run(cfg, resolve_out(run_dir), progress=progress, mesh=mesh, **resolved)
    held = None
    try:
        with stop.shielded():  # a signal during the claim stops the run at its first write, not halfway
            held = claim(run_dir, jsonable(cfg), experiment=exp.NAME, resumable=getattr(exp, "RESUMABLE", False),
                         replace_unfinished=replace_unfinished)
        if held.left:
            log.warning(f"{exp.NAME}: {REPLACE_FLAG} removed the files the unfinished run wrote and left "
                        f"{len(held.left)} it did not write in {held.path}: {', '.join(held.left)}")
        with recording(held.path, fresh=not held.resumed):
            return _claimed(exp, cfg, held, start, smoke=smoke, progress=progress, figures=figures, mesh=mesh,
                            echo=echo, profile=profile, resolved=resolved)
    except BaseException as err:
        if held is not None:
            with stop.shielded():
                _stopped(exp, cfg, held, smoke, err)
        if stop.received() is not None and not isinstance(err, KeyboardInterrupt):
            raise stop.Interrupted(stop.received()) from err  # what followed the signal is not the cause
        raise
    finally:
        if held is not None:
            held.release()


def _stopped(exp, cfg, held, smoke: bool, err: BaseException) -> None:
    """After a run stopped: remove a directory it created that holds nothing finished, else record why
    (a run whose config.json already says "done" finished: a signal after that changes nothing in it)."""
    run_dir = held.path
    if held.created and _holds_only_config(run_dir):
        shutil.rmtree(run_dir, ignore_errors=True)  # nothing finished: leave no trace
        return
    if (read_config(run_dir / CONFIG_FILE) or {}).get("status") == "done":
        return
    status = "interrupted" if isinstance(err, KeyboardInterrupt) or stop.received() else "failed"
    with contextlib.suppress(Exception):
        write_config(run_dir, cfg, experiment=exp.NAME, smoke=smoke, status=status)


def _claimed(exp, cfg, held, start, *, smoke, progress, figures, mesh, echo, profile, resolved):
    run_dir = held.path
    phases = {}
    write_config(run_dir, cfg, experiment=exp.NAME, smoke=smoke, status="running")
    log.info(f"{exp.NAME}: running into {run_dir}")
    with _timed(phases, "run"):
        result = exp.run(cfg, run_dir, progress=progress, mesh=mesh, **resolved)
    written = _write_results(exp, cfg, run_dir, result, start, smoke=smoke, figures=figures, phases=phases)
    _announce(exp, run_dir, result, *written, echo=echo)
    if profile and echo is not None:
        echo("\n" + profile_text(exp, result, phases, written[4]))
    return result


PHASES = {"run": "the experiment's measurements and summaries", "tables": "CSV tables and columns.csv",
          "text": "table.txt and verdict.txt", "figures": "drawing and saving the figures"}
"""The phases of a run timed in config.json "phase_seconds" (wall seconds; the rest of "seconds" is claiming
the directory and writing config.json)."""


@contextlib.contextmanager
def _timed(phases: dict, name: str):
    start = time.perf_counter()
    try:
        yield
    finally:
        phases[name] = phases.get(name, 0.0) + time.perf_counter() - start


def profile_text(exp, result, phases: dict, elapsed: float) -> str:
    """What ``--profile`` prints: the experiment's own table (``exp.profile``, where it has one), then the
    wall seconds of each phase of the run and their share of ``elapsed``."""
    lines = [exp.profile(result, phases)] if hasattr(exp, "profile") else []
    lines.append(f"phases of the run ({elapsed:.2f} s wall):")
    for name, seconds in phases.items():
        lines.append(f"  {name:<8} {seconds:8.2f} s  {100 * seconds / elapsed:5.1f}%  {PHASES[name]}")
    return "\n".join(lines)


def _write_results(exp, cfg, run_dir, result, start, *, smoke, figures, phases):
    """Write the tables, column dictionary, summary, verdict, figures and the final config.json."""
    with _timed(phases, "tables"):
        tables = {csv_name(name): rows for name, rows in exp.records(result).items()}
        log.info(f"{exp.NAME}: writing {len(tables)} tables")
        for name, rows in tables.items():
            write_csv(run_dir / name, rows)
        entries, undocumented = dictionary(exp, tables)
        if entries:
            write_csv(run_dir / COLUMNS_FILE, entries)
    with _timed(phases, "text"):
        table = exp.summary(result)
        if table:
            write_atomic(run_dir / "table.txt", table + "\n")
        lines = exp.verdict(result)
        if lines:
            write_atomic(run_dir / "verdict.txt", "\n".join(lines) + "\n")
    with _timed(phases, "figures"):
        drawn = _draw(exp, cfg, run_dir) if figures else {}
    elapsed = time.perf_counter() - start
    extra = exp.run_info(result) if hasattr(exp, "run_info") else {}
    write_config(run_dir, cfg, experiment=exp.NAME, smoke=smoke, status="done", seconds=round(elapsed, 3),
                 figures=list(drawn), phase_seconds={k: round(v, 3) for k, v in phases.items()}, **extra)
    return tables, table, lines, drawn, elapsed, undocumented


def _announce(exp, run_dir, result, tables, table, lines, drawn, elapsed, undocumented, *, echo) -> None:
    """Print the table, verdict and list of files; warn about undocumented columns."""
    if echo is not None:
        if table:
            echo(table)
        if lines:
            echo(f"\nVerdict ({exp.VERDICT_TITLE}):")
            for line in lines:
                echo(f"  {line}")
        echo(f"\n{exp.describe(result)} in {elapsed:.1f} s -> {run_dir}")
        echo(files_block(exp, run_dir, tables, drawn))
        echo(f"\nReload: lostmid_jax.runs.load_run({str(run_dir)!r}); redraw: lostmid plot {run_dir} --format pdf; "
             f"share: lostmid report {run_dir}")
    if undocumented:
        listed = "; ".join(f"{name}: {', '.join(cols)}" for name, cols in undocumented.items())
        warnings.warn(f"{exp.NAME} wrote columns its COLUMNS does not describe ({listed}); columns.csv marks them "
                      f"{UNDOCUMENTED}", UndocumentedColumnsWarning, stacklevel=5)
