"""The unit store of a run directory: one finished unit of work per file, units/<stem>.npz.

A unit's arrays are written under a temporary name, then renamed, so a run
that fails keeps what it finished and the same run directory resumes where it
stopped (:func:`UnitStore.done` says which are there). Timing entries
(:data:`TIMING_KEYS`: a unit's wall time) are kept out of the unit files, in
units/timings.json of their own, so two runs of one config write identical
unit files; :meth:`UnitStore.load` gives them back. A unit file that cannot be
read is named, with the advice to delete it (the run then measures it again).

    store = UnitStore(run_dir)             # creates run_dir/units
    if store.done(stem):
        arrays = store.load(stem)          # {name: np.ndarray}
    else:
        store.save(stem, measure(...))
"""

from __future__ import annotations

import json
import pathlib

from ..atomic import replacing, write_atomic
from ..untrusted import read_json
from . import stop
from .ledger import note

UNITS_DIR = "units"
"""The folder of a run directory that holds its units."""

TIMING_KEYS = ("seconds", "compile_seconds", "device_seconds", "host_seconds", "compiles")
"""Unit entries that are timings (wall seconds, its split into compile, device and host seconds, and the
programs compiled: :class:`lostmid_jax.compile_time.TimeSplit`): stored in units/timings.json, not in the unit file."""

TIMINGS_FILE = "timings.json"


def load_unit(path: pathlib.Path) -> dict:
    """{name: np.ndarray} of the .npz file ``path`` (a regular file; no pickles).

    Raises:
      ValueError: naming the file when it cannot be read (truncated, not an .npz, a symlink out of its
        folder), with the advice to delete it so that the run measures that unit again.
    """
    import zipfile

    import numpy as np

    from .inside import check_inside

    path = pathlib.Path(path)
    try:
        check_inside(path.parent, path)
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as err:
        raise ValueError(f"unit file {path} cannot be read ({type(err).__name__}: {str(err)[:160]}); delete it "
                         "and run the same command again to measure that unit anew") from None


def save_unit(path: pathlib.Path, arrays: dict) -> None:
    """Save ``arrays`` as the .npz file ``path`` (written under a fresh temporary name, then renamed)."""
    import numpy as np

    with replacing(path) as f:
        np.savez(f, **arrays)


class UnitStore:
    """The units of one run directory: ``run_dir``/units/<stem>.npz (the folder is created)."""

    def __init__(self, run_dir):
        self.directory = pathlib.Path(run_dir) / UNITS_DIR
        note(self.directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def path(self, stem: str) -> pathlib.Path:
        """The file of unit ``stem``."""
        return self.directory / f"{stem}.npz"

    def done(self, stem: str) -> bool:
        """True when unit ``stem`` is saved."""
        return self.path(stem).exists()

    def load(self, stem: str) -> dict:
        """The arrays of unit ``stem`` (its timings added back from units/timings.json)."""
        import numpy as np

        arrays = load_unit(self.path(stem))
        arrays.update({k: np.asarray(v) for k, v in self._timings().get(stem, {}).items()})
        return arrays

    def save(self, stem: str, arrays: dict) -> None:
        """Save unit ``stem`` atomically; its timing entries go to units/timings.json. A signal received
        while the unit was measured stops the run once it is saved (:mod:`.stop`), not before."""
        timings = {k: float(arrays[k]) for k in TIMING_KEYS if k in arrays}
        with stop.shielded():
            save_unit(self.path(stem), {k: v for k, v in arrays.items() if k not in TIMING_KEYS})
            if timings:
                record = self._timings()
                record[stem] = timings
                write_atomic(self.directory / TIMINGS_FILE, json.dumps(record, indent=1, sort_keys=True) + "\n")
        stop.check()

    def _timings(self) -> dict:
        path = self.directory / TIMINGS_FILE
        try:
            record = read_json(path) if path.is_file() and not path.is_symlink() else {}
        except ValueError:
            return {}  # timings are not results: a damaged file only loses them
        return record if isinstance(record, dict) else {}


__all__ = ["TIMING_KEYS", "UNITS_DIR", "UnitStore", "load_unit", "save_unit"]
