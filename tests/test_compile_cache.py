"""JAX's persistent compilation cache: where it goes, the switches that turn it off, and a real second-process hit."""

import os
import pathlib
import subprocess
import sys

import pytest

from lostmid_jax import compile_cache
from lostmid_jax.experiments import script

ROOT = pathlib.Path(__file__).resolve().parents[1]

PROBE = """
import logging, sys
from lostmid_jax import compile_cache
folder = compile_cache.configure()
import jax, jax.numpy as jnp
hits = []
class Hits(logging.Handler):
    def emit(self, record):
        if "cache hit" in record.getMessage():
            hits.append(record.getMessage())
logger = logging.getLogger("jax._src.compiler")
logger.setLevel(logging.DEBUG)
logger.addHandler(Hits())
jax.block_until_ready(jax.jit(lambda x: jnp.tanh(x) @ x.T)(jnp.ones((4, 4))))
print(folder, compile_cache.active_dir(), len(hits))
"""


def _probe(env_extra):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu",
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0", **env_extra}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)  # as in a user's shell (importing jax here set it to 1)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    folder, active, hits = out.stdout.split()
    return folder, active, int(hits), out.stderr


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    cache = tmp_path / "cache"
    env = {"LOSTMID_COMPILE_CACHE": "1", "LOSTMID_COMPILE_CACHE_DIR": str(cache)}
    folder, active, hits, _ = _probe(env)
    assert folder == active == str(cache) and hits == 0
    written = sorted(p.name for p in cache.glob("*-cache"))
    assert written, "nothing was written to the cache"
    folder, active, hits, stderr = _probe(env)
    assert hits >= 1  # the program came from the disk
    assert sorted(p.name for p in cache.glob("*-cache")) == written  # and nothing new was compiled
    assert "cpu_aot_loader" not in stderr  # jaxlib's false CPU-feature alarm is hidden while the cache is on


JAX_FIRST = """
import os, sys
import jax, jax.numpy as jnp  # jax first: jaxlib has read its log level before lostmid_jax runs
import lostmid_jax
from lostmid_jax import compile_cache
compile_cache.enable(sys.argv[1])
jax.block_until_ready(jax.jit(lambda x: jnp.sin(jnp.tanh(x) @ x.T) @ x)(jnp.ones((8, 8))))
if len(sys.argv) > 2:  # a real error still reaches the user
    jax.jit(lambda x: x.reshape(3))(jnp.ones(4))
"""


def test_the_false_cache_warning_is_hidden_whatever_was_imported_first(tmp_path):
    """jax imported before lostmid_jax (a notebook's first cell): a warm cache still prints no
    "could lead to execution errors such as SIGILL"; with TF_CPP_MIN_LOG_LEVEL=0 (the user's choice,
    respected) the same warm cache prints it, so the check can fail; errors still raise."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu",
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)

    def probe(*extra, **env_extra):
        return subprocess.run([sys.executable, "-c", JAX_FIRST, str(tmp_path / "cache"), *extra],
                              env={**env, **env_extra}, capture_output=True, text=True, timeout=300)

    cold = probe()
    assert cold.returncode == 0, cold.stderr
    warm = probe()
    assert warm.returncode == 0 and "SIGILL" not in warm.stderr and "cpu_aot_loader" not in warm.stderr
    loud = probe(TF_CPP_MIN_LOG_LEVEL="0")
    if "SIGILL" not in loud.stderr:
        pytest.skip("this jaxlib/CPU pair logs no CPU-feature mismatch from a warm cache: nothing to hide")
    error = probe("error")
    assert error.returncode != 0 and "reshape" in error.stderr.lower()


def test_switched_off_by_the_environment(tmp_path):
    cache = tmp_path / "cache"
    folder, active, hits, _ = _probe({"LOSTMID_COMPILE_CACHE": "off", "LOSTMID_COMPILE_CACHE_DIR": str(cache)})
    assert (folder, active, hits) == ("None", "None", 0)
    assert not cache.exists()


@pytest.mark.parametrize("value,on", [("0", False), ("OFF", False), (" no ", False), ("false", False), ("1", True),
                                      ("", True), ("yes", True)])
def test_switch_values(monkeypatch, value, on):
    monkeypatch.setenv("LOSTMID_COMPILE_CACHE", value)
    assert compile_cache.wanted() is on


def test_default_folder(monkeypatch, tmp_path):
    for name in ("LOSTMID_COMPILE_CACHE_DIR", "LOSTMID_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    tag = compile_cache.machine_tag()
    assert compile_cache.default_dir() == tmp_path / "home" / ".cache" / "lostmid_jax" / "jax-cache" / tag
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert compile_cache.default_dir() == tmp_path / "xdg" / "lostmid_jax" / "jax-cache" / tag
    monkeypatch.setenv("LOSTMID_CACHE", str(tmp_path / "mine"))
    assert compile_cache.default_dir() == tmp_path / "mine" / "jax-cache" / tag
    monkeypatch.setenv("LOSTMID_COMPILE_CACHE_DIR", str(tmp_path / "exact"))
    assert compile_cache.default_dir() == tmp_path / "exact"
    assert tag == compile_cache.machine_tag() and len(tag.rsplit("-", 1)[1]) == 12


def test_enable_refuses_a_file(tmp_path):
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(ValueError, match="directory: .* not a folder"):
        compile_cache.enable(path)


def test_the_tests_leave_the_users_cache_alone():
    assert not compile_cache.wanted()  # tests/conftest.py: LOSTMID_COMPILE_CACHE=0 unless a test asks


@pytest.mark.parametrize("argv,enabled", [([], True), (["--no-compile-cache"], False)])
def test_commands_configure_the_cache_first(monkeypatch, tmp_path, argv, enabled):
    calls = []
    monkeypatch.setattr(compile_cache, "configure", lambda enabled=True: calls.append(enabled))
    out = tmp_path / "run"
    assert script.main("depth_sweep", ["--depths", "1,2", "--lengths", "8", "--alphas", "0.5", "--no-progress",
                                       "--no-figures", "--out", str(out), *argv]) == 0
    assert calls == [enabled]
