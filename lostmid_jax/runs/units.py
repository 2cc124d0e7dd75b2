"""The unit store of a run directory: one finished unit of work per file, units/<stem>.npz.

A unit's arrays are written under a temporary name, then renamed, so a run
that fails keeps what it finished and the same run directory resumes where it
stopped (:func:`UnitStore.done` says which are there).

    store = UnitStore(run_dir)             # creates run_dir/units
    if store.done(stem):
        arrays = store.load(stem)          # {name: np.ndarray}
    else:
        store.save(stem, measure(...))
"""

from __future__ import annotations

import pathlib

from .atomic import replacing

UNITS_DIR = "units"
"""The folder of a run directory that holds its units."""


def load_unit(path: pathlib.Path) -> dict:
    """{name: np.ndarray} of the .npz file ``path``."""
    import numpy as np

    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def save_unit(path: pathlib.Path, arrays: dict) -> None:
    """Save ``arrays`` as the .npz file ``path`` (written under a fresh temporary name, then renamed)."""
    import numpy as np

    with replacing(path) as f:
        np.savez(f, **arrays)


class UnitStore:
    """The units of one run directory: ``run_dir``/units/<stem>.npz (the folder is created)."""

    def __init__(self, run_dir):
        self.directory = pathlib.Path(run_dir) / UNITS_DIR
        self.directory.mkdir(parents=True, exist_ok=True)

    def path(self, stem: str) -> pathlib.Path:
        """The file of unit ``stem``."""
        return self.directory / f"{stem}.npz"

    def done(self, stem: str) -> bool:
        """True when unit ``stem`` is saved."""
        return self.path(stem).exists()

    def load(self, stem: str) -> dict:
        """The arrays of unit ``stem``."""
        return load_unit(self.path(stem))

    def save(self, stem: str, arrays: dict) -> None:
        """Save unit ``stem`` atomically."""
        save_unit(self.path(stem), arrays)


__all__ = ["UNITS_DIR", "UnitStore", "load_unit", "save_unit"]
