"""A ``lostmid`` command in a child process (the worktree's code), for tests that signal or race it.

A pytest started in the background by a non-interactive shell ignores SIGINT, its children inherit that,
and a process that ignores SIGINT keeps ignoring it (what `nohup cmd &` users expect, not what these
tests check): the child puts Python's own SIGINT handler back before it runs the command.
"""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
_MAIN = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "runpy.run_module('lostmid_jax.cli', run_name='__main__', alter_sys=True)")


def lostmid(argv, cwd=None, env=None) -> subprocess.Popen:
    """``lostmid *argv`` started in a child process, stdout and stderr piped (text)."""
    return subprocess.Popen([sys.executable, "-c", _MAIN, *map(str, argv)], cwd=cwd or ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
