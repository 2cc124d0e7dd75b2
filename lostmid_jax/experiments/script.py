"""An experiment as a command: flags from its config, then one run directory.

    main("depth_sweep", ["--smoke"])              # = python sims/depth_sweep.py --smoke
    main("step0", ["--preset", "toy", "--seeds", "2"], prog="lostmid step0")
    rerun("runs/depth_sweep/2026...", ["depths=1,2,4"])   # the same config, fields replaced

Values compose in this order: the config's defaults < ``--config FILE`` (a
config.json of an earlier run, or a JSON object of fields) < the ``--smoke``
sizes < the flags given. The config is built, and so validated, before any
work starts: a bad value exits with status 2 and a message naming it.

Runs use JAX's persistent compilation cache (:mod:`lostmid_jax.compile_cache`)
unless ``--no-compile-cache`` is given or LOSTMID_COMPILE_CACHE=0 is set.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import logging
import pathlib

from . import EXPERIMENTS, load
from .arguments import add_flags, given_values, merge, nest, parse_assignment
from ..runs.config import from_dict, replace_path


def _smoke_paths(exp) -> dict:
    return dict(getattr(exp, "SMOKE", {}))


def add_run_arguments(parser: argparse.ArgumentParser, exp) -> None:
    """--out, --root, --config, --smoke, --no-progress, --no-figures (and --devices where used)."""
    group = parser.add_argument_group("run")
    group.add_argument("--out", type=str, default=None,
                       help=f"run directory (default <root>/{exp.NAME}/<UTC timestamp>)"
                            + ("; reuse it to resume" if getattr(exp, "RESUMABLE", False) else ""))
    group.add_argument("--root", type=str, default="runs", help="parent of the default run directory (default: runs)")
    group.add_argument("--config", type=str, default=None, metavar="FILE",
                       help="start from this JSON config (a run's config.json, or an object of fields)")
    group.add_argument("--smoke", action="store_true",
                       help=f"a small run through every step ({getattr(exp, 'SMOKE_HELP', '')}): it checks that "
                            "everything works and is too small to decide the paper's claims")
    group.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    group.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    group.add_argument("--profile", action="store_true",
                       help="print where the time went after the run: the wall seconds of its phases"
                            + (" and each unit's compile, device and host seconds (also in timings.csv)"
                               if hasattr(exp, "profile") else ""))
    add_compile_cache_argument(group)
    add_limits_argument(group)
    if not getattr(exp, "RESUMABLE", False):
        add_replace_argument(group)
    if getattr(exp, "USES_DEVICES", False):
        group.add_argument("--devices", type=int, default=None,
                           help="devices to spread the work over (default: all devices JAX sees; on CPU set "
                                "XLA_FLAGS=--xla_force_host_platform_device_count=N to simulate N, docs/scaling.md)")


def add_limits_argument(group) -> None:
    """--limits key=value,... (the resource limits of lostmid_jax.resources for this process)."""
    from ..resources import ENV_LIMITS, Limits

    names = ", ".join(f.name for f in dataclasses.fields(Limits))
    group.add_argument("--limits", default=None, metavar="KEY=VALUE,...",
                       help=f"raise (or lower) the work and memory limits that refuse a run before it starts: {names} "
                            f"(e.g. max_operations=1e13,max_depth=20000; the environment variable {ENV_LIMITS} "
                            "takes the same text)")


def apply_limits(args) -> None:
    """Set the process's limits from ``--limits`` (before any config is built: configs check them)."""
    if getattr(args, "limits", None):
        from ..resources import set_limits

        set_limits(args.limits)


def add_replace_argument(group) -> None:
    """--replace-unfinished (an interrupted run of an experiment that does not resume starts again)."""
    from ..runs.claim import REPLACE_FLAG

    group.add_argument(REPLACE_FLAG, action="store_true",
                       help="if --out holds an unfinished run of this experiment (interrupted or failed), delete "
                            "what it holds and run again there")


def add_compile_cache_argument(group) -> None:
    """--no-compile-cache (the cache: lostmid_jax.compile_cache)."""
    from ..compile_cache import ENV_SWITCH, default_dir

    group.add_argument("--no-compile-cache", action="store_true",
                       help="do not read or write JAX's persistent compilation cache (on by default, in "
                            f"{default_dir()}; {ENV_SWITCH}=0 turns it off for every run)")


def run_options(exp) -> frozenset[str]:
    """The option strings of the run arguments (--out, --smoke, ...): no config field may take one."""
    scratch = argparse.ArgumentParser(add_help=False)
    add_run_arguments(scratch, exp)
    return frozenset(option for action in scratch._actions for option in action.option_strings)


