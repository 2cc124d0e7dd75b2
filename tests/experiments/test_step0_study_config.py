"""The study's Config: bad arguments exit 2 before any work; without MLPs every model drops its MLP."""

import pytest

from lostmid_jax.experiments import script, step0_study


def test_without_mlps_every_model_drops_its_mlp():
    cfg = step0_study.Config(mlp=False)
    assert cfg.model_overrides() == {"mlp": "none"} and cfg.noise_overrides(32)["mlp"] == "none"
    assert step0_study.Config().model_overrides() == {}
    with pytest.raises(ValueError, match="mlp"):
        step0_study.Config(mlp="no")


@pytest.mark.parametrize("flags, match", [(["--seeds", "2"], "seeds"), (["--presets", "nope"], "presets"),
                                          (["--noise-widths", "30"], "noise_widths"),
                                          (["--length", "4"], "length")])
def test_bad_arguments_exit_2(flags, match, capsys, tmp_path):
    with pytest.raises(SystemExit) as err:
        script.main("step0_study", [*flags, "--out", str(tmp_path / "x")])
    assert err.value.code == 2 and match in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
