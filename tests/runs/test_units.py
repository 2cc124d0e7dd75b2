"""The unit store: units/<stem>.npz, saved atomically, read back equal."""

import numpy as np

from lostmid_jax.runs import UnitStore


def test_unit_store_round_trip(tmp_path):
    store = UnitStore(tmp_path)
    assert store.directory == tmp_path / "units" and store.directory.is_dir()
    assert not store.done("a__s0")
    store.save("a__s0", {"norms": np.arange(3.0), "seconds": np.asarray(1.5)})
    assert store.done("a__s0") and [p.name for p in store.directory.iterdir()] == ["a__s0.npz"]
    back = UnitStore(tmp_path).load("a__s0")
    assert set(back) == {"norms", "seconds"} and np.array_equal(back["norms"], np.arange(3.0))
