"""parallel/distributed.py in one process: the environment's checks (moved here from test_parallel_inputs.py),
process 0, host copies."""

import jax.numpy as jnp
import numpy as np
import pytest

from lostmid_jax.parallel.distributed import gather_to_process0, initialize_distributed, is_process0, to_host

ENV = ("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE")


@pytest.fixture
def clean_env(monkeypatch):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_single_process_joins_nothing(clean_env):
    assert initialize_distributed() is False
    clean_env.setenv("JAX_COORDINATOR_ADDRESS", "localhost:1234")
    clean_env.setenv("JAX_NUM_PROCESSES", "1")
    clean_env.setenv("JAX_PROCESS_ID", "0")
    assert initialize_distributed() is False  # one process: no job to join


@pytest.mark.parametrize("env,match", [
    (dict(JAX_NUM_PROCESSES="2"), "JAX_COORDINATOR_ADDRESS, JAX_PROCESS_ID must be set together"),
    (dict(JAX_COORDINATOR_ADDRESS="h:1", JAX_NUM_PROCESSES="0", JAX_PROCESS_ID="0"),
     r"JAX_NUM_PROCESSES must be an int >= 1, got '0'"),
    (dict(JAX_COORDINATOR_ADDRESS="h:1", JAX_NUM_PROCESSES="two", JAX_PROCESS_ID="0"),
     r"JAX_NUM_PROCESSES must be an int >= 1, got 'two'"),
    (dict(JAX_COORDINATOR_ADDRESS="h:1", JAX_NUM_PROCESSES="2", JAX_PROCESS_ID="2"),
     r"JAX_PROCESS_ID must be an int in \[0, 1\], got '2'"),
])
def test_bad_environments_are_named_before_joining(clean_env, env, match):
    for name, value in env.items():
        clean_env.setenv(name, value)
    with pytest.raises(ValueError, match=match):
        initialize_distributed()


def test_host_copies_in_one_process():
    tree = {"a": jnp.arange(3.0), "b": [jnp.ones(2)]}
    host = to_host(tree)
    assert isinstance(host["a"], np.ndarray) and host["a"].tolist() == [0.0, 1.0, 2.0]
    assert is_process0() and gather_to_process0(tree)["b"][0].tolist() == [1.0, 1.0]