def build_parser(name: str, prog: str | None = None, parser: argparse.ArgumentParser | None = None):
    """(parser, flags) of experiment ``name``."""
    exp = load(name)
    if parser is None:
        parser = argparse.ArgumentParser(prog=prog or name, description=(exp.__doc__ or "").splitlines()[0])
    flag_list = add_flags(parser, exp.Config, aliases=getattr(exp, "CLI_ALIASES", None),
                          legacy=getattr(exp, "CLI_LEGACY", None), hidden=getattr(exp, "CLI_HIDDEN", frozenset()),
                          reserved=run_options(exp), smoke=_smoke_paths(exp), choices=getattr(exp, "CLI_CHOICES", None))
    for old, path in getattr(exp, "CLI_DEPRECATED", {}).items():  # {old flag name: field}: read, with a hint
        flag = next(f for f in flag_list if f.path == path)
        parser.add_argument("--" + old, dest=path, type=str, default=argparse.SUPPRESS, help=argparse.SUPPRESS,
                            action=_Deprecated, new=flag.options[0])
    add_run_arguments(parser, exp)
    return parser, flag_list


class _Deprecated(argparse.Action):
    """An old flag's spelling: stores its value as the new flag does, and says once on stderr to use the new one."""

    def __init__(self, *args, new: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        import sys

        print(f"{parser.prog}: {option_string} is deprecated, use {self.new} (read the same way)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def read_config_file(path: str) -> dict:
    """Field values from a JSON file: a run's config.json ({"config": {...}}) or a plain object."""
    from ..untrusted import read_json_object

    record = read_json_object(path, "--config")  # a regular file (no FIFO, device), UTF-8, bounded
    values = record.get("config", record)
    if not isinstance(values, dict):
        raise ValueError(f"--config: {path!r} must hold a JSON object of config fields")
    return values


def config_from_args(exp, args: argparse.Namespace, flag_list) -> object:
    """The experiment's Config from the parsed arguments (ValueError naming the bad value)."""
    apply_limits(args)
    values = read_config_file(args.config) if args.config else {}
    if args.smoke:
        values = merge(values, nest(_smoke_paths(exp)))
    values = merge(values, nest(given_values(args, flag_list)))
    return from_dict(exp.Config, values)


def build_config(exp, values: dict | None = None, *, smoke: bool = False, **fields):
    """The experiment's Config from field values given as dotted paths ("probe.passages") or as the short names
    of its alias table (``exp.CLI_ALIASES``: "passages", "allow_download"), on the ``--smoke`` sizes when
    ``smoke``: what the flags would build, in Python (ValueError naming a bad value)."""
    aliases = getattr(exp, "CLI_ALIASES", None) or {}
    given = {**(values or {}), **fields}
    dotted = {aliases.get(key.replace("_", "-"), key): value for key, value in given.items()}
    return from_dict(exp.Config, merge(nest(_smoke_paths(exp)) if smoke else {}, nest(dotted)))


def default_run_dir(root: str, name: str) -> pathlib.Path:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S-%f")
    return pathlib.Path(root) / name / stamp


def _mesh(args, exp):
    """Join a multi-host job if the environment describes one, then the mesh of ``--devices`` (None: one device)."""
    if not getattr(exp, "USES_DEVICES", False):
        return None
    from ..parallel import initialize_distributed, make_mesh

    if initialize_distributed() and args.out is None:
        raise ValueError("a multi-host run needs --out, a directory every host sees (docs/scaling.md)")
    mesh = make_mesh(args.devices)
    return mesh if mesh.size > 1 else None


def show_kernel_builds() -> None:
    """Print the fused kernel's INFO lines (compiling / loading from the cache) on stderr."""
    logger = logging.getLogger("lostmid_jax.kernels")
    logger.setLevel(logging.INFO)
    if not logger.handlers and not logging.getLogger().handlers:  # else the root's handler prints it (once)
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)


def launch(exp, cfg, args, run_dir: pathlib.Path | None = None) -> int:
    """Run ``cfg`` with the run options of ``args`` (after the config was validated), into ``run_dir``
    (resolved) or else --out, or else a new directory under --root."""
    from .. import compile_cache
    from .runner import execute

    from ..runs.claim import resolve_out

    if run_dir is None:
        run_dir = resolve_out(args.out if args.out is not None else default_run_dir(args.root, exp.NAME))
    compile_cache.configure(enabled=not getattr(args, "no_compile_cache", False))
    show_kernel_builds()
    mesh = _mesh(args, exp)
    execute(exp, cfg, run_dir, smoke=bool(getattr(args, "smoke", False)), progress=not args.no_progress,
            figures=not args.no_figures, mesh=mesh, replace_unfinished=bool(getattr(args, "replace_unfinished", False)),
            profile=bool(getattr(args, "profile", False)))
    return 0


def main(name: str, argv: list[str] | None = None, prog: str | None = None) -> int:
    """Parse ``argv`` for experiment ``name``, validate (exit 2 on a bad value), run; returns the exit code."""
    from ..runs import stop

    parser, flag_list = build_parser(name, prog)
    args = parser.parse_args(argv)
    exp = load(name)
    try:
        with stop.watching():  # SIGINT and SIGTERM never lost (lostmid_jax.runs.stop)
            cfg = config_from_args(exp, args, flag_list)
            return launch(exp, cfg, args)
    except (ValueError, OSError) as err:
        if stop.received() is None:
            parser.exit(2, f"{parser.prog}: error: {one_line(err)}\n")
        parser.exit(stop.exit_code(), f"{parser.prog}: interrupted\n")
    except KeyboardInterrupt as err:
        parser.exit(128 + (getattr(err, "signum", None) or stop.received() or 2), f"{parser.prog}: interrupted\n")


def one_line(err: BaseException) -> str:
    """An error as the one line the commands print: an OSError names its path and what happened
    (permission denied, no space left on the device, file too large)."""
    if isinstance(err, OSError):
        where = err.filename if err.filename is not None else "a file"
        return f"{where}: {err.strerror or err}" + (f" (-> {err.filename2})" if err.filename2 else "")
    return str(err)


def rerun_config(run_dir: str | pathlib.Path, assignments: list[str] | None = None):
    """(experiment module, Config) of an earlier run, with ``key=value`` assignments applied."""
    from ..runs.config_file import read_run_record

    path, record = read_run_record(run_dir, argument="run_dir", missing="has no config.json")
    if not isinstance(record, dict) or not isinstance(record.get("config"), dict):
        raise ValueError(f"run_dir: {path} must hold an object with a \"config\" object of fields")
    name = record.get("experiment")
    if name not in EXPERIMENTS:
        raise ValueError(f"run_dir: {path} names no known experiment (experiment={name!r}); "
                         f"expected one of {tuple(EXPERIMENTS)}")
    exp = load(name)
    cfg = from_dict(exp.Config, record["config"])
    if assignments:
        _, flag_list = build_parser(name)
        for text in assignments:
            key, value = parse_assignment(_undeprecated(exp, text), flag_list)
            cfg = replace_path(cfg, key, value)
    return exp, cfg, bool(record.get("smoke", False))


def _undeprecated(exp, assignment: str) -> str:
    """``--set old=value`` of a deprecated flag name (``exp.CLI_DEPRECATED``) as its field, with the hint."""
    key, sep, value = assignment.partition("=")
    new = getattr(exp, "CLI_DEPRECATED", {}).get(key.strip().lstrip("-").replace("-", "_"))
    if not sep or new is None:
        return assignment
    import sys

    print(f"--set {key.strip()} is deprecated, use --set {new} (read the same way)", file=sys.stderr)
    return f"{new}={value}"


def add_rerun_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", help="a run directory (with its config.json)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="replace a config field (dotted path or flag name), e.g. --set depths=1-8; repeatable")
    parser.add_argument("--out", type=str, default=None,
                        help="new run directory (default <root>/<experiment>/<timestamp>); RUN_DIR itself resumes "
                             "an unfinished run of an experiment that resumes")
    parser.add_argument("--root", type=str, default=None,
                        help="parent of the default run directory (default: runs, or the folder holding RUN_DIR "
                             "when the working directory lies inside a run)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    parser.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    parser.add_argument("--devices", type=int, default=None, help="devices to spread the work over (where used)")
    add_compile_cache_argument(parser)
    add_limits_argument(parser)
    add_replace_argument(parser)


def rerun(args: argparse.Namespace) -> int:
    """Run an earlier run's config again (with ``--set`` changes) into a new run directory, or resume it
    (``--out RUN_DIR``, experiments that resume). RUN_DIR may be spelled any way (".", "..", relative, a
    symlink); without --out and --root, a working directory inside a run puts the new run beside RUN_DIR
    (never inside a run)."""
    from ..runs.claim import resolve_out
    from ..runs.outputs import enclosing_run

    apply_limits(args)
    exp, cfg, smoke = rerun_config(args.run_dir, args.set)
    source = pathlib.Path(args.run_dir).expanduser().resolve()
    if args.out is not None:
        run_dir = resolve_out(args.out, working_directory_ok=True)
        if run_dir == source and not getattr(exp, "RESUMABLE", False):
            raise ValueError("out: a rerun writes a new run directory; it must differ from run_dir")
        if run_dir != source and run_dir == pathlib.Path.cwd().resolve():
            raise ValueError(f"out: {args.out!r} is the working directory; choose a new directory for the run")
    else:
        run_dir = resolve_out(default_run_dir(args.root or "runs", exp.NAME), "root")
        if args.root is None and enclosing_run(run_dir) is not None:
            run_dir = source.parent / run_dir.name  # <folder of RUN_DIR>/<timestamp>
    args.smoke = smoke
    return launch(exp, cfg, args, run_dir)

