"""Two local processes joined by initialize_distributed (gloo on CPU): global-mesh profile and training."""

import os
import pathlib
import socket
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.slow
def test_two_process_profile_and_training(tmp_path):
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    procs = []
    for pid in (0, 1):
        env = dict(os.environ, JAX_PLATFORMS="cpu", JAX_NUM_CPU_DEVICES="2", JAX_NUM_PROCESSES="2",
                   JAX_COORDINATOR_ADDRESS=f"localhost:{port}", JAX_PROCESS_ID=str(pid))
        procs.append(subprocess.Popen([sys.executable, str(HERE / "multihost_worker.py"), str(tmp_path)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], "\n".join(o[-3000:] for o in outs)
    assert "OK profile" in outs[0] and "OK training" in outs[0], outs[0][-3000:]
