"""The ``lostmid`` command: one subcommand per module in this package.

Each subcommand module defines ``register(subparsers)``, which adds its parser
and sets ``func`` to a handler taking the parsed arguments and returning an
exit code.
"""

from __future__ import annotations

import argparse
import sys

from . import compare as _compare
from . import counterfactuals as _counterfactuals
from . import step0 as _step0
from . import sweep as _sweep
from . import theory as _theory
from . import train as _train

_SUBCOMMANDS = [_theory, _sweep, _counterfactuals, _step0, _compare, _train]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lostmid",
        description="Exact theory and measurement of the lost-in-the-middle position bias.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in _SUBCOMMANDS:
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``lostmid`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as err:
        parser.exit(2, f"lostmid {args.command}: error: {err}\n")


if __name__ == "__main__":
    sys.exit(main())
