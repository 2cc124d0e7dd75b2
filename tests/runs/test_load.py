"""Runs read back as data: one NA encoding, typed tables, every column in the run's dictionary."""

import csv
import json

import numpy as np
import pandas as pd
import pytest

from lostmid_jax import runs
from lostmid_jax.experiments import load
from run_params import experiment_params
from lostmid_jax.runs import UNDOCUMENTED, StoredConfigWarning, read_table

def test_write_csv_has_one_na_encoding_and_read_table_types_it(tmp_path):
    rows = [{"j": 1, "x": 0.5, "v": None, "w": float("nan"), "f": True, "g": True, "label": "none"},
            {"j": 2, "x": 1.0, "v": 2.5, "w": np.float32("nan"), "f": False, "g": None, "label": "a=1"},
            {"j": 3, "x": 1.5, "v": np.float64(np.nan), "w": np.inf, "f": np.bool_(True), "g": False, "label": "NA"}]
    runs.write_csv(tmp_path / "t.csv", rows)
    text = (tmp_path / "t.csv").read_text()
    assert text.splitlines() == ["j,x,v,w,f,g,label", "1,0.5,,,True,True,none", "2,1.0,2.5,,False,,a=1",
                                 "3,1.5,,inf,True,False,NA"]
    frame = read_table(tmp_path / "t.csv")
    assert frame["j"].dtype == np.int64 and frame["x"].dtype == np.float64
    assert frame["v"].dtype == np.float64 and np.isnan(frame["v"][0]) and frame["v"][1] == 2.5
    assert frame["w"].isna().tolist() == [True, True, False] and frame["w"][2] == np.inf
    assert frame["f"].dtype == bool and frame["f"].tolist() == [True, False, True]
    assert str(frame["g"].dtype) == "boolean" and frame["g"].isna().tolist() == [False, True, False]
    assert frame["label"].tolist() == ["none", "a=1", "NA"]  # only the empty field is missing


def test_integer_columns_with_empty_fields_stay_integers(tmp_path):
    runs.write_csv(tmp_path / "t.csv", [{"n": 256, "m": 1.0, "k": -3}, {"n": None, "m": None, "k": None},
                                        {"n": 1024, "m": 2.5, "k": 7}])
    frame = read_table(tmp_path / "t.csv")
    assert str(frame["n"].dtype) == "Int64" and frame["n"].tolist()[0] == 256 and frame["n"].isna().tolist() == [
        False, True, False]
    assert str(frame["k"].dtype) == "Int64" and frame["k"][2] == 7
    assert frame["m"].dtype == np.float64  # "1.0" is a float field: the column stays float


def test_run_repr_is_one_short_line(smoke_runs):
    run = runs.load_run(smoke_runs("depth_sweep"))
    text = repr(run)
    assert "\n" not in text and len(text) < 300 and "depth_sweep" in text
    assert all(f"{stem}: {frame.shape[0]}x{frame.shape[1]}" in text for stem, frame in run.tables.items())


def test_load_run_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(ValueError, match="no config.json"):
        runs.load_run(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"experiment": "nope", "config": {}}))
    with pytest.raises(ValueError, match="no known experiment"):
        runs.load_run(tmp_path)


def test_config_that_no_longer_validates_is_kept_unchecked(tmp_path):
    """A shared run whose config cannot be checked here (a checkpoint that is elsewhere) still loads."""
    exp = load("depth_sweep")
    (tmp_path / "config.json").write_text(json.dumps({"experiment": "depth_sweep",
                                                      "config": {"depths": [1, 2], "band": 0.9}}))
    with pytest.warns(StoredConfigWarning, match="band"):
        run = runs.load_run(tmp_path)
    assert isinstance(run.config, exp.Config) and run.config.depths == (1, 2) and run.config.band == 0.9
    assert run.tables == {} and run.columns == {} and run.verdict is None and run.figures == ()


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "-nan", "+nan")


def _check_column(name: str, column: str, raw: list[str], series: pd.Series) -> None:
    """The column's dtype matches its raw fields: True/False -> bool, numbers -> numeric, never mixed."""
    fields = [v for v in raw if v != ""]
    where = f"{name}.csv column {column!r}"
    assert not [v for v in fields if v.strip().lower() == "nan"], f"{where}: 'nan' written as data"
    if fields and set(fields) <= {"True", "False"}:
        assert pd.api.types.is_bool_dtype(series), f"{where}: True/False fields read as {series.dtype}"
        return
    numbers = [v for v in fields if _is_number(v)]
    if numbers and len(numbers) == len(fields):
        assert pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series), \
            f"{where}: numeric fields read as {series.dtype}"
        integers = all(v.lstrip("+-").isdigit() for v in fields)
        assert not (integers and len(fields) < len(raw)) or str(series.dtype) == "Int64", \
            f"{where}: integers with empty fields read as {series.dtype}, not Int64"
        return
    words = sorted({v for v in fields if not _is_number(v)})
    assert not numbers, (f"{where} mixes numbers and words {words[:5]}: missing values are empty fields, "
                         "and a flag such as the continuum limit needs its own column")


@pytest.mark.parametrize("name", experiment_params())
def test_smoke_run_loads_typed_and_every_column_is_documented(name, smoke_runs):
    """load_run on a fresh smoke run: the Config back, every CSV typed from its raw fields, and every
    column of every CSV in the run's columns.csv with the meaning and unit of the module's COLUMNS."""
    run_dir = smoke_runs(name)
    run = runs.load_run(run_dir)
    exp = load(name)
    assert run.experiment == name and isinstance(run.config, exp.Config)
    stored = json.loads((run_dir / "config.json").read_text())
    assert runs.jsonable(run.config) == stored["config"]
    assert run.verdict and run.verdict.strip()
    assert run.tables, f"{name} wrote no CSV"
    documented = {k.removesuffix(".csv"): v for k, v in exp.COLUMNS.items()}
    for stem, frame in run.tables.items():
        with open(run_dir / f"{stem}.csv", newline="") as f:
            header, *rows = list(csv.reader(f))
        assert list(frame.columns) == header and len(frame) == len(rows) > 0
        assert list(run.columns.get(stem, {})) == header, f"{stem}.csv: columns.csv lists other columns"
        for i, column in enumerate(header):
            meaning, unit = run.columns[stem][column]
            assert meaning and meaning != UNDOCUMENTED, f"{stem}.csv column {column!r} is undocumented"
            assert documented[stem][column] == (meaning, unit)
            _check_column(stem, column, [r[i] for r in rows], frame[column])
    assert [p.name for p in run.figures] == sorted(stored["figures"]) and run.figures
