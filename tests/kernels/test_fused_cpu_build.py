"""Building, caching and choosing the fused CPU kernel (kernels/fused_cpu/build.py, TrainConfig.attn_impl)."""

import logging
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from lostmid_jax import native
from lostmid_jax.kernels import fused_cpu
from lostmid_jax.kernels.fused_cpu import build
from lostmid_jax.train import TrainConfig, resolve_attn_impl, toy_model, training_execution


def _fake_compiler(tmp_path):
    """An executable $CXX that writes its -o file and logs each call (a build without g++'s ~7 s)."""
    cxx = tmp_path / "fake-cxx"
    cxx.write_text('#!/bin/sh\necho "$@" >> "$0.log"\n'
                   'while [ $# -gt 0 ]; do [ "$1" = "-o" ] && echo built > "$2"; shift; done\n')
    cxx.chmod(0o755)
    return cxx


def _check_cached_and_reused(cache, calls):
    path = build.build()
    assert path.parent == cache / "kernels" and path.suffix == ".so"
    stamp, built = path.stat().st_mtime_ns, calls()
    assert build.build() == path and path.stat().st_mtime_ns == stamp  # not rebuilt
    assert calls() == built
    # no temp files left; the library and its seal (SHA-256)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name, path.name + ".sha256"]
    assert build.check_library(path) is None
    return path


def test_library_is_cached_per_source_and_reused(tmp_path, monkeypatch):
    """With a stand-in compiler: the compile, link and rename steps, and the cache key.
    The real compile is test_kernel_builds_here (into the default cache, rebuilt whenever a source,
    the compiler or jaxlib changes) and, into an empty cache, the slow test below."""
    cxx = _fake_compiler(tmp_path)
    log = pathlib.Path(f"{cxx}.log")
    monkeypatch.setenv("LOSTMID_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", str(cxx))
    calls = lambda: log.read_text().count("\n") if log.exists() else 0  # noqa: E731
    path = _check_cached_and_reused(tmp_path / "cache", calls)
    lines = log.read_text().splitlines()
    assert len(lines) == 3 and lines[0] == "--version"  # version (for the key), compile, link
    assert " -c " in f" {lines[1]} " and "-ffast-math" in lines[1] and "-shared" in lines[2]
    assert "-ffast-math" not in lines[2]  # linked apart: no crtfastmath.o
    monkeypatch.setattr(build, "SOURCE", tmp_path / "attention.cc")  # another source: another library
    build.SOURCE.write_text(pathlib.Path(fused_cpu.__file__).with_name("attention.cc").read_text() + "// edit\n")
    assert build.library_path() != path


@pytest.mark.slow
def test_library_is_compiled_into_an_empty_cache_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("LOSTMID_CACHE", str(tmp_path))
    _check_cached_and_reused(tmp_path, lambda: 0)


def test_loading_keeps_subnormals():
    """-ffast-math at link time would set flush-to-zero / denormals-are-zero process-wide."""
    fused_cpu.build.load()
    tiny = np.array([5e-324, 1e-310]) * np.array([1.0, 0.5])
    assert tiny[0] > 0 and tiny[1] == 5e-311
    assert np.float32(1e-40) * np.float32(1.0) > 0


def test_a_failing_compiler_gives_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("LOSTMID_CACHE", str(tmp_path))
    monkeypatch.setenv("CXX", "/bin/false")
    with pytest.raises(fused_cpu.KernelUnavailable, match="compiling attention.cc failed"):
        build.build()
    assert not any((tmp_path / "kernels").iterdir())  # nothing half-written


def test_no_compiler_is_reported(monkeypatch):
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", os.devnull)
    with pytest.raises(fused_cpu.KernelUnavailable, match="no C\\+\\+ compiler"):
        build.compiler()


