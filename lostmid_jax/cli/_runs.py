"""Pieces shared by the commands that write a run directory (sweeps, sims)."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_run_arguments(p: argparse.ArgumentParser, name: str, smoke: str) -> None:
    """--out, --root, --smoke, --no-progress, --no-figures for a run under <root>/<name>/."""
    p.add_argument("--out", type=str, default=None, help=f"run directory (default <root>/{name}/<timestamp>)")
    p.add_argument("--root", type=str, default="runs", help="parent of the default run directory")
    p.add_argument("--smoke", action="store_true", help=f"a seconds-long run ({smoke})")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figures")


def script_main(prog: str, description: str, add_arguments: Callable, config_from_args: Callable,
                run: Callable, argv: list[str] | None) -> int:
    """Parse ``argv``, validate the config (exit 2 with the message on ValueError) before any work, run."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config_from_args(args)
    except ValueError as err:
        parser.exit(2, f"{prog}: error: {err}\n")
    return run(args)
