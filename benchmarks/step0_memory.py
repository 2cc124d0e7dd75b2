"""Peak memory of a Step-0 run against its memory plan, at a few lengths, each run in its own process.

    python benchmarks/step0_memory.py                                   # toy, L = 1024, 4096, 8192
    python benchmarks/step0_memory.py --lengths 2048 --method exact --preset toy

For each L the parent prints the plan of `lostmid step0 --preset P --length L --seeds 1 --variants native`
(lostmid_jax.experiments.step0.memory_plan: runtime + weights + the largest of the profile's backward
passes, the a_l forward, the heat-map capture and the summary's bootstrap) and runs it (figures off) in a
child process, whose peak resident set is the run's own record (config.json peak_rss_gb: the run process's
VmHWM, every buffer XLA allocated and the compilation included; lostmid_jax.resources.peak_resident_bytes).
Not getrusage's ru_maxrss (the child's own or os.wait4's): Linux carries the launching process's peak into it
across exec, so launched from a 2 GB pytest process the run reported 2.1-2.3 GB against its plan of 1.14.
The default estimator is randomized with 2 probes: the peak depends on the chunk (1 at these lengths), not
on the number of cotangents, and the run stays short.

Measured (2 shared CPU cores, 23 GB, load average 1-4; toy, randomized, 2 probes, split; GB = 1e9 bytes;
the compilation cache cold, then warm at 4096 and 8192):

    L      plan   peak        peak / plan   wall
    1024   0.74   0.55        0.75          15 s
    2048   1.14   0.94        0.82          19 s
    4096   1.95   1.33        0.68          25 s, 16 s
    8192   5.99   3.00-3.93   0.50-0.66     64 s, 31 s
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def planned(preset: str, length: int, method: str, probes: int):
    """The UnitMemory of the run (the largest variant's; one variant here)."""
    from lostmid_jax.experiments.step0 import memory_plan
    from lostmid_jax.experiments.step0.config import Config

    cfg = Config(models={"presets": (preset,)}, variants=("native",),
                 influence={"length": length, "seeds": 1, "method": method, "probes": probes})
    return memory_plan.plan(cfg)[0]


def measured(preset: str, length: int, method: str, probes: int) -> tuple[float, float]:
    """(peak resident bytes, wall seconds) of the run in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "lostmid_jax.cli", "step0", "--preset", preset, "--length", str(length),
               "--seeds", "1", "--variants", "native", "--method", method, "--probes", str(probes), "--no-figures",
               "--no-progress", "--out", os.path.join(tmp, "run")]
        with open(os.path.join(tmp, "stderr.txt"), "w+b") as log:  # a pipe could fill and block the child
            start = time.perf_counter()
            code = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=log)
            wall = time.perf_counter() - start
            log.seek(0)
            err = log.read().decode(errors="replace")
        if code != 0:
            raise SystemExit(f"L={length}: the run failed: {err.strip().splitlines()[-1] if err.strip() else code}")
        with open(os.path.join(tmp, "run", "config.json")) as file:
            return json.load(file)["peak_rss_gb"] * 1e9, wall  # the run process's own peak (its VmHWM)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="toy")
    p.add_argument("--lengths", default="1024,4096,8192", help="comma-separated L (default 1024,4096,8192)")
    p.add_argument("--method", default="randomized", choices=("exact", "randomized", "one-pass"))
    p.add_argument("--probes", type=int, default=2)
    args = p.parse_args()
    lengths = [int(v) for v in args.lengths.split(",") if v]
    print(f"preset {args.preset}, method {args.method} ({args.probes} probes), 1 seed, native; GB = 1e9 bytes; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'L':>6}  {'plan GB':>8}  {'peak GB':>8}  {'peak/plan':>9}  {'wall s':>7}  plan")
    for length in lengths:
        unit = planned(args.preset, length, args.method, args.probes)
        peak, wall = measured(args.preset, length, args.method, args.probes)
        print(f"{length:>6}  {unit.peak / 1e9:>8.2f}  {peak / 1e9:>8.2f}  {peak / unit.peak:>9.2f}  {wall:>7.1f}  {unit}",
              flush=True)


if __name__ == "__main__":
    main()
