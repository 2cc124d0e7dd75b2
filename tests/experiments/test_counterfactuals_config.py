"""The counterfactual sweep's Config: bad arguments stop before any work."""

import pytest

from lostmid_jax.experiments import script


@pytest.mark.parametrize(
    "argv,name",
    [
        (["--priors", "causal,window:0"], "window"),
        (["--priors", "chunks:100+2"], "lengths"),
        (["--priors", "prefix:999"], "prefix"),
        (["--priors", "sinks:-1:4"], "sinks must"),
        (["--priors", "alibi:0"], "n_heads"),
        (["--priors", "alibi:2:0.5/-1"], "slopes"),
        (["--priors", "ring"], "ring"),
        (["--priors", "alibi:3:paper"], "alibi:3:paper"),
        (["--priors", "content:diag=x"], "diag"),
        (["--priors", "content:window:4:heads=2:diag=1/2/3"], "diag has 3 entries"),
        (["--priors", "content:diag=1:window:4"], "mask spec must come first"),
        (["--depths", "0,4"], "depths"),
        (["--alpha", "1.5"], "alpha"),
        (["--custom", "0.5,0.5"], "custom"),
        (["--power-b", "-1"], "b must"),
        (["--dead-below", "2"], "dead_below"),
    ],
)
def test_bad_arguments_stop_before_any_work(argv, name, tmp_path, capsys):
    out = tmp_path / "never"
    with pytest.raises(SystemExit) as exit_info:
        script.main("counterfactuals", ["--smoke", "--no-progress", "--out", str(out), *argv])
    assert exit_info.value.code == 2
    assert name in capsys.readouterr().err
    assert not out.exists()
