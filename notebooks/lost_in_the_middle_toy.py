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
# # A toy model lost in the middle (or not): train, export, diagnose, remedies
#
# No weights can be downloaded here, so this notebook makes its own trained
# model and puts it through the practitioners' workflow (docs/theory.md §7):
#
# 1. `lostmid train --task passages`: a toy decoder learns the templated
#    passage retrieval of `probes.token_probes` (k passages of filler ids, a
#    key-value fact in one, the key asked after them);
# 2. the model is exported with `nn.save_hf` and a `tokenizers` word-level
#    tokenizer (`train.export_hf`), a directory any Hugging Face tool reads;
# 3. `lostmid remedies --mode tokens` on that directory: accuracy by the fact's
#    passage with Wilson intervals, attention received, and each
#    inference-time remedy paired against the trained model, with what the
#    Step-0 theory predicts for it.
#
# It runs the recipe of `sims/lost_in_the_middle_toy.py` (its sizes and
# helpers); the training run goes to `runs/toy_litm/<timestamp>/`, the
# remedies run to `runs/notebooks/<timestamp>/` (set `LOSTMID_RUNS` to write
# elsewhere). `LOSTMID_SMOKE=1` shrinks everything (the tests do).

# %%
# %matplotlib inline
import os
import pathlib
import runpy

from lostmid_jax import compile_cache, experiments
from lostmid_jax.experiments import micro_training, remedies
from lostmid_jax.experiments.script import build_config, default_run_dir
from lostmid_jax.runs import load_run
from lostmid_jax.train import export_hf

compile_cache.configure()
SMOKE_RUN = os.environ.get("LOSTMID_SMOKE") == "1"
here = pathlib.Path.cwd().resolve()
root = next((p for p in (here, *here.parents) if (p / "pyproject.toml").is_file()), here)
recipe = runpy.run_path(str(root / "sims" / "lost_in_the_middle_toy.py"))  # its sizes and helpers
runs_root = pathlib.Path(os.environ.get("LOSTMID_RUNS", root / "runs"))
train_cfg = recipe["train_config"](5 if SMOKE_RUN else 600, SMOKE_RUN)
train_dir = default_run_dir(runs_root, "toy_litm")
experiments.execute(micro_training, train_cfg, train_dir / "train", progress=False)
print(open(train_dir / "train" / "verdict.txt").read())

# %% [markdown]
# ## Export with a tokenizer, then the remedies on the same examples

# %%
cfg, model_dir = export_hf(train_dir / "train", train_dir / "toy_model")
flags = dict(zip(["mode", "passages", "lengths", "key_tokens"],
                 ["tokens", cfg.kv_pairs, cfg.passage_length, cfg.passage_key_tokens]))
chosen = ("rope_base:4", "reorder:last", "sinks:2:8") if SMOKE_RUN else recipe["REMEDIES"]
rem = build_config(remedies, weights=str(model_dir), remedies=chosen, marker="1", context=cfg.passage_length,
                   examples=6 if SMOKE_RUN else 100, candidates=5, value_tokens=1, attention_examples=8,
                   n_boot=200 if SMOKE_RUN else 2000, **flags)
out = default_run_dir(runs_root, "notebooks")
experiments.execute(remedies, rem, out, progress=False)
run = load_run(out)
run.tables["effects"][["remedy", "verdict", "middle", "middle_lo", "middle_hi", "step0_ratio"]]

# %% tags=["figure"]
figs = remedies.figures(run.tables, run.config)
figs["fig1_accuracy"]

# %% tags=["figure"]
figs["fig3_received"]
