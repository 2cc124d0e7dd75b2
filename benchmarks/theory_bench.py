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
  5. the causal row through the shared structured operator (what
     influence_row runs) against a dedicated causal loop, the candidate fast
     path, L = 1_000_000, H = 64: the time ratio shared / dedicated; a fast
     path would pay only if it were well above 1 (measured 1.0-1.1 here, so
     the library has none).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from lostmid_jax import theory
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


def dedicated_causal_row(length: int, depth: int, alpha: float) -> np.ndarray:
    """Candidate fast path: the causal recurrence r <- (1 - a) r + a suffix_cumsum(r / i), inlined."""
    inv = 1.0 / np.arange(1, length + 1, dtype=np.float64)
    row = np.zeros(length)
    row[-1] = 1.0
    for _ in range(depth):
        row = (1.0 - alpha) * row + alpha * np.cumsum((row * inv)[::-1])[::-1]
    return row


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

    length, depth = 1_000_000 // scale, 64
    same = np.array_equal(theory.influence_row(length, depth, 0.5), dedicated_causal_row(length, depth, 0.5))
    t_shared = best_time(lambda: theory.influence_row(length, depth, 0.5), 5)
    t_loop = best_time(lambda: dedicated_causal_row(length, depth, 0.5), 5)
    report(f"causal row, shared operator L={length:,} H={depth}", t_shared, "")
    report("causal row, dedicated loop (candidate fast path)", t_loop, "(baseline)")
    print(f"  shared / dedicated time {t_shared / t_loop:.2f} (a fast path pays only well above 1); "
          f"bit-identical: {same}")


if __name__ == "__main__":
    main()
