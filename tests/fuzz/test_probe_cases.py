"""The probe cases of issue 36 (readers: JSON, tokenizers, checkpoint numbers, tables, messages) and issue 33's
hub cache, run in-process: each must end clean (tests/fuzz/probe_readers.py: the expected exit, one error
line naming the file and the cause, no traceback, no hang). The costly ones (a 20 MB fact, a full `train`
and a full diagnose from the hub cache) are under -m extended, each with a cheap test of its own below."""

import errno
import json
import logging
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_readers import CASES, FACT, classify, hub_cache  # noqa: E402

from lostmid_jax import cli  # noqa: E402

COSTLY = {"huge_fact", "train_full_disk", "hub_cache"}


@pytest.fixture(scope="module")
def tiny_ckpt(tmp_path_factory):
    """The tiny random Llama with its word-level tokenizer (read it; copy it to change it)."""
    from lostmid_jax.probes.checkpoint import write_tiny_checkpoint

    return write_tiny_checkpoint(tmp_path_factory.mktemp("probe_ckpt") / "ckpt", gain=5.0)


@pytest.fixture(scope="module")
def bases(tiny_ckpt, smoke_runs):
    return {"ckpt": tiny_ckpt, "run": smoke_runs("diagnose")}


def hub_env(monkeypatch, env: dict) -> None:
    """The environment of a case; huggingface_hub reads HF_HUB_CACHE and HF_HUB_OFFLINE when imported, so
    its constants are set too."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    if "HF_HUB_CACHE" in env:
        from huggingface_hub import constants

        monkeypatch.setattr(constants, "HF_HUB_CACHE", env["HF_HUB_CACHE"])
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


def run_in_process(case, tmp_path, bases, monkeypatch, capsys) -> tuple[int, str]:
    command, env = case.build(tmp_path, bases)
    hub_env(monkeypatch, env)
    monkeypatch.chdir(tmp_path)
    try:
        if command[0] == "python":
            exec(compile(command[1], case.name, "exec"), {"__name__": "__probe__"})
            status = 0
        else:
            status = cli.main(list(command))
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    out = capsys.readouterr()
    return status, out.out + out.err


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=[pytest.mark.extended] if c.name in COSTLY else [])
                                  for c in CASES])
def test_probe_case_ends_clean(case, tmp_path, bases, monkeypatch, capsys):
    status, output = run_in_process(case, tmp_path, bases, monkeypatch, capsys)
    assert classify(case, status, output) == "clean", f"exit {status}: {output[-1500:]}"


# ----------------------------------------------------------------------------- cheap versions of the costly
def test_long_fact_is_blamed_on_its_length(tiny_ckpt):
    from lostmid_jax.probes import load_tokenizer, text_probes
    from lostmid_jax.probes.documents import Fact

    tok = load_tokenizer(tiny_ckpt)
    long = Fact(fact="The code of Arlo is 42." + " word" * 3000, question=FACT["question"], answer="42")
    others = [Fact(**dict(FACT, answer=a)) for a in ("17", "99")]
    with pytest.raises(ValueError, match=r"facts: fact 1 .* is 30\d\d ids long .* shorten the fact or raise length"):
        text_probes(tok, [long, *others], passages=3, length=64, candidates=2)


def test_full_disk_under_orbax_is_one_error_with_its_path(tmp_path, capfd, monkeypatch):
    """orbax's writer threads fail on a full disk (every write raises ENOSPC): the save raises the OSError with
    its path, and nothing of orbax's ~100 lines of logged tracebacks reaches stderr."""
    import jax.numpy as jnp
    from etils.epath import gpath

    from lostmid_jax.train import checkpoint
    from lostmid_jax.train.config import TrainConfig

    real_open = gpath._GPath.open

    def full(self, mode="r", *args, **kwargs):
        if "w" in mode or "a" in mode:
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(gpath._GPath, "open", full)
    logging.getLogger("absl").addHandler(handler := logging.StreamHandler(sys.stderr))
    try:
        with pytest.raises(OSError) as caught, checkpoint.quiet_orbax_failures():
            mngr = checkpoint.checkpoint_manager(tmp_path / "ckpt", TrainConfig(steps=2))
            try:
                checkpoint.save(mngr, 1, {"w": jnp.ones(3)}, {"m": jnp.zeros(3)})
            finally:
                mngr.close()
    finally:
        logging.getLogger("absl").removeHandler(handler)
    assert caught.value.errno == errno.ENOSPC and str(tmp_path / "ckpt") in caught.value.filename
    err = capfd.readouterr().err
    assert "Traceback" not in err and "No space left" not in err, err[-2000:]


