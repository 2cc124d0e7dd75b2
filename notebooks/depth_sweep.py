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
# (Chowdhury, arXiv:2603.10123). This notebook explores the same numbers as
# `sims/depth_sweep.py`. Set `LOSTMID_SMOKE=1` for a seconds-long run (the
# tests do).

# %%
import math
import os

import matplotlib.pyplot as plt
import numpy as np

from lostmid_jax import theory
from lostmid_jax.experiments import depth_sweep

SMOKE_RUN = os.environ.get("LOSTMID_SMOKE") == "1"
cfg = depth_sweep.Config(**depth_sweep.SMOKE) if SMOKE_RUN else depth_sweep.Config(depths=tuple(range(1, 65)))
L = cfg.lengths[0]

# %% [markdown]
# ## One profile: primacy tail, middle, recency delta
# Change `H` and `a` and rerun. The smooth part decreases in x; the last
# token carries the delta (1 - a)^H plus the k-hop returns L^-k.

# %%
H, a = 12, 0.5
log_w = theory.log_influence_row(L, H, a)
x = np.arange(1, L + 1) / L
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(x[:-1], (log_w[:-1] + math.log(L)) / math.log(10), label="discrete L * w_j")
xs = np.linspace(1 / L, 1, 400)
ax.plot(xs, np.log10(theory.continuum_density(xs, H, a)), "--", label="continuum rho_H(x)")
ax.plot([1], [(log_w[-1] + math.log(L)) / math.log(10)], "o", label="last token")
ax.set_xlabel("x = j / L")
ax.set_ylabel("log10 density")
ax.legend()
summary = theory.summarize_log_row(log_w)
summary

# %% [markdown]
# ## Hop decomposition: which paths reach the middle?
# N^H = sum_k P(K = k) M^k with K ~ Binomial(H, a). The middle is carried by
# the k-hop paths with k near the mode of P(K = k) (ln 2)^(k-1)/(k-1)!.

# %%
p = theory.hop_distribution(H, a)
k = np.arange(1, H + 1)
contribution = p[1:] * np.exp((k - 1) * np.log(np.log(2)) - np.array([math.lgamma(i) for i in k]))
fig, ax = plt.subplots(figsize=(6, 3))
ax.bar(k, contribution / contribution.sum())
ax.set_xlabel("hops k")
ax.set_ylabel("share of rho_H(1/2)")
print("middle density rho_H(1/2) =", contribution.sum(), "=", theory.continuum_density(0.5, H, a))

# %% [markdown]
# ## The sweep and its verdict

# %%
result = depth_sweep.run(cfg, progress=False)
records = result.records
for line in depth_sweep.verdict(result):
    print(line)

# %%
rows = [r for r in records if r["length"] == "continuum" and r["schedule"] == "constant"]
fig, ax = plt.subplots(figsize=(6, 3.5))
for alpha in cfg.alphas:
    mine = [r for r in rows if r["alpha"] == alpha]
    ax.plot([r["depth"] for r in mine], [r["log10_middle_density"] for r in mine], label=f"a={alpha:g}")
ax.plot([r["depth"] for r in rows if r["alpha"] == cfg.alphas[0]], [r["log10_factorial_law"] for r in rows if r["alpha"] == cfg.alphas[0]], "k--", label="factorial law")
ax.set_xscale("log")
ax.set_xlabel("depth H")
ax.set_ylabel("log10 rho_H(1/2)")
ax.legend()
