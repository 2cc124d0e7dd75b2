"""The probe cases of issue 36 ("Why" 3-6: readers of JSON, tokenizers, checkpoint numbers, tables, messages)
and issue 33's hub cache, each a command with the outcome it must have.

Every case builds its input from two bases (a tiny checkpoint with its word-level tokenizer, and a
diagnose smoke run), then runs one `lostmid` command or one Python snippet. Its outcome is classed:

    clean         the expected exit status and every expected word in the output, one line of error
    unclear       the expected exit status, but the message misses a word (the file, the key, the cause)
    traceback     a Python traceback
    silent wrong  exit 0 where a refusal (or a warning) was due
    hang          still running after the time limit
    crash         killed by a signal (e.g. out of memory)

    python tests/fuzz/probe_readers.py [--root CODE_DIR] [--only NAME,...]   # the table by class

``--root`` picks the code under test (e.g. /work/main for "before"). tests/fuzz/test_probe_cases.py runs
the same cases in-process on this tree and wants each clean.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

CLASSES = ("clean", "unclear", "traceback", "silent wrong", "hang", "crash")
DEEP = 10 ** 5


@dataclasses.dataclass(frozen=True)
class Case:
    """One probe: ``build(tmp, bases)`` makes the input and returns (argv of `lostmid`, or ("python", code),
    and extra environment variables); ``words``: what the output must name; ``status``: the exit wanted."""

    name: str
    issue: str
    build: object
    words: tuple
    status: int = 2


# ----------------------------------------------------------------------------- inputs
def deep_json(depth: int = DEEP) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def copy_checkpoint(bases, tmp, edit=None) -> pathlib.Path:
    """A copy of the tiny checkpoint whose config.json is ``edit(raw)`` (edit changes raw in place)."""
    out = tmp / "ckpt"
    shutil.copytree(bases["ckpt"], out)
    if edit is not None:
        raw = json.loads((out / "config.json").read_text())
        edit(raw)
        (out / "config.json").write_text(json.dumps(raw))
    return out


def copy_run(bases, tmp) -> pathlib.Path:
    out = tmp / "run"
    shutil.copytree(bases["run"], out, ignore=shutil.ignore_patterns("checkpoint", "*.png", "report.html"))
    return out


def diagnose(ck, tmp, *extra) -> list[str]:
    return ["diagnose", "--smoke", "--weights", str(ck), "--no-progress", "--no-figures", "--no-compile-cache",
            "--out", str(tmp / "out"), *extra]


def _config_case(text_or_path):
    def build(tmp, bases):
        if isinstance(text_or_path, str) and text_or_path.startswith("/dev/"):
            path = text_or_path
        else:
            path = tmp / "config_file.json"
            if text_or_path == "fifo":
                os.mkfifo(path)
            else:
                path.write_bytes(text_or_path)
        return diagnose(bases["ckpt"], tmp, "--config", str(path)), {}
    return build


def _checkpoint_config(edit):
    return lambda tmp, bases: (diagnose(copy_checkpoint(bases, tmp, edit), tmp), {})


def _raw_config(data: bytes):
    def build(tmp, bases):
        ck = copy_checkpoint(bases, tmp)
        (ck / "config.json").write_bytes(data)
        return diagnose(ck, tmp), {}
    return build


def _tokenizer(name: str, content):
    """The tiny checkpoint with ``name`` replaced by ``content`` (bytes, or a function of its text)."""
    def build(tmp, bases):
        ck = copy_checkpoint(bases, tmp)
        path = ck / name
        path.write_bytes(content(path.read_text()) if callable(content) else content)
        return diagnose(ck, tmp), {}
    return build


def _wrong_model_type(text: str) -> bytes:
    data = json.loads(text)
    data["model"]["type"] = "BPE"  # a WordLevel model's fields under the BPE tag
    return json.dumps(data).encode()


def _yarn_zero(raw):
    # g(s, m) = 0.1 m ln(s) + 1 is 0 for s = e, m = -10: the attention factor divides by it
    raw["rope_scaling"] = {"rope_type": "yarn", "factor": math.e, "original_max_position_embeddings": 256,
                           "mscale": 1.0, "mscale_all_dim": -10.0}


def _run_file(name: str, edit, command: str):
    """The diagnose smoke run with ``name`` replaced by ``edit(bytes)``, read by ``command`` (report, plot,
    or load_run in a snippet)."""
    def build(tmp, bases):
        run = copy_run(bases, tmp)
        path = run / name
        path.write_bytes(edit(path.read_bytes()))
        if command == "load_run":
            return ("python", LOAD_RUN.format(run=str(run))), {}
        if command == "report":
            return ["report", str(run), "--out", str(tmp / "report.html")], {}
        return ["plot", str(run), "--out", str(tmp / "figures")], {}
    return build


LOAD_RUN = """
import sys, warnings
import lostmid_jax.experiments  # registers the experiments a run may name
from lostmid_jax.runs import load_run
try:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = load_run({run!r})
except (ValueError, UserWarning) as err:
    print("error:", err, file=sys.stderr)
    sys.exit(2)
