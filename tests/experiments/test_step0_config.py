"""step0's Config: bad arguments stop before any work; the default and --full presets and their plans."""

import re

import pytest

from lostmid_jax.experiments import script


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--preset", "gpt3"], "presets"),
        (["--method", "jacrev"], "method"),
        (["--probes", "0"], "probes"),
        (["--variants", "rope:abc"], "variants"),
        (["--preset", "gpt2-small", "--length", "2048"], "max_positions"),
        (["--input", "text"], "input"),
    ],
)
def test_bad_arguments_stop_before_work(argv, message, tmp_path, capsys):
    out = tmp_path / "never"
    with pytest.raises(SystemExit) as exc:
        script.main("step0", [*argv, "--out", str(out)])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_default_and_full_presets():
    from lostmid_jax.experiments.step0 import Config, expected_time
    from lostmid_jax.nn import PRESETS

    plans = {p.preset: p for p in Config().plans()}
    assert list(plans) == ["toy-deep", "gpt2-small"]
    assert plans["toy-deep"].method == "exact" and plans["toy-deep"].seeds >= 8
    assert plans["gpt2-small"].seeds >= 4
    full = Config(full=True)
    assert full.preset_names() == ("toy-deep", "gpt2-small", "qwen2-0.5b")
    assert re.search(r"qwen2-0.5b: 4 units .* ~\d+ min", expected_time(full))
    for name in PRESETS:  # every preset is selectable and gets a plan
        plan = Config(models={"presets": (name,)}).plans()[0]
        assert plan.length >= 2 and plan.seeds >= 1 and plan.variants
    with pytest.raises(ValueError, match="full"):
        Config(full="yes")
