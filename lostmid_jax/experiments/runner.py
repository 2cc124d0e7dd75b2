"""Run one experiment into its run directory: the steps every experiment shares.

    resolve ("auto" -> what runs) -> claim the run directory (never someone else's results)
    -> config.json (status "running") -> run -> records (CSV) -> summary (table.txt)
    -> verdict (verdict.txt) -> figures (PNG) -> config.json (status "done", seconds, ...)

Every file is written under a temporary name, then renamed. A run that fails
leaves what it finished (experiments that take long keep their finished units
and resume from them with the same flags); one that fails before finishing
anything removes the directory it created.
"""

from __future__ import annotations

import pathlib
import shutil
import sys
import time

from .. import io


def writes_files() -> bool:
    """False on the non-zero processes of a multi-host job (only process 0 writes)."""
    if "jax" not in sys.modules:
        return True
    from ..parallel import is_process0

    return is_process0()


def _holds_only_config(run_dir: pathlib.Path) -> bool:
    return {p.name for p in run_dir.iterdir()} <= {"config.json"}


def execute(exp, cfg, run_dir, *, smoke: bool = False, progress: bool = True, figures: bool = True,
            mesh=None, echo=print):
    """Run ``cfg`` of experiment module ``exp`` and write its run directory; returns the result.

    Args:
      exp: an experiment module (see :mod:`lostmid_jax.experiments`).
      cfg: its ``Config``.
      run_dir: the run directory: new, empty, or this very run's (resumable experiments).
      smoke: recorded in config.json.
      progress: show progress bars.
      figures: write the PNG figures.
      mesh: devices to spread the work over (experiments that take one), or None.
      echo: where the table and the verdict are printed (None: nowhere).
    """
    start = time.perf_counter()
    given, run_dir = run_dir, pathlib.Path(run_dir)
    if hasattr(exp, "resolve"):  # "auto" choices made now, so config.json records what runs
        cfg = exp.resolve(cfg)
    writer = writes_files()
    created = io.claim_run_dir(given, io.jsonable(cfg), experiment=exp.NAME,
                               resumable=getattr(exp, "RESUMABLE", False))
    if writer:
        run_dir.mkdir(parents=True, exist_ok=True)
        io.write_config(run_dir, cfg, experiment=exp.NAME, smoke=smoke, status="running")
    try:
        result = exp.run(cfg, run_dir, progress=progress, mesh=mesh)
    except BaseException:
        if created and writer and _holds_only_config(run_dir):
            shutil.rmtree(run_dir, ignore_errors=True)  # nothing finished: leave no trace
        raise
    if not writes_files():
        return result
    for name, rows in exp.records(result).items():
        io.write_csv(run_dir / name, rows)
    table = exp.summary(result)
    if table:
        (run_dir / "table.txt").write_text(table + "\n")
    lines = exp.verdict(result)
    if lines:
        (run_dir / "verdict.txt").write_text("\n".join(lines) + "\n")
    written = exp.figures(result, run_dir) if figures else []
    elapsed = time.perf_counter() - start
    extra = exp.run_info(result) if hasattr(exp, "run_info") else {}
    io.write_config(run_dir, cfg, experiment=exp.NAME, smoke=smoke, status="done", seconds=round(elapsed, 3),
                    figures=[pathlib.Path(f).name for f in written], **extra)
    if echo is not None:
        if table:
            echo(table)
        if lines:
            echo(f"\nVerdict ({exp.VERDICT_TITLE}):")
            for line in lines:
                echo(f"  {line}")
        echo(f"\n{exp.describe(result)} in {elapsed:.1f} s -> {run_dir}")
    return result
