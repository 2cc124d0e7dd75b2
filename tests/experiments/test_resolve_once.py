"""diagnose and remedies look their checkpoint up once (issue 34): the runner's resolve step reads config.json,
every later step (checks, cost, tokenizer, load_hf) takes that value; a Config alone touches no disk."""

import sys

import pytest

from lostmid_jax.experiments import diagnose, remedies, script
from lostmid_jax.nn.hf import files
from lostmid_jax.probes.checkpoint import RANDOM_TINY, load_checkpoint, write_tiny_checkpoint


@pytest.fixture
def config_reads(monkeypatch):
    """The paths of every config.json parsed (nn.hf.files.read_config, wherever it was imported by name)."""
    real, reads = files.read_config, []

    def counting(path):
        reads.append(path)
        return real(path)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("lostmid_jax") and getattr(module, "read_config", None) is real:
            monkeypatch.setattr(module, "read_config", counting)
    return reads


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return str(write_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "llama"))


@pytest.mark.parametrize("exp", [diagnose, remedies])
def test_resolve_then_load_reads_config_json_once(exp, tiny_dir, config_reads):
    cfg = exp.Config(**dict(exp.SMOKE, weights=tiny_dir))
    assert config_reads == []  # building the Config read nothing
    resolved = exp.resolve(cfg)
    model_cfg, _, path, tok = load_checkpoint(resolved.config, None, resolved.inputs)
    assert len(config_reads) == 1 and str(path) == tiny_dir and tok is resolved.inputs.tokenizer
    assert model_cfg.vocab_size == resolved.inputs.model_config.vocab_size


def test_a_config_alone_looks_nothing_up(tmp_path):
    """A missing checkpoint builds a Config (its own fields are fine) and is refused, naming weights, when resolved."""
    cfg = diagnose.Config(weights=str(tmp_path / "missing"), lengths=(64,))
    with pytest.raises(ValueError, match="^weights: .*missing"):
        diagnose.resolve(cfg)
    assert remedies.Config(weights="org/not-cached", lengths=(64,)).weights == "org/not-cached"


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
