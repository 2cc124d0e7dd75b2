"""Run one experiment into its run directory: the steps every experiment shares.

    prepare (checks) -> run -> records (CSV) -> summary (table.txt) -> verdict (verdict.txt)
    -> figures (PNG) -> config.json (config, experiment, versions, git revision, seconds)

A run that fails leaves what it wrote so far (experiments that take long keep
their finished units in the run directory and resume from them).
"""

from __future__ import annotations

import pathlib
import sys
import time

from .. import io


def writes_files() -> bool:
    """False on the non-zero processes of a multi-host job (only process 0 writes)."""
    if "jax" not in sys.modules:
        return True
    from ..parallel import is_process0

    return is_process0()


def execute(exp, cfg, run_dir, *, smoke: bool = False, progress: bool = True, figures: bool = True,
            mesh=None, echo=print):
    """Run ``cfg`` of experiment module ``exp`` and write its run directory; returns the result.

    Args:
      exp: an experiment module (see :mod:`lostmid_jax.experiments`).
      cfg: its ``Config``.
      run_dir: the run directory (created if missing).
      smoke: recorded in config.json.
      progress: show progress bars.
      figures: write the PNG figures.
      mesh: devices to spread the work over (experiments that take one), or None.
      echo: where the table and the verdict are printed (None: nowhere).
    """
    start = time.perf_counter()
    run_dir = pathlib.Path(run_dir)
    if hasattr(exp, "prepare"):  # checks that need the run directory (resume), before any work
        exp.prepare(cfg, run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    result = exp.run(cfg, run_dir, progress=progress, mesh=mesh)
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
    resolved = exp.resolved(result) if hasattr(exp, "resolved") else cfg
    extra = exp.run_info(result) if hasattr(exp, "run_info") else {}
    io.write_config(run_dir, resolved, experiment=exp.NAME, smoke=smoke, seconds=round(elapsed, 3),
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
