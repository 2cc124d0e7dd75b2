"""Exact Jacobian influence profile: lostmid_jax vs PyTorch, same architecture, same run.

The stack: H = 12 pre-LayerNorm blocks, D = 64, 4 heads, GELU MLP (4D), biases,
final LayerNorm, causal softmax attention, L = 1024, float32. The quantity:
||d y_L / d x_j||_F for j = 1..L (the last token's output row of the
Jacobian, D x L x D numbers).

    python benchmarks/jacobian_bench.py            # full size (minutes)
    python benchmarks/jacobian_bench.py --quick    # L = 128, H = 2 (seconds)
    python benchmarks/jacobian_bench.py --paired 16 --rounds 2   # loaded machine: alternate, min times

Timed (each once after a warm-up compile where there is one; wall clock,
torch and XLA both on all CPU cores):
  ours        lostmid_jax.analysis.influence_profile(method="exact"): one
              forward (activations kept: remat off), the D = 64 cotangents
              through a vmapped backward in chunks of 16 (jax.lax.map)
  jax.jacrev  dense jax.jacrev of the last row (the naive JAX route)
  torch       torch.autograd.functional.jacobian (vectorize False and True) and
              torch.func.jacrev, on a PyTorch copy of the same weights
Prints the profiles' agreement and the ratio best-PyTorch-time / ours.
torch is an optional dependency (pyproject extra "bench": torch==2.13.0).

Measured (idle 2-core CPU, blocked attention backward, nn/attention_core.py):
ours 6.5-8.9 s compiled (13.8-17.5 s with the first compile), best PyTorch
(autograd.functional.jacobian, vectorize=False) 16.6-18.9 s: 2.1-2.6x
compiled, 1.0-1.4x including compilation; vectorize=True 63-67 s,
torch.func.jacrev 58-61 s; agreement ~2e-7 relative.

--paired 16 --rounds 2 (AMD EPYC Zen 4, AVX-512, 2 cores): before the batched
attention backward (issue 37) ours 1.51 s vs autograd.functional.jacobian
4.08 s = 2.70x (load 0.5-1.8); after it ours 0.94-0.95 s vs 2.76, 3.43
and 3.19 s = 2.91x, 3.61x and 3.39x in three quiet runs (load 0.7-1.8) (docs/performance.md).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np


def build(length: int, depth: int, width: int, heads: int, remat: bool):
    """(jax Decoder, x [L, D] float32 numpy, remat) for the benchmark architecture (remat: the engine's)."""
    import jax
    from flax import nnx

    from lostmid_jax.nn import Decoder, DecoderConfig

    cfg = DecoderConfig(depth=depth, width=width, heads=heads, qkv_bias=True, out_bias=True,
                        attention="softmax", mask="causal", position="none", norm="layernorm",
                        norm_eps=1e-5, pre_norm=True, final_norm=True, mlp="gelu", mlp_bias=True,
                        init="gpt2", init_std=0.02, param_dtype="float32")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    x = np.asarray(jax.random.normal(jax.random.key(1), (length, width)), np.float32)
    return model, x, remat


def torch_stack(model):
    """A PyTorch function x [L, D] -> y_L [D] with the jax model's weights."""
    import torch

    cfg = model.cfg
    b = model.blocks
    t = lambda a: torch.tensor(np.asarray(a[...]), dtype=torch.float32)  # noqa: E731
    layers = [dict(ln1=(t(b.norm1.scale)[h], t(b.norm1.bias)[h]), ln2=(t(b.norm2.scale)[h], t(b.norm2.bias)[h]),
                   q=(t(b.attn.q.kernel)[h], t(b.attn.q.bias)[h]), k=(t(b.attn.k.kernel)[h], t(b.attn.k.bias)[h]),
                   v=(t(b.attn.v.kernel)[h], t(b.attn.v.bias)[h]), o=(t(b.attn.o.kernel)[h], t(b.attn.o.bias)[h]),
                   up=(t(b.mlp.up.kernel)[h], t(b.mlp.up.bias)[h]), down=(t(b.mlp.down.kernel)[h], t(b.mlp.down.bias)[h]))
              for h in range(cfg.depth)]
    final = (t(model.final_norm.scale), t(model.final_norm.bias))
    n, k, eps = cfg.heads, cfg.resolved_head_dim, cfg.norm_eps

    def ln(x, p):
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), p[0], p[1], eps)

    def lin(x, p):
        return x @ p[0] + p[1]

    def forward(x):  # [L, D] -> [D]
        length = x.shape[0]
        mask = torch.ones(length, length, dtype=torch.bool).tril()
        for p in layers:
            a = ln(x, p["ln1"])
            q, kk, v = (lin(a, p[s]).view(length, n, k).transpose(0, 1) for s in ("q", "k", "v"))
            s = (q @ kk.transpose(1, 2)) / math.sqrt(k)
            s = s.masked_fill(~mask, float("-inf")).softmax(-1)
            x = x + lin((s @ v).transpose(0, 1).reshape(length, n * k), p["o"])
            x = x + lin(torch.nn.functional.gelu(lin(ln(x, p["ln2"]), p["up"]), approximate="tanh"), p["down"])
        return ln(x, final)[-1]

    return forward


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run_torch(model, x, methods):
    import torch

    forward = torch_stack(model)
    xt = torch.tensor(x)
    torch.autograd.functional.jacobian(forward, xt[:4])  # warm up torch's thread pools and kernels
    results = {}
    for name in methods:
        if name == "torch.func.jacrev":
            call = lambda: torch.func.jacrev(forward)(xt)  # noqa: E731
        else:
            vec = name.endswith("vectorize=True)")
            call = lambda vec=vec: torch.autograd.functional.jacobian(forward, xt, vectorize=vec)  # noqa: E731
        jac, seconds = timed(call)
        results[name] = (np.sqrt((jac.double().numpy() ** 2).sum(axis=(0, 2))), seconds)
        print(f"  {name:<52} {seconds:8.2f} s", flush=True)
    return results


