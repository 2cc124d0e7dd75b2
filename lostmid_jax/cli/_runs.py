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


def add_devices_argument(p: argparse.ArgumentParser) -> None:
    """--devices N: spread the work over the first N devices (mesh axis "data")."""
    p.add_argument("--devices", type=int, default=None,
                   help="devices to spread the work over (default: all devices JAX sees; on CPU set "
                        "XLA_FLAGS=--xla_force_host_platform_device_count=N to simulate N, docs/scaling.md)")


def mesh_from_args(args):
    """Join a multi-host job if the environment describes one, then the mesh of ``--devices``
    (None for a single device: the plain one-device path)."""
    from ..parallel import initialize_distributed, make_mesh

    if initialize_distributed() and getattr(args, "out", None) is None:
        raise SystemExit("error: a multi-host run needs --out, a directory every host sees (docs/scaling.md)")
    mesh = make_mesh(args.devices)
    return mesh if mesh.size > 1 else None
