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
# # Micro-training: how the U, and each pathway, evolve
#
# A toy decoder trains on a chunked synthetic corpus (a BOS token every N
# tokens) plus key-value retrieval with the needle at a controlled depth.
# At snapshot steps we measure the influence profile ||d y_L / d x_j||_F, its
# value pathway (attention probabilities frozen) and score pathway, the
# effective attention strength a_l per layer, and accuracy by needle depth
# (against the chance level of guessing one of the k context values).
# This notebook explores the same numbers as `sims/micro_training.py`.
# Set `LOSTMID_SMOKE=1` for a seconds-long run (the tests do).

# %%
import os
import pathlib
import tempfile

import matplotlib.pyplot as plt
import numpy as np

from lostmid_jax.experiments import micro_training
from lostmid_jax.plots import training as tplots
from lostmid_jax.train import TrainConfig, tasks, toy_model

SMOKE_RUN = os.environ.get("LOSTMID_SMOKE") == "1"
if SMOKE_RUN:
    base = TrainConfig(steps=3, model=toy_model(width=16, depth=1, heads=2, kv_heads=1, vocab=16), kv_pairs=4,
                       needle_bins=2, lm_length=32, doc_length=8, lm_batch=1, kv_batch=4, eval_per_bin=4,
                       snapshot_steps=(0, 1, 3), curriculum_steps=2, warmup=1)
    exp = micro_training.Config(base=base, seeds=(0,), interventions=("curriculum",))
else:
    exp = micro_training.Config(seeds=(0, 1), interventions=("middle_loss", "curriculum"))
out = pathlib.Path(tempfile.mkdtemp(prefix="training_dynamics_"))
result = micro_training.run(exp, out, progress=False)
records = result.records
prof = micro_training.profile_rows(result.runs)

# %% [markdown]
# ## Profiles at the snapshot steps
# Dashed lines mark document starts. A document-local U would show as a dip in
# the middle of each document and rises at its BOS anchors.

# %%
tplots.profiles_at_steps(prof, tasks.boundaries(exp.base))

# %% [markdown]
# ## Value vs score pathway, and the relative valley
# At init the score pathway is small (attention is nearly uniform); training
# grows it. The valley depth is log10(recency / mean middle influence).

# %%
tplots.pathways_vs_step(records)
tplots.valley_vs_step(records, exp.variants)

# %% [markdown]
# ## The U inside each document
# Per document: log10(sqrt(start edge * end edge) / middle) of the last
# token's influence (train/metrics.py doc_u); > 0 is a document-local U.

# %%
tplots.doc_u_vs_step(records, exp.variants)

# %% [markdown]
# ## Where the score pathway differs from the value pathway
# Ratio of the score to the value profile at the last snapshot (seed 0).

# %%
last = max(r["step"] for r in prof)
rows = [r for r in prof if r["intervention"] == "none" and r["seed"] == exp.seeds[0] and r["step"] == last]
ratio = np.array([r["score"] / max(r["value"], 1e-30) for r in rows])
fig, ax = plt.subplots(figsize=(6, 3))
ax.semilogy(ratio)
for b in tasks.boundaries(exp.base):
    ax.axvline(b, color="k", ls="--", lw=0.7)
ax.set_xlabel("position j")
ax.set_ylabel("score / value");

# %% [markdown]
# ## Accuracy by needle bin, and the verdict

# %%
tplots.accuracy_by_needle_bin(records, exp.variants, exp.base.needle_bins, tasks.chance_accuracy(exp.base))
print("\n".join(micro_training.verdict(result)))
