"""The shared builder of compiled code (lostmid_jax/native.py); the fused kernel's use of it is tested in
tests/kernels/test_fused_cpu_build.py, theory's row kernel in tests/theory/test_native_row.py."""

import pathlib

import pytest

from lostmid_jax import native


def _fake_compiler(tmp_path):
    """An executable $CXX that writes its -o file (a build without a real compiler)."""
    cxx = tmp_path / "fake-cxx"
    cxx.write_text('#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = "-o" ] && echo built > "$2"; shift; done\n')
    cxx.chmod(0o755)
    return cxx


def test_the_key_covers_source_flags_and_extra(tmp_path, monkeypatch):
    monkeypatch.setenv("LOSTMID_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", str(_fake_compiler(tmp_path)))
    source = tmp_path / "k.cc"
    source.write_text("int f() { return 1; }\n")
    path = native.library_path("k", (source,), ["-O2"])
    assert path.parent == tmp_path / "cache" / "kernels" and path.name.startswith("k-") and path.suffix == ".so"
    assert native.library_path("k", (source,), ["-O2"]) == path
    assert native.library_path("k", (source,), ["-O3"]) != path
    assert native.library_path("k", (source,), ["-O2"], extra="jaxlib 9") != path
    source.write_text("int f() { return 2; }\n")
    assert native.library_path("k", (source,), ["-O2"]) != path


def test_a_build_is_sealed_and_a_damaged_one_rebuilt(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("LOSTMID_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", str(_fake_compiler(tmp_path)))
    source = tmp_path / "k.cc"
    source.write_text("int f() { return 1; }\n")
    path = native.build(native.library_path("k", (source,), []), source, [], "test kernel")
    assert native.check_library(path) is None and native.seal_path(path).read_text().startswith(native.sha256(path))
    path.write_text("altered")
    assert "does not match its SHA-256" in native.check_library(path)
    with caplog.at_level("WARNING", logger="lostmid_jax.native"):
        assert native.build(path, source, [], "test kernel") == path
    assert "test kernel: the cached library" in caplog.text and native.check_library(path) is None


def test_a_library_that_cannot_be_opened_is_unavailable(tmp_path):
    bogus = tmp_path / "not-a-library.so"
    bogus.write_text("nothing here")
    with pytest.raises(native.KernelUnavailable, match="cannot be used.*delete it"):
        native.open_library(bogus, ["f"], "test kernel")
    import _ctypes

    with pytest.raises(native.KernelUnavailable, match="no_such_symbol"):
        native.open_library(pathlib.Path(_ctypes.__file__), ["no_such_symbol"], "test kernel")