def test_loading_says_so_in_the_log(caplog):
    build.load()  # built (or cached) before: this test only reads the log line of a load
    build.load.cache_clear()
    with caplog.at_level(logging.INFO, logger="lostmid_jax.kernels.fused_cpu.build"):
        build.load()
    assert any("fused_cpu attention kernel: loading the cached library" in r.getMessage() for r in caplog.records)
    assert any(f"the {build.isa()} variant" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("machine, have, expected", [
    ("x86_64", {"avx2", "fma", "avx512f", "avx512vl"}, "avx512"),
    ("x86_64", {"avx2", "fma"}, "avx2"),
    ("x86_64", {"avx", "sse4_2"}, "native"),
    ("aarch64", {"asimd"}, "arm"),
])
def test_the_variant_follows_the_cpu_flags(monkeypatch, machine, have, expected):
    monkeypatch.delenv(build.ISA_ENV, raising=False)
    monkeypatch.setattr(build.platform, "machine", lambda: machine)
    monkeypatch.setattr(build, "cpu_flags", lambda: frozenset(have))
    assert build.isa() == expected
    assert build.flags()[-len(build.ISA_FLAGS[expected]):] == build.ISA_FLAGS[expected]
    if expected == "avx2":  # 8-key tiles, and no AVX-512 instruction even where the CPU has it
        assert {"-DLOSTMID_TILE=8", "-mno-avx512f"} <= set(build.flags())


def test_a_forced_variant_is_checked_against_the_cpu(monkeypatch):
    monkeypatch.setattr(build.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(build, "cpu_flags", lambda: frozenset({"avx2", "fma"}))
    monkeypatch.setenv(build.ISA_ENV, "avx2")
    assert build.isa() == "avx2"
    monkeypatch.setenv(build.ISA_ENV, "avx512")
    with pytest.raises(fused_cpu.KernelUnavailable, match="LOSTMID_FUSED_CPU_ISA=avx512 needs the CPU flags"):
        build.isa()
    monkeypatch.setenv(build.ISA_ENV, "sse9")
    with pytest.raises(fused_cpu.KernelUnavailable, match="must be one of"):
        build.isa()


@pytest.mark.slow
def test_the_avx2_variant_agrees_with_the_default_one(tmp_path):
    """The AVX2 build (8-key tiles) gives the default build's forward and gradients within float rounding."""
    if not {"avx2", "fma"} <= build.cpu_flags():
        pytest.skip("this CPU has no AVX2")
    script = (
        "import sys, jax, jax.numpy as jnp, numpy as np\n"
        "from lostmid_jax.kernels.fused_cpu import FusedSpec, fused_attention\n"
        "from lostmid_jax.masks.spec import MaskSpec\n"
        "q, k, v = (jax.random.normal(jax.random.key(i), s) for i, s in enumerate([(2, 37, 2, 2, 16), (2, 37, 2, 16), (2, 37, 2, 16)]))\n"
        "f = lambda q, k, v: jnp.sum(jnp.sin(fused_attention(q, k, v, FusedSpec(MaskSpec('causal')))))\n"
        "val, grads = jax.value_and_grad(f, argnums=(0, 1, 2))(q, k, v)\n"
        "np.save(sys.argv[1], np.concatenate([np.ravel(val), *map(np.ravel, grads)]))\n")
    out = {}
    for variant in ("", "avx2"):
        env = {**os.environ, build.ISA_ENV: variant, "LOSTMID_CACHE": os.environ.get("LOSTMID_CACHE", "")}
        env = {k: v for k, v in env.items() if v != "" or k == build.ISA_ENV}
        out[variant] = tmp_path / f"out{variant}.npy"
        subprocess.run([sys.executable, "-c", script, str(out[variant])], env=env, check=True)
    a, b = np.load(out[""]), np.load(out["avx2"])
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_train_config_auto_picks_the_kernel_only_where_it_builds(monkeypatch):
    assert resolve_attn_impl(TrainConfig()) == "fused_cpu"  # CI machines have g++
    assert training_execution(TrainConfig()).attn_impl == "fused_cpu"
    monkeypatch.setattr(fused_cpu, "available", lambda: False)
    assert training_execution(TrainConfig()).attn_impl == "blocked"
    assert resolve_attn_impl(TrainConfig(attn_impl="blocked")) == "blocked"
    monkeypatch.setattr(fused_cpu, "available", lambda: True)
    assert resolve_attn_impl(TrainConfig(model=toy_model(width=128, heads=4))) == "fused_cpu"  # head dim 32
    wide = toy_model(width=256, heads=4)  # head dim 64: slower fused (attention_bench)
    assert resolve_attn_impl(TrainConfig(model=wide)) == "blocked"
    assert training_execution(TrainConfig(model=wide, attn_impl="fused_cpu")).attn_impl == "fused_cpu"
    assert resolve_attn_impl(TrainConfig(model=toy_model(position="alibi"))) == "blocked"  # the kernel lacks ALiBi
    with pytest.raises(ValueError, match="attn_impl"):
        TrainConfig(attn_impl="gpu")


def _stand_in(tmp_path, monkeypatch):
    """A library path in an empty cache and a compiler that fails: whatever is cached there is what loads."""
    monkeypatch.setenv("LOSTMID_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", "/bin/false")
    build.load.cache_clear()
    build.unavailable_reason.cache_clear()
    path = build.library_path()
    path.parent.mkdir(parents=True)
    return path


def _restore():
    build.load.cache_clear()
    build.unavailable_reason.cache_clear()


def test_a_truncated_cached_library_is_never_loaded(tmp_path, monkeypatch, caplog):
    """Before: dlopen of a truncated library killed `lostmid train` with SIGBUS. Now its SHA-256 does not match
    its seal: it is rebuilt (here the compiler fails, so the kernel is unavailable and "auto" falls back)."""
    import _ctypes

    path = _stand_in(tmp_path, monkeypatch)
    real = pathlib.Path(_ctypes.__file__).read_bytes()  # a real shared library, then cut short
    path.write_bytes(real)
    build.seal_path(path).write_text(native.sha256(path) + "\n")
    path.write_bytes(real[: len(real) // 3])
    try:
        with caplog.at_level(logging.WARNING, logger="lostmid_jax.kernels"):
            assert not build.available()
        assert "does not match its SHA-256" in caplog.text and "rebuilding it" in caplog.text
        assert "compiling attention.cc failed" in build.unavailable_reason()
        assert not path.exists()  # the damaged library is gone; the next build replaces it
    finally:
        _restore()


def test_a_library_without_a_seal_or_without_the_symbols_falls_back(tmp_path, monkeypatch, caplog):
    """Before: a valid library without the kernel's symbols gave a traceback (AttributeError)."""
    import _ctypes

    path = _stand_in(tmp_path, monkeypatch)
    path.write_bytes(pathlib.Path(_ctypes.__file__).read_bytes())
    assert "has no" in build.check_library(path)
    build.seal_path(path).write_text(native.sha256(path) + "\n")  # sealed, but not our kernel
    try:
        with caplog.at_level(logging.WARNING, logger="lostmid_jax.kernels"):
            reason = build.unavailable_reason()
        assert "cannot be used" in reason and "LostmidAttentionForward" in reason and "delete it" in reason
        with pytest.raises(build.KernelUnavailable):
            build.load()
        # attn_impl "auto" falls back to XLA's attention; "fused_cpu" by name is one clear error, no traceback
        cfg = TrainConfig(steps=1, model=toy_model(width=16, depth=1, heads=2, kv_heads=1))
        assert resolve_attn_impl(cfg) == "blocked"
        with pytest.raises(ValueError, match="attn_impl='fused_cpu': the kernel is unavailable here"):
            resolve_attn_impl(cfg.replace(attn_impl="fused_cpu"))
    finally:
        _restore()
