"""diagnose, remedies and compare look their checkpoint up once (issue 34): the runner's resolve step reads config.json,
every later step (checks, cost, tokenizer, load_hf) takes that value; a Config alone touches no disk."""

import sys

import pytest

from lostmid_jax.experiments import diagnose, pretrained_vs_init, remedies, script
from lostmid_jax.experiments.script import build_config
from lostmid_jax.nn.hf import files
from lostmid_jax.probes.checkpoint import RANDOM_TINY, load_checkpoint, write_tiny_checkpoint
from lostmid_jax.probes.settings import CheckpointSource


def _count_reads(monkeypatch) -> list:
    """The paths of every config.json parsed from now (nn.hf.files.read_config, wherever imported by name)."""
    real, reads = files.read_config, []

    def counting(path):
        reads.append(path)
        return real(path)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("lostmid_jax") and getattr(module, "read_config", None) is real:
            monkeypatch.setattr(module, "read_config", counting)
    return reads


@pytest.fixture
def config_reads(monkeypatch):
    """The paths of every config.json parsed in the test (:func:`_count_reads`)."""
    return _count_reads(monkeypatch)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return str(write_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "llama"))


@pytest.mark.parametrize("exp", [diagnose, remedies])
def test_resolve_then_load_reads_config_json_once(exp, tiny_dir, config_reads):
    cfg = build_config(exp, smoke=True, weights=tiny_dir)
    assert config_reads == []  # building the Config read nothing
    resolved = exp.resolve(cfg)
    model_cfg, _, path, tok = load_checkpoint(resolved.inputs, None, dtype=cfg.checkpoint.dtype)
    assert len(config_reads) == 1 and str(path) == tiny_dir and tok is resolved.inputs.tokenizer
    assert model_cfg.vocab_size == resolved.inputs.model_config.vocab_size


def test_a_config_alone_looks_nothing_up(tmp_path):
    """A missing checkpoint builds a Config (its own fields are fine) and is refused, naming weights, when resolved."""
    cfg = build_config(diagnose, weights=str(tmp_path / "missing"), lengths=(64,))
    with pytest.raises(ValueError, match="^weights: .*missing"):
        diagnose.resolve(cfg)
    assert build_config(remedies, {"checkpoint.weights": "org/not-cached"}).checkpoint.weights == "org/not-cached"


@pytest.mark.extended  # two diagnose smoke runs, ~15 CPU-s
@pytest.mark.parametrize("weights", [None, "dir"])
def test_a_diagnose_smoke_run_reads_config_json_once(weights, tiny_dir, tmp_path, config_reads):
    """--smoke (the tiny Llama written into the run, then read) and --smoke --weights DIR: one config.json read."""
    argv = ["--smoke", "--no-figures", "--no-progress", "--out", str(tmp_path / "run")]
    if weights:
        argv += ["--weights", tiny_dir]
    assert script.main("diagnose", argv) == 0
    assert len(config_reads) == 1, config_reads
    assert (weights is None) == (RANDOM_TINY in (tmp_path / "run" / "config.json").read_text())


@pytest.mark.parametrize("exp,name", [(diagnose, "diagnose"), (remedies, "remedies")])
def test_a_stored_config_reads_back_without_a_lookup(exp, name, config_reads):
    """config.json of a --smoke run as the code before the config groups wrote it (flat fields): its Config
    again, the flat fields in their groups, with nothing read or resolved (a stored checkpoint is never looked
    up); written back, it holds the groups."""
    import json
    import pathlib

    from lostmid_jax.runs.config import from_dict, jsonable

    golden = pathlib.Path(__file__).parents[1] / "data" / "configs" / f"{name}_smoke_flat.json"
    stored = json.loads(golden.read_text())
    values = dict(stored["config"], weights="org/not-on-this-machine")
    cfg = from_dict(exp.Config, values)
    assert config_reads == [] and cfg.checkpoint.weights == "org/not-on-this-machine"
    assert cfg.probe.lengths == tuple(values["lengths"]) and cfg.probe.passages == values["passages"] == 3
    assert cfg.checkpoint.dtype == values["dtype"] and cfg.batch == values["batch"]
    stored_now = jsonable(cfg)
    assert stored_now["probe"]["examples"] == values["examples"] and "weights" not in stored_now
    assert from_dict(exp.Config, stored_now) == cfg


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    """A tiny random GPT-2 (the compare smoke's architecture) written by save_hf."""
    from flax import nnx

    from lostmid_jax.nn import Decoder, save_hf
    from lostmid_jax.nn.hf import config_from_hf

    model_cfg = config_from_hf(pretrained_vs_init.TINY_GPT2)[1]
    return save_hf(Decoder(model_cfg, rngs=nnx.Rngs(0)), model_cfg, tmp_path_factory.mktemp("compare") / "gpt2")


def test_compare_resolve_then_load_reads_config_json_once(gpt2_dir, config_reads):
    from lostmid_jax.experiments.pretrained_vs_init.measure import _load

    cfg = pretrained_vs_init.Config(checkpoint={"weights": str(gpt2_dir)}, influence={"length": 8, "seeds": 2})
    assert config_reads == []
    resolved = pretrained_vs_init.resolve(cfg)
    model_cfg, _, path = _load(resolved.inputs, None)
    assert len(config_reads) == 1 and path == resolved.inputs.path and model_cfg == resolved.inputs.model_config


@pytest.mark.extended  # a compare smoke run, ~5 CPU-s
def test_a_compare_smoke_run_reads_config_json_once(gpt2_dir, tmp_path, config_reads):
    argv = ["--smoke", "--weights", str(gpt2_dir), "--no-progress", "--no-figures", "--seeds", "2", "--length", "8",
            "--out", str(tmp_path / "run")]
    assert script.main("pretrained_vs_init", argv) == 0
    assert len(config_reads) == 1, config_reads
    assert not (tmp_path / "run" / "checkpoint").exists()  # the given weights were read, not written


def test_a_compare_run_reads_back_without_its_checkpoint(smoke_runs, config_reads, tmp_path):
    """The shared compare smoke run, its checkpoint deleted and its config.json naming a directory that is gone,
    then a hub id with allow_download: it still loads (config validated, nothing looked up, no warning) and its
    figures redraw (outbound connections are refused under the tests)."""
    import json
    import shutil
    import warnings

    from lostmid_jax.runs import load_run

    copy = shutil.copytree(smoke_runs("pretrained_vs_init"), tmp_path / "copy")
    config_reads.clear()  # the shared run may have been made just now
    shutil.rmtree(copy / "checkpoint")
    stored = json.loads((copy / "config.json").read_text())
    for weights, allow in ((str(tmp_path / "gone"), False), ("someone/not-on-this-machine", True)):
        stored["config"].update(checkpoint={"weights": weights, "allow_download": allow})
        (copy / "config.json").write_text(json.dumps(stored))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            run = load_run(copy)
        assert run.config.checkpoint == CheckpointSource(weights=weights, allow_download=allow) and config_reads == []
    assert set(pretrained_vs_init.figures(run.tables, run.config)) == {"fig1_profiles"}
