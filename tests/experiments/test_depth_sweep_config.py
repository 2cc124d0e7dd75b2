"""The depth sweep's Config: bad arguments stop before any work."""

import pytest

from lostmid_jax.experiments import script


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--depths", ""], "depths must not be empty"),
        (["--alphas", "0.5,1.5"], "alphas"),
        (["--lengths", "0"], "length"),
        (["--depths", "1,x"], "integers"),
        (["--custom", "0.5,0.5", "--depths", "1-3"], "custom"),
    ],
)
def test_bad_arguments_stop_before_work(argv, message, tmp_path, capsys):
    out = tmp_path / "never"
    with pytest.raises(SystemExit) as exc:
        script.main("depth_sweep", [*argv, "--out", str(out)])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
