"""The large fuzz profile: the same suite with 200 examples per entry point, in its own process (slow)."""

import os
import pathlib
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_large_fuzz_profile():
    here = pathlib.Path(__file__).parent
    env = dict(os.environ, LOSTMID_FUZZ_EXAMPLES="200")
    files = [str(p) for p in sorted(here.glob("test_fuzz_*.py")) if p.name != "test_fuzz_large.py"]
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *files],
                         capture_output=True, text=True, env=env, timeout=3000)
    print(out.stdout[-6000:])
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
