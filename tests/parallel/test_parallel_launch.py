"""Runs test_parallel_devices.py in its own process with 8 simulated CPU devices.

The device count must be set before JAX starts, so the 8-device checks
cannot share this process. The default
run launches the file's default selection (every sharded route: profiles,
pathways, seeds over the mesh, the memory bound, data-parallel training and
checkpoints, step0 --devices); the slow test launches all of it.
"""

import os
import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def _launch(*marker_args):
    env = dict(os.environ, JAX_PLATFORMS="cpu", JAX_NUM_CPU_DEVICES="8", LOSTMID_PARALLEL_DEVICES="8",
               XLA_FLAGS=(os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip())
    proc = subprocess.run([sys.executable, "-m", "pytest", str(HERE / "test_parallel_devices.py"), "-q",
                           "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning", *marker_args],
                          cwd=HERE.parents[1], env=env, capture_output=True, text=True, timeout=900)
    tail = (proc.stdout + proc.stderr)[-6000:]
    assert proc.returncode == 0, tail
    assert "skipped" not in proc.stdout and "failed" not in proc.stdout, tail
    summary = re.search(r"(\d+) passed", proc.stdout)
    assert summary, tail
    return int(summary.group(1)), tail


@pytest.mark.extended  # a second process with 8 simulated devices (~1.5 CPU-min)
def test_eight_device_checks_pass():
    passed, tail = _launch()  # the default markers (-m 'not slow')
    assert passed >= 7, tail


@pytest.mark.slow
def test_all_eight_device_checks_pass():
    passed, tail = _launch("-m", "slow or not slow")
    assert passed >= 8 and "deselected" not in tail, tail