def test_quiet_orbax_failures_keeps_errors_logged_in_a_block_that_succeeds(caplog):
    from lostmid_jax.train.checkpoint import quiet_orbax_failures

    with caplog.at_level(logging.ERROR, logger="absl"), quiet_orbax_failures():
        logging.getLogger("absl").error("a real orbax error")
    assert "a real orbax error" in caplog.text


def test_hub_id_in_the_local_cache_resolves_in_text_mode(tmp_path, tiny_ckpt, monkeypatch):
    """A hub cache as huggingface_hub lays it out (snapshot entries linking ../../blobs/<sha256>): text-mode
    diagnose's config resolves the id offline and builds its tokenizer (a link out of the repo folder is
    refused: the case hub_cache_link_out)."""
    from lostmid_jax.experiments import diagnose
    from lostmid_jax.experiments.script import build_config
    from lostmid_jax.probes import load_tokenizer

    ckpt = tiny_ckpt
    cache = hub_cache(tmp_path / "hf" / "hub", ckpt)
    hub_env(monkeypatch, {"HF_HUB_CACHE": str(cache), "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"})
    snapshot = next((cache / "models--org--tiny" / "snapshots").iterdir())
    assert (snapshot / "tokenizer.json").is_symlink()
    cfg = build_config(diagnose, weights="org/tiny", mode="text", lengths=(32,), examples=3, passages=3, candidates=2)
    assert diagnose.resolve(cfg).inputs.path == snapshot
    tok = load_tokenizer("org/tiny")
    assert tok.source == str(snapshot / "tokenizer.json")
    assert tok.encode(" The code") == load_tokenizer(ckpt).encode(" The code")


# ----------------------------------------------------------------------------- the reader itself
def test_reader_refuses_each_kind_of_file_in_one_line(tmp_path):
    import os

    from lostmid_jax.untrusted import read_json, read_json_object

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cases = {fifo: "is a FIFO", tmp_path: "is a directory", pathlib.Path("/dev/null"): "character device",
             tmp_path / "missing.json": "does not exist"}
    texts = {"nan.json": ('{"a": NaN}', "NaN is not a JSON value"), "deep.json": ("[" * 70 + "]" * 70, "64 levels"),
             "bad.json": ('{"a": }', "line 1 column 7"), "list.json": ("[1]", "must hold a JSON object")}
    for name, (text, _) in texts.items():
        (tmp_path / name).write_text(text)
    for path, words in [*cases.items(), *((tmp_path / n, w) for n, (_, w) in texts.items())]:
        with pytest.raises(ValueError, match="^--config: ") as caught:
            read_json_object(path, "--config")
        assert words in str(caught.value) and "\n" not in str(caught.value)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"a": "x" * 100}))
    with pytest.raises(ValueError, match="larger than 50 bytes"):
        read_json(big, max_bytes=50)
    assert read_json(big) == {"a": "x" * 100}


def test_typed_names_the_key_of_null_and_wrong_types():
    from lostmid_jax.untrusted import typed

    raw = {"eps": None, "n": True, "m": 3, "w": None}
    with pytest.raises(ValueError, match="config.json eps must be a number, got null"):
        typed(raw, "eps", "a number", "config.json")
    with pytest.raises(ValueError, match=r"config.json n must be an integer, got true \(a true/false\)"):
        typed(raw, "n", "an integer", "config.json")
    assert typed(raw, "m", "an integer", "x") == 3 and typed(raw, "absent", "a number", "x", default=7) == 7
    assert typed(raw, "w", "an integer", "x", nullable=True, default=5) == 5
