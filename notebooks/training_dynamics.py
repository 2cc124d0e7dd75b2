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
# attention strength a_l per layer, and accuracy by needle depth (against
# the chance level of guessing one of the k context values). The model at
# step 0 is the initialization of docs/theory.md §1.
#
# This notebook runs the same experiment as `lostmid train`
# (`sims/micro_training.py`) into `runs/notebooks/<timestamp>/` (set
# `LOSTMID_RUNS` to write elsewhere), then reads the run back with
# `lostmid_jax.runs.load_run` and draws its figures from the saved tables.
# Set `LOSTMID_SMOKE=1` for the `--smoke` size (the tests do).

# %%
# %matplotlib inline
import os
import pathlib

import numpy as np

from lostmid_jax import compile_cache, experiments, runs
from lostmid_jax.experiments import micro_training
from lostmid_jax.experiments.arguments import nest
from lostmid_jax.runs.config import from_dict
from lostmid_jax.experiments.script import default_run_dir
from lostmid_jax.train import load_trained

compile_cache.configure()  # JAX's persistent compilation cache, as the commands use it
SMOKE_RUN = os.environ.get("LOSTMID_SMOKE") == "1"
if SMOKE_RUN:
    exp = from_dict(micro_training.Config, nest(micro_training.SMOKE))
else:
    exp = micro_training.Config(seeds=(0, 1, 2), interventions=("middle_weighted_loss", "curriculum"))
here = pathlib.Path.cwd().resolve()
root = next((p for p in (here, *here.parents) if (p / "pyproject.toml").is_file()), here)
out = default_run_dir(os.environ.get("LOSTMID_RUNS", root / "runs"), "notebooks")
result = experiments.execute(micro_training, exp, out, progress=False)

# %% [markdown]
# ## The run, read back as data
# `load_run` gives the config, typed tables (one per CSV; `run.columns` says
# what each column means) and the verdict. Figures below are drawn from
# these tables alone, exactly as `lostmid plot RUN_DIR` redraws them.

# %%
run = runs.load_run(out)
figs = micro_training.figures(run.tables, run.config)
run.tables["snapshots"].head()

# %% [markdown]
# ## Profiles at the snapshot steps
# Dashed lines mark document starts. A document-local U would show as a dip in
# the middle of each document and rises at its BOS anchors.

# %% tags=["figure"]
figs["fig3_profiles"]

# %% [markdown]
# ## Value vs score pathway, and the relative valley
# At init the score pathway is small (attention is nearly uniform); training
# grows it. The valley depth is log10(recency / mean middle influence).
# Error bars are 95% confidence intervals over seeds.

# %% tags=["figure"]
figs["fig2_pathways"]

# %% tags=["figure"]
figs["fig1_valley"]

# %% [markdown]
# ## The U inside each document
# Per document: log10(sqrt(start edge * end edge) / middle) of the last
# token's influence (train/metrics.py doc_u); > 0 is a document-local U.

# %% tags=["figure"]
figs["fig4_doc_u"]

# %% [markdown]
# ## Where the score pathway differs from the value pathway
# Ratio of the score to the value profile at the last snapshot (baseline, first seed).

# %% tags=["figure"]
from matplotlib.figure import Figure

from lostmid_jax.plots import style
from lostmid_jax.train import tasks

prof = run.tables["profiles"]
last = prof["step"].max()
rows = prof[(prof["intervention"] == "none") & (prof["seed"] == exp.seeds[0]) & (prof["step"] == last)]
with style.context():
    fig = Figure(figsize=(6, 3))
    ax = fig.subplots()
    ax.plot(rows["j"], rows["score"] / np.maximum(rows["value"], 1e-30), color=style.color(0))
    for b in tasks.boundaries(exp.base):
        ax.axvline(b + 1, color="k", ls="--", lw=0.7)
    ax.set_yscale("log")
    ax.set_xlabel(r"input position $j$")
    ax.set_ylabel(r"score / value influence $n^{\mathrm{score}}_j / n^{\mathrm{value}}_j$")
    ax.set_title(f"step {last}")
fig

# %% [markdown]
# ## Accuracy by needle bin, and the verdict

# %% tags=["figure"]
figs["fig5_accuracy"]

# %%
print(run.verdict)

# %% [markdown]
# ## The trained model itself
# `load_trained` returns a run's TrainConfig and Decoder (newest intact
# checkpoint); `lostmid_jax.nn.save_hf(model, cfg.model, path)` exports it
# as a Hugging Face checkpoint.

# %%
cfg, model = load_trained(out, seed=exp.seeds[0])
tokens = tasks.profile_tokens(cfg)
model.lm(tokens).shape
