"""lostmid diagnose / remedies refuse, in one line and at once (before any model loads or run directory is claimed),
work beyond the trained context or the resource limits (--limits): absurd lengths, bootstrap replicates, batches,
examples, a rerun whose config holds them; one spelling of the length flag (remedies --length still read, with a
hint; an earlier run's config.json with "length" still loads); the dtype flag's choices."""

import json
import time

import pytest

from lostmid_jax import cli
from lostmid_jax.experiments import diagnose, remedies, script

HUGE = "1000000000"


def _refused(argv, tmp_path, capsys, *, lines=1):
    """Run ``lostmid *argv``: exit 2 within seconds, ``lines`` lines on stderr (the last one the refusal)."""
    from lostmid_jax.resources import limits

    out = tmp_path / "run"
    start = time.perf_counter()
    with pytest.raises(SystemExit) as exc, limits():  # a --limits given is undone after the test
        cli.main([*argv, "--no-progress", "--out", str(out)])
    elapsed = time.perf_counter() - start
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == lines and "Traceback" not in err[-1], err
    assert elapsed < 15 and not out.exists(), elapsed  # nothing hangs, nothing is claimed
    return err[-1]


@pytest.mark.parametrize("argv,pattern", [
    (["--lengths", "600"], r"lengths: T = 600 needs 600 positions, beyond the checkpoint's trained context of 512 "
                           r"\(max_position_embeddings 512\).*--allow-extrapolation"),
    (["--lengths", HUGE], r"lengths: T = 1000000000 needs 1000000000 positions, beyond"),
    (["--lengths", HUGE, "--allow-extrapolation"], r"diagnose: lengths=1000000000, .*GB of memory, over the limit "
                                                   r"max_memory_gb=.*--limits max_memory_gb"),
    (["--lengths", "512", "--limits", "max_operations=1e9"], r"diagnose: lengths=512.*operations \(~\d.* s\), over "
                                                             r"the limit max_operations=1e\+09"),
    (["--n-boot", "1000000000000"], r"n_boot=1000000000000: needs about .* GB of memory, over the limit"),
    (["--batch", HUGE], r"batch=1000000000, .* GB of memory, over the limit"),
    (["--examples", "1000000"], r"examples: the built-in generator cannot make 1000000 distinct facts"),
])
def test_diagnose_refuses_at_once(argv, pattern, tmp_path, capsys):
    import re

    line = _refused(["diagnose", "--smoke", *argv], tmp_path, capsys)
    assert re.search(pattern, line), line


@pytest.mark.parametrize("argv,pattern,lines", [
    (["--lengths", HUGE], r"lengths: T = 1000000000 needs 1000000001 positions", 1),  # + the marker
    (["--lengths", HUGE, "--allow-extrapolation"], r"remedies: lengths=1000000000, .*over the limit", 1),
    (["--length", HUGE], r"lengths: T = 1000000000 needs", 2),  # the old spelling: a hint, then the refusal
    (["--n-boot", "1000000000000"], r"n_boot=1000000000000, \d remedies: needs about .* GB of memory", 1),
    (["--batch", HUGE], r"batch=1000000000, .*over the limit", 1),
    (["--lengths", "48,64"], r"lengths: remedies measures one prompt length T \(run it once per length\)", 1),
    (["--dtype", "float16"], r"dtype must be one of \('float32', 'bfloat16'\)", 1),
])
def test_remedies_refuses_at_once(argv, pattern, lines, tmp_path, capsys):
    import re

    line = _refused(["remedies", "--smoke", *argv], tmp_path, capsys, lines=lines)
    assert re.search(pattern, line), line


def test_a_rerun_whose_config_holds_a_huge_length_refuses(tmp_path, capsys):
    """A config.json someone sent with lengths 10^9: the rerun refuses in one line (it hung before)."""
    cfg = script.build_config(diagnose, smoke=True)
    from lostmid_jax.runs.config import jsonable

    stored = jsonable(cfg)
    held = dict(stored, probe={**stored["probe"], "lengths": [int(HUGE)], "allow_extrapolation": True})
    for name, change in (("held", held), ("set", {})):
        run = tmp_path / name
        run.mkdir()
        (run / "config.json").write_text(json.dumps({"experiment": "diagnose", "smoke": True, "status": "done",
                                                     "config": change or stored}))
        argv = ["rerun", str(run)] + (["--set", f"lengths={HUGE}"] if not change else [])
        line = _refused(argv, tmp_path / name, capsys)
        assert ("GB of memory" if change else "beyond the checkpoint's trained context") in line, line


def test_old_length_spelling_and_config_still_read(capsys):
    parser = cli.build_parser("remedies")
    args = parser.parse_args(["remedies", "--smoke", "--length", "40"])
    cfg = script.config_from_args(remedies, args, args._flags)
    assert cfg.probe.lengths == (40,) and cfg.length == 40
    assert capsys.readouterr().err.strip() == ("lostmid remedies: --length is deprecated, use --probe.lengths (read the "
                                               "same way)")
    from lostmid_jax.runs.config import from_dict

    old = {"weights": remedies.RANDOM_TINY, "length": 48, "passages": 3}  # a config.json written before the rename
    assert from_dict(remedies.Config, old).probe.lengths == (48,)
    assert from_dict(remedies.Config, {**old, "lengths": [64]}).probe.lengths == (64,)  # --config FILE --lengths 64
    assert from_dict(remedies.Config, {**old, "probe": {"lengths": [64]}}).probe.lengths == (64,)
    assert script._undeprecated(remedies, "length=64") == "probe.lengths=64"
    assert "--set length is deprecated" in capsys.readouterr().err
