"""Fuzz every `lostmid` subcommand: exit 0 (a valid run) or exit 2 with one line naming the flag, never a
traceback; and a file that existed before the command is never changed."""

import pytest
from fuzz_harness import COUNTS, EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lostmid_jax import cli, runs
from lostmid_jax.experiments import runner

TEXT = st.sampled_from(["", "abc", "-1", "0", "1", "2", "0.5", "nan", "inf", "-inf", "1e308", "none", "1,2",
                        "1-3", "3-1", "True", "false", "10000000000", "causal,window:0"])
FLAGS = {
    "theory": ["--length", "--depth", "--alpha", "--backend", "--dps", "--band"],
    "sweep": ["--depths", "--alphas", "--power-b", "--custom", "--lengths", "--band"],
    "counterfactuals": ["--length", "--depths", "--alpha", "--power-b", "--custom", "--priors", "--profile-depth",
                        "--band", "--dead-below"],
    "step0": ["--preset", "--length", "--method", "--probes", "--seeds", "--variants", "--input", "--dtype",
              "--chunk", "--heat-length", "--band"],
    "train": ["--task", "--steps", "--width", "--heads", "--lr", "--doc-length", "--snapshots", "--seeds",
              "--interventions", "--attn-impl", "--kv-format", "--needle-bins", "--mask", "--residual"],
    "compare": ["--weights", "--length", "--method", "--probes", "--seeds", "--input", "--chunk", "--band"],
    "rerun": ["--set"],
}
CHEAP = {"sweep": ["--smoke", "--depths", "1,2", "--lengths", "16", "--power-b", "none"],
         "counterfactuals": ["--smoke", "--length", "16", "--depths", "1,2"],
         "theory": ["--length", "16", "--depth", "2"]}


@pytest.fixture
def sentinel(tmp_path_factory):
    path = tmp_path_factory.mktemp("existing")
    (path / "results.csv").write_text("precious\n")
    return path


@settings(max_examples=EXAMPLES * 3, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(command=st.sampled_from(list(FLAGS)), data=st.data(), into_existing=st.booleans())
def test_subcommand_flag(command, data, into_existing, sentinel, tmp_path_factory, monkeypatch, capsys):
    flag = data.draw(st.sampled_from(FLAGS[command]))
    value = data.draw(TEXT)
    ran = []

    def claim_only(exp, cfg, run_dir, **kwargs):  # validation and the run-directory check; no model is trained
        runs.claim_run_dir(run_dir, runs.jsonable(cfg), experiment=exp.NAME, resumable=getattr(exp, "RESUMABLE", False))
        ran.append(run_dir)

    if command in ("step0", "train", "compare", "rerun"):
        monkeypatch.setattr(runner, "execute", claim_only)
    root = tmp_path_factory.mktemp("root")
    argv = [command, *CHEAP.get(command, ["--smoke"])]
    if command == "rerun":
        argv = ["rerun", str(sentinel)]
    if command == "compare":
        argv += ["--weights", str(root / "nowhere")]
    argv += [f"{flag}={value}"]
    if command != "theory":
        argv += ["--no-progress", "--no-figures", "--root", str(root)]
        if into_existing:
            argv += ["--out", str(sentinel)]
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    outcome = "exit 0" if code == 0 else "exit 2" if code == 2 else f"exit {code}"
    COUNTS[f"lostmid {command}"][outcome] += 1
    assert code in (0, 2), (argv, err)
    assert "Traceback" not in err
    if code == 2:
        assert "error:" in err.strip().splitlines()[-1]  # usage, then one message line
    if into_existing and command != "theory":
        assert code == 2, argv  # nothing runs into another run's directory
    assert (sentinel / "results.csv").read_text() == "precious\n"
    assert sorted(p.name for p in sentinel.iterdir()) == ["results.csv"]