print(run)
"""


def _short_heatmap(data: bytes) -> bytes:
    lines = data.decode().splitlines(keepends=True)
    return "".join(lines[:-20]).encode()  # the last query bin cut: its key bins point past the grid


def _ragged_heatmap(data: bytes) -> bytes:
    lines = data.decode().splitlines(keepends=True)
    return "".join(lines[:40] + lines[41:]).encode()  # one cell of the grid missing


def _unterminated_quote(data: bytes) -> bytes:
    """A hand-edited examples.csv: a quote opened in the last field of row 2 and never closed, so the rows
    after it become part of that field (a count of the same width)."""
    lines = data.decode().splitlines(keepends=True)
    lines[2] = lines[2].rstrip("\r\n") + '"\r\n'
    head, last = lines[2].rsplit(",", 1)
    lines[2] = head + ',"' + last.rstrip('"\r\n') + "\r\n"
    return "".join(lines).encode()


def _status_running(data: bytes) -> bytes:
    record = json.loads(data)
    record["status"] = "running"
    return json.dumps(record, indent=2).encode()


def _facts(content: bytes, *extra):
    def build(tmp, bases):
        path = tmp / "facts.jsonl"
        path.write_bytes(content)
        return diagnose("random:tiny-llama", tmp, "--facts", str(path), *extra), {}
    return build


FACT = {"fact": "The code of Arlo is 42.", "question": "What is the code of Arlo?", "answer": "42"}


def _facts_lines(*rows) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _huge_fact() -> bytes:
    big = dict(FACT, fact="The code of Arlo is 42. " + "quiet " * 4_000_000)  # a word the tiny tokenizer knows
    return _facts_lines(big, dict(FACT, answer="17"), dict(FACT, answer="99"))


def _corpus_symlink(tmp, bases):
    outside = tmp / "elsewhere.txt"
    outside.write_text("A paragraph of filler.\n\nAnother paragraph.\n")
    corpus = tmp / "corpus"
    corpus.mkdir()
    (corpus / "text.txt").symlink_to(outside)
    return diagnose("random:tiny-llama", tmp, "--corpus", str(corpus)), {}


def _remote_code(tmp, bases):
    """tokenizer_config.json naming a tokenizer class of the checkpoint's own code (auto_map), no tokenizer.json."""
    ck = copy_checkpoint(bases, tmp)
    (ck / "tokenizer.json").unlink()
    (ck / "vocab.json").write_text(json.dumps({"a": 0, "b": 1}))
    (ck / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "CustomTokenizer", "auto_map": {"AutoTokenizer": ["tok.CustomTokenizer", None]}}))
    (ck / "tok.py").write_text("raise SystemExit('code of the checkpoint ran')\n")
    return diagnose(ck, tmp), {}


def _sentencepiece(tmp, bases):
    """A Llama tokenizer.model only (transformers needs the sentencepiece package for it)."""
    ck = copy_checkpoint(bases, tmp)
    (ck / "tokenizer.json").unlink()
    (ck / "tokenizer.model").write_bytes(b"\x0a\x05hello")
    (ck / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "LlamaTokenizer"}))
    return diagnose(ck, tmp), {}


TRAIN_ENOSPC = """
import errno, sys
from unittest import mock
from etils.epath import gpath
from lostmid_jax import cli

real_open = gpath._GPath.open

def full(self, mode="r", *args, **kwargs):  # the disk fills up under orbax's writes
    if "w" in mode or "a" in mode:
        raise OSError(errno.ENOSPC, "No space left on device", str(self))
    return real_open(self, mode, *args, **kwargs)

with mock.patch.object(gpath._GPath, "open", full):
    sys.exit(cli.main(["train", "--smoke", "--steps", "2", "--no-progress", "--no-figures", "--no-compile-cache",
                       "--out", {out!r}]))
"""


def _train_full_disk(tmp, bases):
    out = tmp / "train"
    return ("python", TRAIN_ENOSPC.format(out=str(out))), {}


