"""A depth sweep's tables as load_run gives them: the records written with io.write_csv, read back with pandas."""

import pathlib
import tempfile

from lostmid_jax import io
from lostmid_jax.experiments import depth_sweep
from lostmid_jax.results import read_tables


def sweep_tables(cfg) -> dict:
    """{"results": DataFrame, "profiles": DataFrame} of ``depth_sweep.run(cfg)``, through the CSV files."""
    result = depth_sweep.run(cfg, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        for name, rows in depth_sweep.records(result).items():
            io.write_csv(pathlib.Path(tmp) / name, rows)
        return read_tables(tmp)
