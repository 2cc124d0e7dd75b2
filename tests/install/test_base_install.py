"""A fresh ``pip install -e .`` (base dependencies only) runs diagnose, the toy recipe and reads a slow tokenizer
in one line: simulated by blocking every module outside the base dependencies' closure (base_only.py)."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _base_only(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HERE / "base_only.py"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=900)


def test_the_blocker_hides_what_only_an_extra_installs(tmp_path):
    pytest.importorskip("transformers")
    out = _base_only("-m", "json.tool", "--help", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    probe = tmp_path / "probe.py"
    probe.write_text("import importlib\n"
                     "for name in ('transformers', 'torch', 'pytest'):\n"
                     "    try:\n        importlib.import_module(name)\n    except ImportError:\n        continue\n"
                     "    raise SystemExit(f'{name} imported under the blocker')\n"
                     "import safetensors, tokenizers, filelock, huggingface_hub, jax, flax\n")
    out = _base_only(str(probe), cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.extended
def test_diagnose_smoke_and_the_toy_recipe_run_on_the_base_install(tmp_path):
    diag = _base_only("-m", "lostmid_jax.cli", "diagnose", "--smoke", "--out", str(tmp_path / "diag"),
                      "--no-progress", cwd=tmp_path)
    assert diag.returncode == 0, diag.stderr[-3000:]
    assert (tmp_path / "diag" / "accuracy.csv").is_file()
    toy = _base_only(str(ROOT / "sims" / "lost_in_the_middle_toy.py"), "--smoke", "--out", str(tmp_path / "toy"),
                     "--no-progress", cwd=tmp_path)
    assert toy.returncode == 0, toy.stderr[-3000:]
    for text in (diag.stderr, toy.stderr):
        assert "Traceback" not in text and "filelock" not in text.lower(), text[-3000:]


def test_a_slow_tokenizer_without_transformers_is_one_line(tmp_path):
    pytest.importorskip("transformers")
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "tokenizer.model").write_bytes(b"\x00")
    script = tmp_path / "load.py"
    script.write_text("from lostmid_jax.probes.tokenizer import load_tokenizer\n"
                      f"load_tokenizer({str(tmp_path / 'ckpt')!r}, name='--weights')\n")
    out = _base_only(str(script), cwd=ROOT)
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("ValueError: --weights:") and re.search(r"needs transformers( and sentencepiece)?: pip install",
                                                                 last), out.stderr
