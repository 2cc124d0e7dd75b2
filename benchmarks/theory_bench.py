"""Timings of the theory engine against baselines measured in the same run.

    python benchmarks/theory_bench.py [--quick]

Prints, for this machine:
  1. float64 row, L = 1_000_000, H = 64 (target < 1 s);
  2. arb at 50 digits, L = 10_000, H = 24 (target < 0.5 s), against mpmath at
     the same precision;
  3. the O(H L) float64 row against the dense rollout (N^H as H products of
     L x L matrices, as attention-rollout code does it) at L = 2048, H = 24
     (target >= 1000x);
  4. the structured rows of other attention priors (sliding window, chunks;
     lostmid_jax.masks) against the same dense rollout with their
     dense Step-0 matrix, L = 2048, H = 24 (target >= 100x);
  5. the compiled float64 pass (theory/native_row.py, what influence_row runs for causal and chunk
     rows) against today's numpy passes (the path $LOSTMID_THEORY_NATIVE=0 keeps), in alternating
     rounds of one run, each checked bit-identical: the row at L = 1_000_000, H = 64 (target: within
     3x of the memory-bandwidth bound, H passes of one read and one write of the row, measured here
     as H copies of a float64 [L] array), a chunk row, and a grid of 200 rows at L = 2048, H = 24
     (a scan over a).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time

import numpy as np

from lostmid_jax import theory
from lostmid_jax.theory import native_row
from lostmid_jax.theory.prior_matrix import attention_matrix


def best_time(fn, repeats: int) -> float:
    """Smallest wall time of ``repeats`` calls (seconds)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def dense_rollout_last_row(length: int, depth: int, alpha: float, prior=None) -> np.ndarray:
    """Baseline: R = N_H ... N_1 by dense L x L float64 products, last row.

    N = (1 - a) I + a A with A the Cesàro matrix, or ``prior``'s dense matrix.
    """
    if prior is None:
        mixing = theory.mixing_matrix(length, alpha)
    else:
        mixing = (1.0 - alpha) * np.eye(length) + alpha * attention_matrix(prior, length)
    product = np.eye(length)
    for _ in range(depth):
        product = mixing @ product
    return product[-1]


@contextlib.contextmanager
def numpy_passes():
    """influence_row with the compiled kernel switched off: today's numpy path."""
    before = os.environ.get(native_row.ENV)
    os.environ[native_row.ENV] = "0"
    try:
        yield
    finally:
        os.environ.pop(native_row.ENV) if before is None else os.environ.__setitem__(native_row.ENV, before)


def paired_times(fast, slow, rounds: int) -> tuple[float, float]:
    """Best wall times of ``fast`` and of ``slow`` (run under :func:`numpy_passes`), alternating rounds."""
    t_fast, t_slow = [], []
    for _ in range(rounds):
        t_fast.append(best_time(fast, 1))
        with numpy_passes():
            t_slow.append(best_time(slow, 1))
    return min(t_fast), min(t_slow)


def bandwidth_bound(length: int, depth: int) -> float:
    """Seconds of ``depth`` copies of a float64 [length] array (one read and one write per layer), best of 5."""
    src, dst = np.random.default_rng(0).random(length), np.empty(length)

    def copies():
        for _ in range(depth):
            np.copyto(dst, src)

    return best_time(copies, 5)


def compare_compiled(name: str, compute, rounds: int) -> float:
    """Print compiled vs numpy seconds of ``compute()`` (same function, kernel on / off) and their bits."""
    fast = compute()
    with numpy_passes():
        slow = compute()
    same = all(np.asarray(x).tobytes() == np.asarray(y).tobytes() for x, y in zip(fast, slow))
    t_fast, t_slow = paired_times(compute, compute, rounds)
    print(name)
    report("  compiled pass", t_fast, "")
    report("  numpy passes (today's path)", t_slow, "(baseline)")
    print(f"  compiled is {t_slow / t_fast:.1f}x faster; bit-identical: {same}")
    return t_fast


def report(name: str, seconds: float, target: str) -> None:
    print(f"{name:<58}{seconds:>10.4f} s   target {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke check of the script)")
    args = parser.parse_args()
    scale = 10 if args.quick else 1

    length, depth = 1_000_000 // scale, 64
    t = best_time(lambda: theory.influence_row(length, depth, 0.5), 3)
    report(f"float64 row L={length:,} H={depth}", t, "< 1 s")

    length, depth = 10_000 // scale, 24
    t_arb = best_time(lambda: theory.influence_row(length, depth, 0.5, backend="arb", dps=50), 2)
    t_mp = best_time(lambda: theory.influence_row(length, depth, 0.5, backend="mpmath", dps=50), 1)
    report(f"arb 50 digits L={length:,} H={depth}", t_arb, "< 0.5 s")
    report(f"mpmath 50 digits L={length:,} H={depth}", t_mp, "(baseline)")
    print(f"  arb is {t_mp / t_arb:.1f}x faster than mpmath")

    length, depth = 2048 // (2 if args.quick else 1), 24
    fast = theory.influence_row(length, depth, 0.5)
    dense = dense_rollout_last_row(length, depth, 0.5)
    t_fast = best_time(lambda: theory.influence_row(length, depth, 0.5), 20)
    t_dense = best_time(lambda: dense_rollout_last_row(length, depth, 0.5), 1)
    report(f"float64 row L={length} H={depth}", t_fast, "")
    report(f"dense L x L rollout L={length} H={depth}", t_dense, "(baseline)")
    print(f"  row is {t_dense / t_fast:,.0f}x faster than the dense rollout (target >= 1000x); "
          f"max |difference| {np.abs(fast - dense).max():.2e}")

    for prior in (theory.SlidingWindow(length // 8), theory.Chunks.equal(length, 300)):
        fast = theory.influence_row(length, depth, 0.5, prior=prior)
        dense = dense_rollout_last_row(length, depth, 0.5, prior)
        t_fast = best_time(lambda: theory.influence_row(length, depth, 0.5, prior=prior), 20)
        t_dense = best_time(lambda: dense_rollout_last_row(length, depth, 0.5, prior), 1)
        report(f"{prior.label} row L={length} H={depth}", t_fast, "")
        report(f"dense L x L rollout, {prior.label}", t_dense, "(baseline)")
        relative = np.abs(fast - dense).max() / dense.max()
        print(f"  row is {t_dense / t_fast:,.0f}x faster than the dense rollout (target >= 100x); "
              f"max |difference| / max {relative:.2e}")

    if native_row.unavailable_reason():
        print(f"compiled theory row unavailable here ({native_row.unavailable_reason()}); section 5 skipped")
        return
    length, depth = 1_000_000 // scale, 64
    t = compare_compiled(f"causal row L={length:,} H={depth}", lambda: [theory.influence_row(length, depth, 0.5)], 5)
    bound = bandwidth_bound(length, depth)
    report(f"bandwidth bound: {depth} copies of a float64 [{length:,}]", bound, "(bound)")
    print(f"  compiled / bound {t / bound:.2f} (target <= 3)")
    chunks = theory.Chunks.equal(length, 4096)
    compare_compiled(f"{chunks.label} row L={length:,} H={depth}",
                     lambda: [theory.influence_row(length, depth, 0.5, prior=chunks)], 3)
    grid = np.linspace(0.005, 1.0, 200)
    compare_compiled("200 rows L=2048 H=24 (a grid of a)",
                     lambda: [theory.influence_row(2048, 24, a) for a in grid], 5)

if __name__ == "__main__":
    main()
