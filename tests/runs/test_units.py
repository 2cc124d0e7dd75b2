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