def hub_cache(root: pathlib.Path, ckpt: pathlib.Path, repo: str = "org/tiny", *, outside: str | None = None):
    """A Hugging Face hub cache under ``root`` holding ``ckpt``'s files as the hub stores them: every file a
    blob named by its hash under models--org--name/blobs, the snapshot's entries symlinks ../../blobs/<hash>.
    ``outside``: that file's link points out of the repo folder instead (to a copy next to the cache)."""
    import hashlib

    folder = root / ("models--" + repo.replace("/", "--"))
    commit = "0" * 40
    snapshot = folder / "snapshots" / commit
    (folder / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text(commit)
    for file in sorted(ckpt.iterdir()):
        data = file.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if file.name == outside:
            stray = root.parent / f"stray_{file.name}"
            stray.write_bytes(data)
            (snapshot / file.name).symlink_to(os.path.relpath(stray, snapshot))
            continue
        (folder / "blobs" / digest).write_bytes(data)
        (snapshot / file.name).symlink_to(f"../../blobs/{digest}")
    return root


def _hub(outside=None):
    def build(tmp, bases):
        cache = hub_cache(tmp / "hf" / "hub", bases["ckpt"], outside=outside)
        env = {"HF_HUB_CACHE": str(cache), "HF_HOME": str(tmp / "hf"), "HF_HUB_OFFLINE": "1"}
        return diagnose("org/tiny", tmp), env
    return build


CASES = [
    Case("config_fifo", "3 hang", _config_case("fifo"), ("config_file.json", "regular file")),
    Case("config_dev_zero", "3 hang", _config_case("/dev/zero"), ("/dev/zero", "regular file")),
    Case("config_deep", "4 traceback", _config_case(deep_json().encode()), ("config_file.json", "deep")),
    Case("config_not_utf8", "6 unclear", _config_case(b'{"seed": "\xff"}'), ("config_file.json", "UTF-8")),
    Case("checkpoint_config_deep", "4 traceback", _raw_config(deep_json().encode()), ("config.json", "deep")),
    Case("checkpoint_config_not_utf8", "6 unclear", _raw_config(b'{"model_type": "llama\xff"}'), ("config.json", "UTF-8")),
    Case("run_config_deep", "4 traceback", _run_file("config.json", lambda b: deep_json().encode(), "report"),
         ("config.json", "deep")),
    Case("null_max_position_embeddings", "4 traceback",
         _checkpoint_config(lambda raw: raw.update(max_position_embeddings=None)),
         ("max_position_embeddings", "null")),
    Case("null_rms_norm_eps", "4 traceback", _checkpoint_config(lambda raw: raw.update(rms_norm_eps=None)),
         ("rms_norm_eps", "null")),
    Case("tokenizer_truncated", "4 traceback", _tokenizer("tokenizer.json", lambda t: t[:len(t) // 2].encode()),
         ("tokenizer.json",)),
    Case("tokenizer_empty", "4 traceback", _tokenizer("tokenizer.json", b""), ("tokenizer.json", "empty")),
    Case("tokenizer_binary", "4 traceback", _tokenizer("tokenizer.json", bytes(range(256)) * 4),
         ("tokenizer.json", "UTF-8")),
    Case("tokenizer_list", "4 traceback", _tokenizer("tokenizer.json", b"[1, 2, 3]"), ("tokenizer.json", "object")),
    Case("tokenizer_wrong_model", "4 traceback", _tokenizer("tokenizer.json", _wrong_model_type),
         ("tokenizer.json", "BPE")),
    Case("tokenizer_config_list", "4 traceback", _tokenizer("tokenizer_config.json", b"[]"),
         ("tokenizer_config.json", "object")),
    Case("yarn_mscale_zero", "4 traceback", _checkpoint_config(_yarn_zero), ("mscale_all_dim",)),
    Case("heatmap_short_report", "4 traceback", _run_file("heatmap.csv", _short_heatmap, "report"),
         ("heatmap.csv", "line")),
    Case("heatmap_short_plot", "4 traceback", _run_file("heatmap.csv", _short_heatmap, "plot"),
         ("heatmap.csv", "line")),
    Case("heatmap_short_load_run", "4 traceback", _run_file("heatmap.csv", _short_heatmap, "load_run"),
         ("heatmap.csv", "line")),
    Case("heatmap_ragged_plot", "B5", _run_file("heatmap.csv", _ragged_heatmap, "plot"), ("heatmap.csv", "line")),
    Case("heatmap_ragged_load_run", "B5", _run_file("heatmap.csv", _ragged_heatmap, "load_run"),
         ("heatmap.csv", "line")),
    Case("verdict_not_utf8", "4 traceback", _run_file("verdict.txt", lambda b: b + b"\xff\xfe\n", "report"),
         ("verdict.txt", "UTF-8")),
    Case("train_full_disk", "4 traceback", _train_full_disk, ("/train/", "ckpt", "No space left")),
    Case("unterminated_quote_load_run", "5 silent", _run_file("gaps.csv", _unterminated_quote, "load_run"),
         ("gaps.csv", "line", "quote")),
    Case("unterminated_quote_report", "5 silent", _run_file("gaps.csv", _unterminated_quote, "report"),
         ("gaps.csv", "line", "quote")),
    Case("unterminated_quote_plot", "5 silent", _run_file("gaps.csv", _unterminated_quote, "plot"),
         ("gaps.csv", "line", "quote")),
    Case("huge_fact", "6 unclear", _facts(_huge_fact()), ("fact", "length")),
    Case("corpus_symlink_out", "6 unclear", _corpus_symlink, ("text.txt", "symlink")),
    Case("facts_not_utf8", "6 unclear", _facts(_facts_lines(FACT) + b'{"fact": "\xff"}\n'), ("facts.jsonl", "UTF-8")),
    Case("run_status_running", "6 unclear", _run_file("config.json", _status_running, "report"),
         ("running", "warning"), status=0),
    Case("transformers_remote_code", "6 unclear", _remote_code, ("trust_remote_code", "tokenizer.json")),
    Case("transformers_sentencepiece", "6 unclear", _sentencepiece, ("sentencepiece", "pip install")),
    Case("hub_cache", "33.4", _hub(), ("Files in", "accuracy.csv"), status=0),
    Case("hub_cache_link_out", "33.5", _hub(outside="tokenizer.json"), ("tokenizer.json", "outside")),
]


# ----------------------------------------------------------------------------- classing
def classify(case: Case, status: int | None, output: str) -> str:
    """The class of an outcome (module docstring): status None is a hang."""
    if status is None:
        return "hang"
    if status < 0:
        return "crash"
    if "Traceback (most recent call last)" in output:
        return "traceback"
    if status != case.status:
        return "silent wrong" if status == 0 else "unclear"
    errors = [line for line in output.splitlines() if "error:" in line]
    if status == 2 and len(errors) != 1:
        return "unclear"
    said = errors[0] if status == 2 else output
    return "clean" if all(w.lower() in said.lower() for w in case.words) else "unclear"


def make_bases(tmp: pathlib.Path, root: pathlib.Path) -> dict:
    """The tiny checkpoint and the diagnose smoke run, made by the code under ``root``."""
    env = dict(os.environ, PYTHONPATH=str(root))
    ckpt, run = tmp / "base_ckpt", tmp / "base_run"
    code = "import sys; from lostmid_jax.probes.checkpoint import write_tiny_checkpoint as w; w(sys.argv[1], gain=5.0)"
    subprocess.run([sys.executable, "-c", code, str(ckpt)], env=env, check=True)
    subprocess.run([sys.executable, "-m", "lostmid_jax.cli", "diagnose", "--smoke", "--no-progress", "--out",
                    str(run)], env=env, check=True, capture_output=True)
    return {"ckpt": ckpt, "run": run}


def run_case(case: Case, tmp: pathlib.Path, bases: dict, root: pathlib.Path, timeout: float = 120.0):
    """(class, status, last lines of the output) of ``case`` run by the code under ``root``."""
    work = tmp / case.name
    work.mkdir()
    command, env_extra = case.build(work, bases)
    argv = [sys.executable, "-c", command[1]] if command[0] == "python" else \
        [sys.executable, "-m", "lostmid_jax.cli", *command]
    env = dict(os.environ, PYTHONPATH=str(root), **env_extra)
    try:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, cwd=work)
        status, output = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as err:
        status, output = None, str(err.stderr or "")
    return classify(case, status, output), status, output


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parents[2]))
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    root = pathlib.Path(args.root).resolve()
    cases = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    counts = dict.fromkeys(CLASSES, 0)
    with tempfile.TemporaryDirectory(prefix="probe_readers_") as tmp:
        tmp = pathlib.Path(tmp)
        bases = make_bases(tmp, root)
        for case in cases:
            cls, status, output = run_case(case, tmp, bases, root, args.timeout)
            counts[cls] += 1
            tail = " | ".join(line for line in output.strip().splitlines()[-2:])[:220]
            print(f"{case.name:<32} {case.issue:<12} {cls:<13} exit {status}  {tail}", flush=True)
    print(f"\n{'cases':>6} " + " ".join(f"{c:>12}" for c in CLASSES))
    print(f"{len(cases):>6} " + " ".join(f"{counts[c]:>12}" for c in CLASSES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