def run_ours(model, x, chunk, remat):
    import jax

    from lostmid_jax.analysis import influence_profile

    prof, seconds = timed(lambda: influence_profile(model, x, chunk=chunk, remat=remat))
    _, again = timed(lambda: influence_profile(model, x, chunk=chunk, remat=remat))  # compiled
    jax.clear_caches()
    return prof.norms, seconds, again


def paired(model, x, outputs: int, rounds: int, chunk: int, remat: bool) -> None:
    """Alternate ours and each PyTorch method on the first ``outputs`` rows of the Jacobian,
    ``rounds`` times, and compare the minimum times (fairer on a shared, loaded machine).

    Both sides do one forward and ``outputs`` reverse passes, so the time of the full
    D-row problem is ~ forward + (D / outputs) * backward on each side; the ratio of
    the partial times is reported as is (it slightly favours neither side).
    """
    import jax
    import jax.numpy as jnp
    import torch

    from flax import nnx

    from lostmid_jax.analysis import ProfileRequest
    from lostmid_jax.analysis.jacobian import cotangent_sq_norms

    graphdef, state = nnx.split(model)
    execution = ProfileRequest(length=x.shape[0], remat=remat).execution  # the engine's: probabilities kept
    xj = jnp.asarray(x)
    cots = jnp.eye(x.shape[1], dtype=xj.dtype)[:outputs]
    ours = lambda: np.asarray(cotangent_sq_norms(graphdef, state, xj, cots, position=x.shape[0] - 1,  # noqa: E731
                                                 split=False, chunk=min(chunk, outputs), execution=execution))
    ours()  # compile
    forward = torch_stack(model)
    rows = lambda xt: forward(xt)[:outputs]  # noqa: E731
    xt = torch.tensor(x)
    torch_calls = {
        "torch.autograd.functional.jacobian(vectorize=False)": lambda: torch.autograd.functional.jacobian(rows, xt),
        "torch.autograd.functional.jacobian(vectorize=True)":
            lambda: torch.autograd.functional.jacobian(rows, xt, vectorize=True),
        "torch.func.jacrev": lambda: torch.func.jacrev(rows)(xt),
    }
    torch.autograd.functional.jacobian(rows, xt[:4])  # warm up
    times = {"ours": [], **{k: [] for k in torch_calls}}
    for r in range(rounds):  # ours first in even rounds, last in odd ones (load drifts over time)
        if r % 2 == 0:
            s_ours, t = timed(ours)
            times["ours"].append(t)
        for name, call in torch_calls.items():
            jac, t = timed(call)
            times[name].append(t)
        if r % 2 == 1:
            s_ours, t = timed(ours)
            times["ours"].append(t)
        print(f"  round {r + 1}: " + ", ".join(f"{k.split('(')[0].replace('torch.autograd.functional.', '')}"
                                              f"{'(vec)' if 'True' in k else ''} {v[-1]:.1f}s" for k, v in times.items()),
              flush=True)
    ref = np.sum(jac.double().numpy() ** 2, axis=2)  # [outputs, L] from the last torch method
    print(f"  max relative difference ours vs torch (squared row norms): {np.max(np.abs(s_ours[:, 0] - ref) / ref.max()):.2e}")
    best = {k: min(v) for k, v in times.items()}
    best_torch = min((v, k) for k, v in best.items() if k != "ours")
    for k, v in best.items():
        print(f"  {k:<52} min {v:8.2f} s")
    print(f"paired ratio best PyTorch ({best_torch[1]}) / ours: {best_torch[0] / best['ours']:.2f}x "
          f"({outputs} of {x.shape[1]} output rows, min of {rounds} alternating rounds)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="L = 128, H = 2 (smoke test)")
    parser.add_argument("--length", type=int, default=None)
    parser.add_argument("--chunk", type=int, default=16, help="cotangents per batched backward (ours)")
    parser.add_argument("--remat", action="store_true",
                        help="rematerialize blocks (jax.checkpoint) in our backward; default off, like PyTorch, "
                             "so the one forward's activations serve every chunk")
    parser.add_argument("--skip-jacrev", action="store_true", help="skip the naive jax.jacrev timing")
    parser.add_argument("--skip-slow", action="store_true", help="also skip torch.func.jacrev")
    parser.add_argument("--paired", type=int, default=None, metavar="K",
                        help="instead: alternate ours and PyTorch on K output rows for --rounds rounds (min times)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of --paired")
    args = parser.parse_args()
    length = args.length or (128 if args.quick else 1024)
    depth = 2 if args.quick else 12
    model, x, remat = build(length, depth, 64, 4, args.remat)
    print(f"H={depth} D=64 heads=4 L={length} float32; exact ||d y_L / d x_j||_F")
    if args.paired:
        paired(model, x, args.paired, args.rounds, args.chunk, remat)
        return

    print("ours (lostmid_jax.analysis.influence_profile, method='exact'):", flush=True)
    ours, first, compiled = run_ours(model, x, args.chunk, remat)
    print(f"  {'first call (compile + run)':<52} {first:8.2f} s\n  {'second call (compiled)':<52} {compiled:8.2f} s", flush=True)

    methods = ["torch.autograd.functional.jacobian(vectorize=False)",
               "torch.autograd.functional.jacobian(vectorize=True)"]
    if not args.skip_slow:
        methods.append("torch.func.jacrev")
    if not (args.skip_slow or args.skip_jacrev):
        import jax

        from lostmid_jax.analysis import influence_profile

        _, jr = timed(lambda: influence_profile(model, x, method="jacrev", remat=remat))
        print(f"  {'jax.jacrev (compile + run)':<52} {jr:8.2f} s", flush=True)
        jax.clear_caches()
    print("PyTorch:", flush=True)
    torch_results = run_torch(model, x, methods)

    best_name, (best_norms, best_s) = min(torch_results.items(), key=lambda kv: kv[1][1])
    rel = np.max(np.abs(ours - best_norms) / np.maximum(best_norms, 1e-30))
    print(f"max relative difference ours vs {best_name}: {rel:.2e}")
    print(f"ratio best PyTorch / ours: {best_s / first:.2f}x (first call, compile included), "
          f"{best_s / compiled:.2f}x (compiled)")


if __name__ == "__main__":
    main()
