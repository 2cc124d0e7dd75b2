"""The unit store: units/<stem>.npz, saved atomically, read back equal."""

import numpy as np

from lostmid_jax.runs import UnitStore


def test_unit_store_round_trip(tmp_path):
    store = UnitStore(tmp_path)
    assert store.directory == tmp_path / "units" and store.directory.is_dir()
    assert not store.done("a__s0")
    store.save("a__s0", {"norms": np.arange(3.0), "seconds": np.asarray(1.5)})
    # the timing apart from the unit's arrays, so unit files of two runs of one config are identical
    assert store.done("a__s0") and sorted(p.name for p in store.directory.iterdir()) == ["a__s0.npz", "timings.json"]
    assert "seconds" not in np.load(store.path("a__s0")).files
    back = UnitStore(tmp_path).load("a__s0")
    assert set(back) == {"norms", "seconds"} and np.array_equal(back["norms"], np.arange(3.0))


def test_a_unit_file_that_fails_to_load_is_named_with_the_advice_to_delete_it(tmp_path):
    import pytest

    store = UnitStore(tmp_path)
    store.save("a__s0", {"norms": np.arange(3.0)})
    data = store.path("a__s0").read_bytes()
    for damaged in (data[: len(data) // 2], b"not a zip file", b""):
        store.path("a__s0").write_bytes(damaged)
        with pytest.raises(ValueError, match=r"unit file .*a__s0.npz cannot be read .*delete it and run the same"):
            store.load("a__s0")


def test_a_corrupt_step0_unit_is_one_line_naming_it(smoke_runs, tmp_path, capsys):
    """Before: resuming a step0 run with a damaged units/*.npz ended in a traceback from numpy's zip reader."""
    import shutil

    import pytest

    from lostmid_jax import cli

    run = tmp_path / "run"
    shutil.copytree(smoke_runs("step0"), run)
    unit = sorted((run / "units").glob("*.npz"))[0]
    unit.write_bytes(unit.read_bytes()[:100])
    with pytest.raises(SystemExit) as exc:
        cli.main(["rerun", str(run), "--out", str(run), "--no-progress"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"unit file {unit} cannot be read" in err and "delete it" in err
