"""Micro-training's Config: bad arguments exit 2 naming the argument, before any work."""

import pytest

from lostmid_jax.experiments import script


@pytest.mark.parametrize("argv,name", [(["--steps", "0"], "steps"), (["--seeds", "1,1"], "seeds"),
                                       (["--interventions", "magic"], "interventions"), (["--task", "qa"], "task"),
                                       (["--attn-impl", "gpu"], "attn_impl")])
def test_bad_arguments_exit_2_naming_the_argument(argv, name, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        script.main("micro_training", argv + ["--out", str(tmp_path / "x")])
    assert exc.value.code == 2 and name in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
