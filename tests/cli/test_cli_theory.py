"""The ``lostmid theory`` subcommand."""

import pytest

from lostmid_jax import cli, theory


def test_theory_command_prints_summary(capsys):
    assert cli.main(["theory", "--length", "512", "--depth", "6", "--alpha", "0.5"]) == 0
    out = capsys.readouterr().out
    recency = next(line for line in out.splitlines() if line.startswith("recency weight"))
    assert float(recency.split()[-2]) == pytest.approx(theory.influence_row(512, 6, 0.5)[-1], rel=1e-5)


@pytest.mark.parametrize("backend", ["float64", "jax", "mpmath", "arb"])
def test_theory_command_backends_agree(capsys, backend):
    cli.main(["theory", "--length", "64", "--depth", "4", "--alpha", "0.25,0.5,0.75,1", "--backend", "log"])
    reference = capsys.readouterr().out.splitlines()[1:]
    cli.main(["theory", "--length", "64", "--depth", "4", "--alpha", "0.25,0.5,0.75,1", "--backend", backend])
    assert capsys.readouterr().out.splitlines()[1:] == reference


def test_theory_command_rejects_bad_alpha(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["theory", "--alpha", "1.5"])
    assert exc.value.code == 2
    assert "alpha" in capsys.readouterr().err
