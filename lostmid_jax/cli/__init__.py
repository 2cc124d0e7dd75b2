"""The ``lostmid`` command: one thin adapter over the experiments' configs.

    lostmid --help | --version
    lostmid theory ...           the exact profile summary for one (L, H, a)   (cli/theory.py)
    lostmid sweep | counterfactuals | step0 | step0-study | compare | train | remedies | diagnose [flags]
                                 one experiment each (lostmid_jax.experiments.EXPERIMENTS)
    lostmid rerun RUN_DIR [--set key=value ...]
    lostmid plot RUN_DIR [--format png,pdf,svg] [--out DIR]   redraw the figures from the files (cli/plot.py)
    lostmid report RUN_DIR [--out FILE]          one self-contained HTML page of a run (cli/report.py)
    lostmid table RUN_DIR [--format md|tex|csv]  a run's main table, ready to paste (cli/table.py)

This package is the top layer: it imports the experiments, present, runs and theory, and
nothing imports it (the layers: the package docstring of lostmid_jax; the list
of subcommands above is checked against the registered ones by
tests/test_architecture.py).

Each experiment subcommand's flags are generated from its config dataclass
(:mod:`lostmid_jax.experiments.arguments`: a nested field's flag is its dotted
path, short names come from the experiment's alias table). Nothing heavy is imported until a
subcommand runs: only that subcommand's config module is loaded to build its
parser, so ``lostmid --help`` and ``lostmid SUB --help`` answer at once.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings

_THEORY_HELP = "print the exact Step-0 influence profile summary for one (L, H, a)"
_RERUN_HELP = "run an earlier run's config.json again (optionally with fields replaced)"
_PLOT_HELP = "redraw every figure of a run directory from its saved data (PNG, PDF or SVG)"
_REPORT_HELP = "write one self-contained HTML page of a run (figures, verdict, tables, config, versions)"
_TABLE_HELP = "print a run's main table as Markdown, LaTeX or CSV (diagnose, remedies, step0)"
_RUN_DIR_COMMANDS = ("plot", "report", "table")  # modules of this package: add_arguments(parser), run(args)


def _commands() -> dict[str, tuple[str, str]]:
    """{subcommand: (kind, help)}; kind is "theory", "rerun", "plot", "report", "table" or an experiment module
    name."""
    from ..experiments import EXPERIMENTS

    commands = {"theory": ("theory", _THEORY_HELP)}
    commands.update({command: (module, text) for module, (command, text) in EXPERIMENTS.items()})
    commands["rerun"] = ("rerun", _RERUN_HELP)
    commands["plot"] = ("plot", _PLOT_HELP)
    commands["report"] = ("report", _REPORT_HELP)
    commands["table"] = ("table", _TABLE_HELP)
    return commands


def _version() -> str:
    from .. import __version__

    return f"lostmid-jax {__version__}"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only ``command``'s sub-parser gets its full flags (the others: name and help)."""
    parser = argparse.ArgumentParser(
        prog="lostmid", description="Exact theory and measurement of the lost-in-the-middle position bias.")
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (kind, text) in _commands().items():
        sub = subparsers.add_parser(name, help=text, description=text)
        if name != command:
            continue
        if kind == "theory":
            from . import theory

            theory.add_arguments(sub)
        elif kind == "rerun":
            from ..experiments.script import add_rerun_arguments

            add_rerun_arguments(sub)
        elif kind in _RUN_DIR_COMMANDS:
            _run_dir_module(kind).add_arguments(sub)
        else:
            from ..experiments.script import build_parser as experiment_parser

            _, flags = experiment_parser(kind, parser=sub)
            sub.set_defaults(_flags=flags)
    return parser


def _run_dir_module(kind: str):
    import importlib

    return importlib.import_module(f"{__name__}.{kind}")


def _unknown_flags(parser: argparse.ArgumentParser, command: str, unknown: list[str]):
    """Exit 2 with the subcommand's own usage, naming the unknown arguments and the closest flags."""
    import difflib

    sub = next(a for a in parser._subparsers._group_actions if isinstance(a, argparse._SubParsersAction))
    sub = sub.choices[command]
    options = [o for action in sub._actions for o in action.option_strings if o.startswith("--")]
    hints = []
    for arg in unknown:
        flag = arg.split("=", 1)[0]
        close = difflib.get_close_matches(flag, options, n=1, cutoff=0.6) if flag.startswith("-") else []
        if close:
            hints.append(f"did you mean {close[0]} (not {flag})?")
    sub.error(f"unrecognized arguments: {' '.join(unknown)}" + (f"; {' '.join(hints)}" if hints else ""))


@contextlib.contextmanager
def one_line_warnings(prog: str):
    """Within: each warning printed as one line "<prog>: warning: <message>" on stderr (not Python's two
    lines with the source line), e.g. load_run's unfinished-run warning."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"{prog}: warning: {' '.join(str(message).split())}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``lostmid`` console script.

    SIGINT and SIGTERM are watched from the first line on (:mod:`lostmid_jax.runs.stop`): a command they stop
    exits 130 (SIGINT) or 143 (SIGTERM), also when the signal came after its run had finished.
    """
    from ..runs import stop

    if argv is None:  # the process's entry point (the console script, python -m): shutdown is watched too
        stop.guard_exit()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with stop.watching():  # a signal sets a flag that every write checks: never lost
            return _main(argv)
    except KeyboardInterrupt as err:  # a run's config.json then says "interrupted"
        import signal

        signum = getattr(err, "signum", None) or stop.received() or signal.SIGINT
        command = next((a for a in argv if not a.startswith("-")), "")
        sys.stderr.write(f"lostmid{' ' + command if command else ''}: interrupted by {signal.Signals(signum).name}\n")
        raise SystemExit(128 + signum) from None


def _main(argv: list[str]) -> int:
    from ..runs import stop

    command = next((a for a in argv if not a.startswith("-")), None)
    commands = _commands()
    parser = build_parser(command if command in commands else None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        _unknown_flags(parser, args.command, unknown)
    kind = commands[args.command][0]
    try:
        return _run(kind, args)
    except (ValueError, OSError) as err:
        if stop.received() is not None:  # the signal surfaced as another error: it still stops the command
            raise stop.Interrupted(stop.received()) from None
        from ..experiments.script import one_line

        parser.exit(2, f"lostmid {args.command}: error: {one_line(err)}\n")


def _run(kind: str, args) -> int:
    if kind == "theory":
        from . import theory

        return int(theory.run(args) or 0)
    if kind in _RUN_DIR_COMMANDS:
        with one_line_warnings(f"lostmid {args.command}"):
            return int(_run_dir_module(kind).run(args) or 0)
    from ..experiments import script

    if kind == "rerun":
        return script.rerun(args)
    from ..experiments import load

    exp = load(kind)
    cfg = script.config_from_args(exp, args, args._flags)
    return script.launch(exp, cfg, args)


if __name__ == "__main__":
    sys.exit(main())
