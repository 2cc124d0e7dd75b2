"""Forward and single-VJP time and peak memory of full-size decoder stacks on CPU.

Cases: gpt2-small at L = 1024 and qwen2-0.5b at L = 2048, float32, scan over
layers with per-block remat. Each (case, mode) runs in its own subprocess so
the peak resident set sizes (ru_maxrss) are separate; the peak includes the
parameters (embeddings too) and the input.

The VJP is d <c, y> / d x for input embeddings x [L, D] and a random
cotangent c [L, D]: the building block of Jacobian influence profiles.

    python benchmarks/model_bench.py            # all cases
    python benchmarks/model_bench.py --quick    # tiny lengths, smoke test
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = [("gpt2-small", 1024), ("qwen2-0.5b", 2048)]
QUICK_CASES = [("gpt2-small", 64), ("qwen2-0.5b", 64)]
MODES = ("forward", "vjp")


def run_case(name: str, length: int, mode: str, repeats: int) -> dict:
    """Time one (preset, L, mode) in this process; returns a result dict."""
    import resource

    import jax
    import jax.numpy as jnp
    from flax import nnx

    from lostmid_jax.nn import Decoder, apply_fn, preset

    cfg = preset(name, param_dtype="float32")  # the default Execution: remat on
    t0 = time.perf_counter()
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    _, state, fn = apply_fn(model)
    del model
    jax.block_until_ready(state)
    t_init = time.perf_counter() - t0

    kx, kc = jax.random.split(jax.random.key(1))
    x = jax.random.normal(kx, (length, cfg.width), jnp.float32)
    ct = jax.random.normal(kc, (length, cfg.width), jnp.float32)
    if mode == "forward":
        step = jax.jit(lambda s, x, c: fn(s, x))
    else:
        step = jax.jit(lambda s, x, c: jax.vjp(lambda x: fn(s, x), x)[1](c)[0])

    t0 = time.perf_counter()
    out = jax.block_until_ready(step(state, x, ct))
    t_first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(step(state, x, ct))
        times.append(time.perf_counter() - t0)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return dict(
        preset=name, L=length, mode=mode, init_s=round(t_init, 2),
        compile_and_first_s=round(t_first, 2), run_s=round(min(times), 3),
        peak_rss_gb=round(peak_kib / 2**20, 2), finite=bool(jnp.isfinite(out).all()),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny lengths (smoke test)")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs after the first")
    parser.add_argument("--worker", nargs=3, metavar=("PRESET", "L", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        name, length, mode = args.worker
        print(json.dumps(run_case(name, int(length), mode, args.repeats)))
        return

    env = dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    print(f"{'preset':<12} {'L':>5} {'mode':<8} {'init s':>7} {'1st s':>7} {'run s':>7} {'peak GB':>8}")
    for name, length in QUICK_CASES if args.quick else CASES:
        for mode in MODES:
            proc = subprocess.run(
                [sys.executable, __file__, "--repeats", str(args.repeats),
                 "--worker", name, str(length), mode],
                capture_output=True, text=True, env=env,
            )
            if proc.returncode:
                print(f"{name:<12} {length:>5} {mode:<8} FAILED (rc {proc.returncode})\n{proc.stderr[-2000:]}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"{r['preset']:<12} {r['L']:>5} {r['mode']:<8} {r['init_s']:>7.2f} "
                  f"{r['compile_and_first_s']:>7.2f} {r['run_s']:>7.3f} {r['peak_rss_gb']:>8.2f}"
                  + ("" if r["finite"] else "  NON-FINITE"), flush=True)


if __name__ == "__main__":
    main()
