"""Coverage of candidate 95% intervals for the agreement statistics (Spearman, W1, noise ceiling).

    python benchmarks/interval_coverage.py [--trials 200 --n-boot 500 --rows 4 8 16 --kinds ... --out coverage.jsonl]
    python benchmarks/interval_coverage.py --out coverage.jsonl --summary   # every candidate, per S
    python benchmarks/interval_coverage.py --out coverage.jsonl --table     # stats/coverage.py's TABLE
    python benchmarks/interval_coverage.py --out coverage.jsonl --cells     # every cell, Wilson intervals

Synthetic ensembles (numpy/scipy only, no jax): S rows = truth * noise, L = 64,
reference the decreasing theory-like row of tests/stats/stats_helpers.py. Truths:
a decreasing profile with a bump in the middle, a U, and a nearly flat profile
with a recency spike (the qwen2-0.5b Step-0 shape: the last position about 6x the
middle); noises: the nine kinds of stats_helpers.ALL_KINDS (``--kinds`` picks some):
the six of KINDS and the Step-0-like STEP0_KINDS (log-noise AR(1) along positions,
heavy-tailed t_3 tilts of each seed's log-profile, a noisy last position). A cell
already in ``--out`` is skipped, so runs per S or per kind add up; 200 ensembles,
CPU about 2 (S = 4), 3 (S = 8) and 7 (S = 16) minutes for the 27 cells of one S.
For each cell (truth,
noise, S) ``trials`` ensembles are drawn and every candidate interval is checked
against the true value:

- Spearman, W1: the metric of E[p] (the expected normalized row, by Monte-Carlo
  with 200 000 rows) against the reference.
- noise ceiling: E[Spearman(mean of S rows, E[p])], the expected rank
  correlation of an S-row mean with the noiseless profile (Monte-Carlo, 4000
  ensembles of S rows).

Candidates (T the statistic on the S-row mean, T* its n_boot row-bootstrap
replicates, T_(i) the S leave-one-out values, t = t(0.975, S-1)):

  basic-k     2T - c -+ k (Q*(0.975 / 0.025) - c), c = median T*, k the small-S widening
              (stats.agreement.expansion); the interval agreement returned before
  basic       the same with k = 1
  percentile  (Q*(0.025), Q*(0.975))
  bca         Efron's bias-corrected and accelerated percentile (acceleration from the jackknife)
  jack-t      T_bc +- t SE_jack, T_bc = S T - (S - 1) mean T_(i) (the bias-corrected jackknife point,
              clipped to the statistic's range first)
  boot-t      studentized bootstrap: t*_b = (T*_b - T) / SE*_b with SE*_b the jackknife SE within
              replicate b; (T - Q_t(0.975) SE_jack, T - Q_t(0.025) SE_jack)
  ceiling: jack (ceiling +- t SE_jack, the interval agreement returned before), jack-bc (the
  bias-corrected jackknife point +- t SE_jack), jack-bc-z (the same on atanh of the ceiling).

Every interval is clipped to the statistic's range. Each cell writes one JSON
line (hits per method, trials, the true values, the mean point and mean
bias-corrected point) to ``--out``; ``--summary`` prints the table from a
finished file. Wilson 95% intervals of each coverage come from
lostmid_jax.stats.intervals.wilson_interval. Measured numbers: docs/step0.md
("How well the intervals cover") and lostmid_jax/stats/coverage.py.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small products: threads only cost on a shared machine

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "stats"))

from stats_helpers import ALL_KINDS, TRUTHS, decreasing, noise, truth_profile  # noqa: E402

from lostmid_jax.stats.agreement import (_ceiling, _reliabilities, bootstrap_weights, expansion,  # noqa: E402
                                         spearman_rows, wasserstein_rows)
from lostmid_jax.stats.coverage import regime  # noqa: E402
from lostmid_jax.stats.intervals import wilson_interval  # noqa: E402

LENGTH = 64
METHODS = ("basic-k", "basic", "percentile", "bca", "jack-t", "boot-t")
CEILING_METHODS = ("jack", "jack-bc", "jack-bc-z")
CHOSEN = {"spearman": "basic-k", "wasserstein": "jack-t", "ceiling": "jack"}  # what agreement returns
BOUNDS = {"spearman": (-1.0, 1.0), "wasserstein": (0.0, 1.0)}
Z = float(stats.norm.ppf(0.975))


def _metric(name, means, q):
    if name == "spearman":
        return spearman_rows(means, q)
    return wasserstein_rows(means, np.broadcast_to(q, means.shape))


def candidate_intervals(name: str, p: np.ndarray, q: np.ndarray, n_boot: int, seed: int) -> dict:
    """{method: (lo, hi)} and the points for one ensemble p [S, B] (normalized rows) against q [B]."""
    rows = p.shape[0]
    lo_b, hi_b = BOUNDS[name]
    t = float(stats.t.ppf(0.975, rows - 1))
    point = float(_metric(name, p.mean(0)[None], q)[0])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, rows, size=(n_boot, rows))
    means = p[idx].mean(1)  # [n_boot, B]
    reps = _metric(name, means, q)
    jack = _metric(name, (p.sum(0) - p) / (rows - 1), q)  # [S]
    se = math.sqrt((rows - 1) / rows * float(np.sum((jack - jack.mean()) ** 2)))
    out = {}
    q_lo, c, q_hi = np.quantile(reps, [0.025, 0.5, 0.975])
    k = expansion(rows)
    out["basic-k"] = (2 * point - c - k * (q_hi - c), 2 * point - c - k * (q_lo - c))
    out["basic"] = (2 * point - q_hi, 2 * point - q_lo)
    out["percentile"] = (q_lo, q_hi)
    frac = (np.sum(reps < point) + 0.5 * np.sum(reps == point)) / reps.size
    z0 = float(stats.norm.ppf(np.clip(frac, 1e-6, 1 - 1e-6)))
    d = jack.mean() - jack
    den = 6 * float(np.sum(d * d)) ** 1.5
    acc = float(np.sum(d ** 3)) / den if den > 0 else 0.0
    levels = [stats.norm.cdf(z0 + (z0 + zz) / (1 - acc * (z0 + zz))) for zz in (-Z, Z)]
    out["bca"] = tuple(np.quantile(reps, levels))
    bc = min(max(rows * point - (rows - 1) * float(jack.mean()), lo_b), hi_b)  # an over-correction stops at the bound
    out["jack-t"] = (bc - t * se, bc + t * se)
    # boot-t: the jackknife SE inside each replicate (leave drawn row k out of replicate b)
    inner = (means[:, None, :] * rows - p[idx]) / (rows - 1)  # [n_boot, S, B]
    inner_t = _metric(name, inner.reshape(-1, p.shape[1]), q).reshape(n_boot, rows)
    se_b = np.sqrt((rows - 1) / rows * np.sum((inner_t - inner_t.mean(1, keepdims=True)) ** 2, axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        tstar = np.where(se_b > 0, (reps - point) / se_b, np.nan)
    tstar = tstar[np.isfinite(tstar)]
    if tstar.size and se > 0:
        a, b = np.quantile(tstar, [0.025, 0.975])
        out["boot-t"] = (point - b * se, point - a * se)
    else:
        out["boot-t"] = (point, point)
    out = {m: (max(float(lo), lo_b), min(float(hi), hi_b)) for m, (lo, hi) in out.items()}
    return {"ci": out, "point": point, "bc": bc, "boot_bc": 2 * point - float(np.mean(reps))}


def ceiling_intervals(p: np.ndarray, splits: int, seed: int) -> dict:
    """{method: (lo, hi)} of the noise ceiling (stats.agreement.noise_ceiling's estimate) of p [S, B]."""
    rows = p.shape[0]
    rng = np.random.default_rng(seed)
    keeps = np.vstack([np.ones((1, rows), bool), ~np.eye(rows, dtype=bool)])
    rel = _reliabilities(p, keeps, splits, rng)
    vals = _ceiling(rel)
    point, jack = float(vals[0]), vals[1:]
    t = float(stats.t.ppf(0.975, rows - 1))
    se = math.sqrt((rows - 1) / rows * float(np.sum((jack - jack.mean()) ** 2)))
    bc = rows * point - (rows - 1) * float(jack.mean())
    zc = np.arctanh(np.clip(np.append(point, jack), 0, 1 - 1e-9))
    zbc = rows * zc[0] - (rows - 1) * zc[1:].mean()
    zse = math.sqrt((rows - 1) / rows * float(np.sum((zc[1:] - zc[1:].mean()) ** 2)))
    out = {"jack": (point - t * se, point + t * se), "jack-bc": (bc - t * se, bc + t * se),
           "jack-bc-z": (math.tanh(zbc - t * zse), math.tanh(zbc + t * zse))}
    return {"ci": {m: (max(lo, 0.0), min(hi, 1.0)) for m, (lo, hi) in out.items()}, "point": point,
            "bc": min(max(bc, 0.0), 1.0)}


def _normalize(rows):
    return rows / rows.sum(1, keepdims=True)


def truths(truth: np.ndarray, kind: str, rows: int, q: np.ndarray, rng) -> dict:
    """True Spearman and W1 of E[p] vs q, and the ceiling's target E[Spearman(S-row mean, E[p])]."""
    mu = sum(_normalize(truth * noise(kind, 20_000, truth.size, rng)).mean(0) for _ in range(10)) / 10
    ens = _normalize(truth * noise(kind, 4000 * rows, truth.size, rng)).reshape(4000, rows, -1).mean(1)
    return {"spearman": float(spearman_rows(mu[None], q)[0]), "wasserstein": float(wasserstein_rows(mu[None], q[None])[0]),
            "ceiling": float(np.mean(spearman_rows(ens, mu)))}


def run_cell(truth_name: str, kind: str, rows: int, trials: int, n_boot: int, splits: int, seed: int) -> dict:
    truth = truth_profile(truth_name, LENGTH)
    q = decreasing(LENGTH)
    q = q / q.sum()
    rng = np.random.default_rng(seed)
    target = truths(truth, kind, rows, q, rng)
    hits = {f"{m}:{x}": 0 for x in ("spearman", "wasserstein") for m in METHODS}
    hits.update({f"{m}:ceiling": 0 for m in CEILING_METHODS})
    sums = {k: 0.0 for k in ("spearman", "spearman_bc", "spearman_boot_bc", "wasserstein", "wasserstein_bc",
                             "wasserstein_boot_bc", "ceiling", "ceiling_bc")}
    for trial in range(trials):
        p = _normalize(truth * noise(kind, rows, LENGTH, rng))
        for name in ("spearman", "wasserstein"):
            res = candidate_intervals(name, p, q, n_boot, seed + trial)
            for m, (lo, hi) in res["ci"].items():
                hits[f"{m}:{name}"] += int(lo <= target[name] <= hi)
            sums[name] += res["point"] / trials
            sums[f"{name}_bc"] += res["bc"] / trials
            sums[f"{name}_boot_bc"] += res["boot_bc"] / trials
        res = ceiling_intervals(p, splits, seed + trial)
        for m, (lo, hi) in res["ci"].items():
            hits[f"{m}:ceiling"] += int(lo <= target["ceiling"] <= hi)
        sums["ceiling"] += res["point"] / trials
        sums["ceiling_bc"] += res["bc"] / trials
    return {"truth": truth_name, "noise": kind, "rows": rows, "trials": trials, "n_boot": n_boot, "splits": splits,
            "target": target, "mean": sums, "hits": hits}


def summary(path: pathlib.Path) -> None:
    """Per metric, method and S: the range of coverage over the cells, and each cell with its Wilson interval."""
    cells = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    keys = sorted({k for c in cells for k in c["hits"]}, key=lambda k: (k.split(":")[1], k))
    for key in keys:
        for rows in sorted({c["rows"] for c in cells}):
            sel = [c for c in cells if c["rows"] == rows]
            covs = [c["hits"][key] / c["trials"] for c in sel]
            worst = min(sel, key=lambda c: c["hits"][key])
            lo, hi = wilson_interval(worst["hits"][key], worst["trials"])
            inside = sum(0.93 <= v <= 0.97 for v in covs)
            print(f"{key:<24} S={rows:<3} coverage {min(covs):.3f}-{max(covs):.3f} (mean {np.mean(covs):.3f}; "
                  f"{inside}/{len(covs)} cells in 0.93-0.97; worst {worst['truth']}/{worst['noise']} "
                  f"[{lo:.3f}, {hi:.3f}])")


def every_cell(path: pathlib.Path) -> None:
    """One line per cell: the coverage of each chosen method (CHOSEN) with its 95% Wilson interval."""
    for line in path.read_text().splitlines():
        c = json.loads(line)
        parts = []
        for metric, method in CHOSEN.items():
            k = c["hits"][f"{method}:{metric}"]
            lo, hi = wilson_interval(k, c["trials"])
            parts.append(f"{metric} {k / c['trials']:.3f} [{lo:.3f}, {hi:.3f}]")
        print(f"{c['truth']:<16}{c['noise']:<16}S={c['rows']:<3}" + "  ".join(parts))


def table(path: pathlib.Path) -> None:
    """Print lostmid_jax.stats.coverage.TABLE for the chosen methods (CHOSEN) from a finished file."""
    cells = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for metric, method in CHOSEN.items():
        key = f"{method}:{metric}"
        groups = {}
        for c in cells:
            name = regime(metric, value=c["target"]["wasserstein"], ceiling=c["target"]["ceiling"])
            groups.setdefault((name, c["rows"]), []).append(c)
        for (name, rows), sel in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            covs = np.array([c["hits"][key] / c["trials"] for c in sel])
            worst = min(sel, key=lambda c: c["hits"][key] / c["trials"])
            lo, hi = wilson_interval(worst["hits"][key], worst["trials"])
            print(f'    Coverage("{metric}", "{method}", "{name}", {rows}, {len(sel)}, {covs.mean():.3f}, '
                  f'{covs.min():.3f}, {covs.max():.3f}, "{worst["truth"]}/{worst["noise"]}", ({lo:.3f}, {hi:.3f})),')


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--n-boot", type=int, default=500)
    ap.add_argument("--splits", type=int, default=200)
    ap.add_argument("--rows", type=int, nargs="+", default=[4, 8, 16])
    ap.add_argument("--truths", nargs="+", default=list(TRUTHS))
    ap.add_argument("--kinds", "--noises", dest="kinds", nargs="+", default=list(ALL_KINDS),
                    help="noise kinds of stats_helpers (default: all 9, ALL_KINDS)")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("interval_coverage.jsonl"))
    ap.add_argument("--summary", action="store_true", help="print the table of a finished --out and stop")
    ap.add_argument("--table", action="store_true", help="print stats.coverage.TABLE from a finished --out and stop")
    ap.add_argument("--cells", action="store_true", help="print every cell of a finished --out (chosen methods, "
                                                          "Wilson intervals) and stop")
    args = ap.parse_args(argv)
    for name, given, known in (("--kinds", args.kinds, ALL_KINDS), ("--truths", args.truths, TRUTHS)):
        unknown = sorted(set(given) - set(known))
        if unknown:
            ap.error(f"{name} must be among {list(known)}, got {unknown}")
    for flag, show in ((args.summary, summary), (args.table, table), (args.cells, every_cell)):
        if flag:
            show(args.out)
            return
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            c = json.loads(line)
            done.add((c["truth"], c["noise"], c["rows"]))
    for rows in args.rows:
        for truth_name in args.truths:
            for kind in args.kinds:
                if (truth_name, kind, rows) in done:
                    continue
                start = time.perf_counter()
                cell = run_cell(truth_name, kind, rows, args.trials, args.n_boot, args.splits,
                                seed=1000 * rows + 97 * TRUTHS.index(truth_name) + ALL_KINDS.index(kind))
                with args.out.open("a") as fh:
                    fh.write(json.dumps(cell) + "\n")
                cov = {k: round(v / args.trials, 3) for k, v in cell["hits"].items()}
                print(f"{truth_name} {kind} S={rows} ({time.perf_counter() - start:.0f} s): {cov}", flush=True)


if __name__ == "__main__":
    main()
