"""The CSV rows of a micro-training run (snapshots, profiles, strength, accuracy, documents), and its tables
read with the current intervention names."""

from __future__ import annotations

from .columns import COLUMNS
from .measure import Result


def profile_rows(runs: dict) -> list[dict]:
    """Rows of profiles.csv: intervention, seed, step, j (1-based), x = j/L, total, value, score."""
    rows = []
    for (variant, seed), res in runs.items():
        for snap in res.snapshots:
            p = snap["profiles"]
            length = len(p["total"])
            rows += [{"intervention": variant, "seed": seed, "step": snap["step"], "j": j + 1, "x": (j + 1) / length,
                      "total": p["total"][j], "value": p["value"][j], "score": p["score"][j]}
                     for j in range(length)]
    return rows


def snapshot_rows(records: list[dict]) -> list[dict]:
    """Rows of snapshots.csv: the scalar snapshot metrics (COLUMNS), None where a task has none (io.write_csv
    writes None and NaN as an empty field)."""
    return [{k: r.get(k) for k in COLUMNS["snapshots.csv"]} for r in records]


def _indexed(records: list[dict], prefix: str, column: str, value: str, extra=None) -> list[dict]:
    """Long rows (intervention, seed, step, <column> = 1-based index, [extra], <value>) of the record
    keys ``<prefix><k>`` (k 0-based)."""
    rows = []
    for r in records:
        keys = sorted((k for k in r if k.startswith(prefix) and k[len(prefix):].isdigit()),
                      key=lambda k: int(k[len(prefix):]))
        for k in keys:
            i = int(k[len(prefix):]) + 1
            rows.append({"intervention": r["intervention"], "seed": r["seed"], "step": r["step"], column: i,
                         **(extra(i) if extra else {}), value: r[k]})
    return rows


def records(result: Result) -> dict[str, list[dict]]:
    """snapshots.csv, profiles.csv, strength.csv, and accuracy.csv (tasks with retrieval) and documents.csv
    (tasks with documents)."""
    base, recs = result.config.base, result.records
    out = {"snapshots.csv": snapshot_rows(recs), "profiles.csv": profile_rows(result.runs),
           "strength.csv": _indexed(recs, "strength_", "layer", "a")}
    if base.task != "lm":
        bins = base.needle_bins
        out["accuracy.csv"] = _indexed(recs, "acc_bin", "bin", "accuracy", lambda b: {"x": (b - 0.5) / bins})
    if base.task in ("lm", "mixed"):
        out["documents.csv"] = _indexed(recs, "total_doc_u_c", "document", "doc_u")
    return {name: rows for name, rows in out.items() if rows}


def with_current_names(table):
    """A table whose intervention column uses the current names (runs written before the rename)."""
    from ...train.config import RENAMED_INTERVENTIONS

    if "intervention" not in getattr(table, "columns", ()):
        return table
    return table.assign(intervention=table["intervention"].replace(RENAMED_INTERVENTIONS))
