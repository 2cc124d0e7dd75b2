# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The Step-0 "lost in the middle" profile across depth
#
# With uniform attention at initialization, a causal layer is the Cesàro
# matrix M and a residual block is N = (1 - a) I + a M. The influence of
# position j on the last token after H blocks is the last row of N^H
# (docs/theory.md §1-§3; Chowdhury, arXiv:2603.10123). This notebook explores
# the same numbers as `lostmid sweep` (`sims/depth_sweep.py`), writing its
# run into `runs/notebooks/<timestamp>/` (set `LOSTMID_RUNS` to write
# elsewhere). Set `LOSTMID_SMOKE=1` for the `--smoke` size (the tests do).

# %%
# %matplotlib inline
import math
import os
import pathlib

import numpy as np
from matplotlib.figure import Figure

from lostmid_jax import compile_cache, experiments, runs, theory
from lostmid_jax.experiments import depth_sweep
from lostmid_jax.experiments.arguments import nest
from lostmid_jax.runs.config import from_dict
from lostmid_jax.experiments.script import default_run_dir
from lostmid_jax.plots import style

compile_cache.configure()  # JAX's persistent compilation cache, as the commands use it
SMOKE_RUN = os.environ.get("LOSTMID_SMOKE") == "1"
cfg = from_dict(depth_sweep.Config, nest(depth_sweep.SMOKE)) if SMOKE_RUN else depth_sweep.Config()
L = 256

# %% [markdown]
# ## One profile: primacy tail, middle, recency delta
# Change `H` and `a` and rerun. The smooth part decreases in x; the last
# token carries the delta (1 - a)^H plus the k-hop returns L^-k.

# %% tags=["figure"]
H, a = 12, 0.5
log_w = theory.log_influence_row(L, H, a)
x = np.arange(1, L + 1) / L
xs = np.linspace(1 / L, 1, 400)
with style.context():
    fig = Figure(figsize=(6, 3.5))
    ax = fig.subplots()
    ax.plot(x[:-1], L * np.exp(log_w[:-1]), label=r"discrete $L\,w_j$", **style.series(0, 3, marker=False))
    ax.plot(xs, theory.continuum_density(xs, H, a), label=r"continuum $\rho_H(x)$", **style.series(1, 3, marker=False))
    ax.plot([1], [L * math.exp(log_w[-1])], "o", color=style.color(2), label=r"last token $j = L$")
    ax.set_yscale("log")
    ax.set_xlabel(r"$x = j/L$")
    ax.set_ylabel(r"influence density $L\,w_j$")
    ax.set_title(f"$H = {H}$, $a = {a}$, $L = {L}$")
    style.mark_coincident(ax)
    ax.legend()
fig

# %%
theory.summarize_log_row(log_w)

# %% [markdown]
# ## Hop decomposition: which paths reach the middle?
# N^H = sum_k P(K = k) M^k with K ~ Binomial(H, a). The middle is carried by
# the k-hop paths with k near the mode of P(K = k) (ln 2)^(k-1)/(k-1)!.

# %% tags=["figure"]
p = theory.hop_distribution(H, a)
k = np.arange(1, H + 1)
contribution = p[1:] * np.exp((k - 1) * np.log(np.log(2)) - np.array([math.lgamma(i) for i in k]))
with style.context():
    fig = Figure(figsize=(6, 3))
    ax = fig.subplots()
    ax.bar(k, contribution / contribution.sum(), color=style.color(0))
    style.integer_ticks(ax, "x")
    ax.set_xlabel(r"hops $k$")
    ax.set_ylabel(r"share of $\rho_H(1/2)$")
fig

# %%
print("middle density rho_H(1/2) =", contribution.sum(), "=", theory.continuum_density(0.5, H, a))

# %% [markdown]
# ## The sweep, read back as data, and its verdict
# The run directory holds CSV tables (their columns are described in
# `run.columns`), the verdict and the figures; `lostmid plot RUN_DIR`
# redraws them from the tables, as the cells below do.

# %%
here = pathlib.Path.cwd().resolve()
root = next((d for d in (here, *here.parents) if (d / "pyproject.toml").is_file()), here)
out = default_run_dir(os.environ.get("LOSTMID_RUNS", root / "runs"), "notebooks")
experiments.execute(depth_sweep, cfg, out, progress=False, echo=None)
run = runs.load_run(out)
figs = depth_sweep.figures(run.tables, run.config)
print(run.verdict)

# %% tags=["figure"]
figs["fig2_middle_vs_depth"]

# %% tags=["figure"]
figs["fig1_u_curves"]
