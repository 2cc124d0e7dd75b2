"""The GPU targets of issue 37 (item 4), measured in one run beside their references.

    python benchmarks/gpu_bench.py            # on a GPU machine: the full sizes (minutes)
    python benchmarks/gpu_bench.py --smoke    # tiny sizes, on any machine (CPU: a check that it runs)

Rows (each workload in a fresh child process, so that a first call compiles; float32 at equal precision on
both sides: JAX_DEFAULT_MATMUL_PRECISION=highest, torch with TF32 off and matmul precision "highest"):

    step0 headline   `lostmid step0 --presets qwen2-0.5b --length 2048 --seeds 16 --method randomized --probes 8
                     --no-figures` (--smoke: toy, L = 32, 2 seeds, 4 probes): wall seconds and the child's
                     CPU seconds (user + system, os.wait4); targets wall <= 30 s, CPU <= 1.5 x wall
    Jacobian engine  the exact influence profile (lostmid_jax.analysis.influence_profile) of
                     benchmarks/jacobian_bench.py's stack at L = 2048, H = 12, D = 256, 8 heads (--smoke: L = 64,
                     H = 2, D = 32, 4 heads): the first call (compilation included) and the second; target
                     first <= 10 s
    torch            torch.func.jacrev of the same stack and weights on the same device (when torch is
                     installed): first and second call; target: second call >= 5 x the engine's; the
                     profiles' agreement is printed

The persistent compilation cache is off in the children (LOSTMID_COMPILE_CACHE=0): every first call compiles.
Not yet run on a GPU (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
FULL = dict(step0=["--preset", "qwen2-0.5b", "--length", "2048", "--seeds", "16", "--method", "randomized",
                   "--probes", "8"], length=2048, depth=12, width=256, heads=8)
SMOKE = dict(step0=["--preset", "toy", "--length", "32", "--seeds", "2", "--method", "randomized", "--probes", "4"],
             length=64, depth=2, width=32, heads=4)


def child_env() -> dict:
    env = dict(os.environ, JAX_DEFAULT_MATMUL_PRECISION="highest", LOSTMID_COMPILE_CACHE="0")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def timed_child(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds user + system, stdout) of ``cmd`` in a child process (exit 0 required); the CPU
    seconds are what RUSAGE_CHILDREN grew by while it ran (compilation threads and host work included)."""
    import resource

    def spent():
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    cpu0, start = spent(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=child_env(), cwd=ROOT)
    wall, cpu = time.perf_counter() - start, spent() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:6])} ...: failed:\n{proc.stderr.decode(errors='replace')[-2000:]}")
    return wall, cpu, proc.stdout.decode(errors="replace")


def step0_row(sizes: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu, _ = timed_child([sys.executable, "-m", "lostmid_jax.cli", "step0", *sizes["step0"], "--no-figures",
                                    "--no-progress", "--out", os.path.join(tmp, "run")])
    return {"wall": wall, "cpu": cpu}


def jacobian_child(length: int, depth: int, width: int, heads: int, use_torch: bool) -> None:
    """In the child: the engine's first and second call (and torch.func.jacrev's), printed as one JSON line."""
    import jax
    import numpy as np

    sys.path.insert(0, str(HERE))
    from jacobian_bench import build, timed, torch_stack

    from lostmid_jax.analysis import influence_profile

    model, x, _ = build(length, depth, width, heads, remat=True)
    out = {"device": str(jax.devices()[0])}
    prof, out["ours_first"] = timed(lambda: np.asarray(influence_profile(model, x, method="exact").norms))
    _, out["ours_again"] = timed(lambda: np.asarray(influence_profile(model, x, method="exact").norms))
    if use_torch:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.set_default_device(device)
        forward = torch_stack(model)
        xt = torch.tensor(x, device=device)

        def jacrev():
            jac = torch.func.jacrev(forward)(xt)
            if device == "cuda":
                torch.cuda.synchronize()
            return jac

        jac, out["torch_first"] = timed(jacrev)
        jac, out["torch_again"] = timed(jacrev)
        ref = np.sqrt((jac.double().cpu().numpy() ** 2).sum(axis=(0, 2)))
        out["torch_device"] = device
        out["max_rel_diff"] = float(np.max(np.abs(prof - ref)) / np.max(ref))
    print(json.dumps(out))


def jacobian_row(sizes: dict, use_torch: bool) -> dict:
    cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--child", *(str(sizes[k]) for k in
                                                                               ("length", "depth", "width", "heads"))]
    _, _, stdout = timed_child(cmd + (["--torch"] if use_torch else []))
    return json.loads(stdout.strip().splitlines()[-1])


def table(step0: dict, jac: dict, sizes: dict, smoke: bool) -> list[str]:
    """The rows: workload, measured, target, met."""
    def row(name, value, target, ok):
        return f"  {name:<46} {value:>14}  {target:<18} {'' if ok is None else ('met' if ok else 'NOT met')}"

    size = f"L={sizes['length']}, H={sizes['depth']}, D={sizes['width']}, {sizes['heads']} heads"
    lines = [f"issue 37 item 4{' (--smoke: tiny sizes, targets not applicable)' if smoke else ''}; "
             f"device {jac['device']}; load average {os.getloadavg()[0]:.1f}",
             row("workload", "measured", "target", None),
             row(f"step0 {' '.join(sizes['step0'][:2])}: wall", f"{step0['wall']:.1f} s", "<= 30 s",
                 None if smoke else step0["wall"] <= 30),
             row("step0: host CPU / wall", f"{step0['cpu']:.1f} s / {step0['cpu'] / step0['wall']:.2f}x", "<= 1.5x wall",
                 None if smoke else step0["cpu"] <= 1.5 * step0["wall"]),
             row(f"engine first call ({size})", f"{jac['ours_first']:.2f} s", "<= 10 s",
                 None if smoke else jac["ours_first"] <= 10),
             row("engine second call", f"{jac['ours_again']:.3f} s", "", None)]
    if "torch_first" in jac:
        ratio = jac["torch_again"] / jac["ours_again"]
        lines += [row(f"torch.func.jacrev first call ({jac['torch_device']})", f"{jac['torch_first']:.2f} s", "", None),
                  row("torch.func.jacrev second call", f"{jac['torch_again']:.3f} s", "", None),
                  row("torch second / engine second", f"{ratio:.2f}x", ">= 5x", None if smoke else ratio >= 5),
                  row("profiles: max |ours - torch| / max", f"{jac['max_rel_diff']:.1e}", "", None)]
    else:
        lines.append("  torch not installed: its rows are left out")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true", help="tiny sizes (runs on CPU in about a minute)")
    p.add_argument("--no-torch", action="store_true", help="leave torch out even where it is installed")
    p.add_argument("--child", nargs=4, type=int, help=argparse.SUPPRESS)
    p.add_argument("--torch", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        jacobian_child(*args.child, use_torch=args.torch)
        return
    import importlib.util

    sizes = SMOKE if args.smoke else FULL
    use_torch = not args.no_torch and importlib.util.find_spec("torch") is not None
    step0 = step0_row(sizes)
    jac = jacobian_row(sizes, use_torch)
    print("\n".join(table(step0, jac, sizes, args.smoke)))


if __name__ == "__main__":
    main()
