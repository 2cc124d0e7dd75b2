"""Peak memory of an exact influence profile with and without ``max_memory_gb``, each in its own process.

    python benchmarks/memory_bound.py                      # toy preset, L = 2048, bound 1.0 GB
    python benchmarks/memory_bound.py --length 1024 --bound 0.8

Each child builds the toy decoder (float32, remat on), measures its resident
set before the call, runs influence_profile(method="exact"), and reports the
chunk it used and its peak resident set (resource.getrusage ru_maxrss, which
covers compilation too). The parent checks the two profiles are identical
and that the bounded peak stays under the bound.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile


def child(length: int, bound: float | None, out: str) -> None:
    import resource

    import jax
    import numpy as np
    from flax import nnx

    from lostmid_jax.analysis import influence_profile
    from lostmid_jax.analysis.memory import in_use_bytes
    from lostmid_jax.nn import Decoder, preset

    model = Decoder(preset("toy", param_dtype="float32"), rngs=nnx.Rngs(0))
    x = jax.random.normal(jax.random.key(1), (length, model.cfg.width))
    before = in_use_bytes(jax.devices()) / 2**30
    prof = influence_profile(model, x, max_memory_gb=bound, remat=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    np.save(out, prof.sq_norms)
    print(json.dumps({"rss_before_gb": before, "peak_gb": peak, "chunk": prof.plan.chunk,
                      "estimate_gb": prof.plan.estimate_bytes / 2**30, "plan": str(prof.plan)}))


def run(length: int, bound: float | None, out: str) -> dict:
    cmd = [sys.executable, __file__, "--child", "--length", str(length), "--out", out]
    cmd += [] if bound is None else ["--bound", str(bound)]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--length", type=int, default=2048)
    p.add_argument("--bound", type=float, default=None, help="max_memory_gb of the bounded run (default 1.0)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--out", type=str, default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.length, args.bound, args.out)
        return
    args.bound = 1.0 if args.bound is None else args.bound
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        free = run(args.length, None, str(pathlib.Path(tmp) / "free.npy"))
        bound = run(args.length, args.bound, str(pathlib.Path(tmp) / "bound.npy"))
        a, b = np.load(pathlib.Path(tmp) / "free.npy"), np.load(pathlib.Path(tmp) / "bound.npy")
    print(f"toy preset, float32, remat on, exact (K = 32), L = {args.length}")
    for name, r in (("no bound", free), (f"max_memory_gb={args.bound}", bound)):
        print(f"  {name:>18}: chunk {r['chunk']:>2}, RSS before {r['rss_before_gb']:.2f} GB, "
              f"peak RSS {r['peak_gb']:.2f} GB (engine estimate {r['estimate_gb']:.2f} GB on top)")
    diff = float(np.max(np.abs(a - b)) / np.max(np.abs(a)))
    print(f"  profiles: max |difference| / max = {diff:.1e}; bounded peak "
          f"{'<=' if bound['peak_gb'] <= args.bound else 'EXCEEDS'} bound {args.bound} GB")


if __name__ == "__main__":
    main()
