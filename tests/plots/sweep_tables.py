"""An experiment's tables as load_run gives them: the records written with runs.write_csv, read back with pandas."""

import pathlib
import tempfile

from lostmid_jax import runs
from lostmid_jax.experiments import depth_sweep
from lostmid_jax.runs import read_tables


def tables_of(module, cfg) -> dict:
    """{CSV stem: DataFrame} of ``module.run(cfg)``, through the CSV files (as the runner and load_run read them)."""
    result = module.run(cfg, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        for name, rows in module.records(result).items():
            runs.write_csv(pathlib.Path(tmp) / name, rows)
        return read_tables(tmp)


def sweep_tables(cfg) -> dict:
    """{"results": DataFrame, "profiles": DataFrame} of ``depth_sweep.run(cfg)``, through the CSV files."""
    return tables_of(depth_sweep, cfg)
