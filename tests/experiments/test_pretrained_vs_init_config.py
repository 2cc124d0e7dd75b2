"""The comparison's Config: a checkpoint that is not there, or values out of range, stop before any work."""

import pytest

from lostmid_jax.experiments import script


def test_uncached_hub_id_exits_2_saying_how_to_fetch(tmp_path, capsys, monkeypatch):
    constants = pytest.importorskip("huggingface_hub.constants")  # the submodule itself: the package loads it lazily
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(SystemExit) as err:
        script.main("pretrained_vs_init", ["--weights", "someone/not-cached", "--smoke", "--out", str(tmp_path / "x")])
    text = capsys.readouterr().err
    assert err.value.code == 2 and "hf download someone/not-cached" in text and "--allow-download" in text
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("argv,name", [(["--weights", "/nowhere/ckpt"], "nowhere"), (["--seeds", "1"], "seeds"),
                                       (["--length", "257"], "max_positions")])
def test_bad_arguments_exit_2(argv, name, tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        script.main("pretrained_vs_init", ["--smoke"] + argv + ["--out", str(tmp_path / "x")])
    assert err.value.code == 2 and name in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_config_alone_looks_nothing_up_and_resolve_refuses(tmp_path):
    """A missing checkpoint, or one too short for the length, builds a Config (its own fields are fine); the resolve
    step refuses it in one line naming the field, and looks the checkpoint up once for the run."""
    from lostmid_jax.experiments import pretrained_vs_init as compare
    from lostmid_jax.experiments.runner import Resolved

    missing = compare.Config(checkpoint={"weights": str(tmp_path / "missing")})
    with pytest.raises(ValueError, match="^weights: .*missing"):
        compare.resolve(missing)
    too_long = compare.Config(checkpoint={"weights": compare.RANDOM_TINY}, influence={"length": 257})
    with pytest.raises(ValueError, match="^influence.length=257 exceeds the checkpoint's max_positions=256$"):
        compare.resolve(too_long)
    out = compare.resolve(compare.Config(checkpoint={"weights": compare.RANDOM_TINY}))
    assert isinstance(out, Resolved) and out.config.influence.method == "exact" and out.inputs.path is None
    assert out.inputs.model_config.max_positions == compare.TINY_GPT2["n_positions"]
