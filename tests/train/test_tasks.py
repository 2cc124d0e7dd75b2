"""Synthetic tasks: purity in (seed, t), retrieval structure, needle-bin control; TrainConfig checks."""

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from lostmid_jax import runs
from lostmid_jax.nn import preset
from lostmid_jax.train import SMOKE, TrainConfig, tasks, toy_model


def _cfg(**kw):
    return TrainConfig(lm_length=40, doc_length=10, kv_pairs=6, needle_bins=3, kv_batch=64, lm_batch=3, **kw)


def test_batch_is_pure_function_of_seed_and_step():
    cfg = _cfg()
    a, b, c = tasks.train_batch(cfg, 7), tasks.train_batch(cfg, 7), tasks.train_batch(cfg, 8)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["kv_tokens"], c["kv_tokens"])
    d = tasks.train_batch(cfg.replace(seed=1), 7)
    assert not np.array_equal(a["lm_tokens"], d["lm_tokens"])


def test_lm_documents_start_with_bos():
    tok = tasks.train_batch(_cfg(), 0)["lm_tokens"]
    assert tok.shape == (3, 40)
    assert np.all(tok[:, ::10] == tasks.BOS)
    assert np.all(np.delete(tok, np.s_[::10], axis=1) >= 2)


def test_retrieval_target_is_value_after_queried_key():
    b = tasks.train_batch(_cfg(), 3)
    tok, tgt = b["kv_tokens"], b["kv_target"]
    assert tok.shape == (64, 15) and np.all(tok[:, -2] == tasks.QUERY)
    for row, t in zip(tok, tgt):
        keys, vals = row[1:13:2], row[2:13:2]
        assert len(set(keys)) == 6
        assert vals[list(keys).index(row[-1])] == t


def test_keyed_values_belong_to_their_key_and_shared_do_not():
    cfg = _cfg(kv_keys=8, kv_values=5, model=toy_model(vocab=2 + 8 + 40))
    tok = tasks.train_batch(cfg, 1)["kv_tokens"]
    keys, vals = tok[:, 1:13:2], tok[:, 2:13:2]
    assert keys.min() >= 2 and keys.max() <= 9 and vals.min() >= 10 and vals.max() <= 49
    assert np.array_equal((vals - 10) // 5, keys - 2)  # key j owns values 10 + 5j .. 14 + 5j
    shared = tasks.train_batch(cfg.replace(kv_format="shared"), 1)["kv_tokens"]
    assert shared[:, 2:13:2].min() >= 10 and shared[:, 2:13:2].max() <= 14


@pytest.mark.parametrize("fmt,values", [("keyed", 3), ("keyed", 20), ("shared", 3), ("shared", 20)])
def test_chance_matches_simulated_guesses(fmt, values):
    """The better of two query-blind guesses, simulated on the task's own examples: a uniformly
    random context value, and ("keyed") a random value owned by the queried key, context unseen."""
    cfg = _cfg(kv_format=fmt, kv_keys=6, kv_values=values, model=toy_model(vocab=2 + 6 + 6 * values))
    rng = np.random.default_rng(0)
    tok, tgt = tasks.kv_examples(cfg, rng, rng.integers(0, 6, size=20000))
    hit = (tok[np.arange(len(tgt)), 2 + 2 * rng.integers(0, 6, size=len(tgt))] == tgt).mean()
    if fmt == "keyed":
        owned = 8 + (tok[:, -1] - 2) * values + rng.integers(0, values, size=len(tgt))
        hit = max(hit, (owned == tgt).mean())
    by_hand = {("keyed", 3): 1 / 3, ("keyed", 20): 1 / 6, ("shared", 3): (1 + 5 / 3) / 6,
               ("shared", 20): (1 + 5 / 20) / 6}[fmt, values]
    assert tasks.chance_accuracy(cfg) == pytest.approx(by_hand)
    assert hit == pytest.approx(by_hand, abs=0.01)


def test_eval_set_has_equal_counts_per_bin_and_right_needles():
    cfg = _cfg()
    ev = tasks.eval_set(cfg)
    assert np.bincount(ev["bin"]).tolist() == [cfg.eval_per_bin] * 3
    edges = tasks.needle_bin_edges(6, 3)
    for row, b in zip(ev["kv_tokens"], ev["bin"]):
        i = list(row[1:13:2]).index(row[-1])
        assert edges[b] <= i < edges[b + 1]
    assert np.array_equal(ev["kv_tokens"], tasks.eval_set(cfg.replace(seed=5))["kv_tokens"])


def test_interventions_change_needle_distribution():
    p = tasks.needle_probs(_cfg(intervention="oversample_middle"), 0)
    assert p[2] > p[0] and np.isclose(p.sum(), 1)
    cur = _cfg(intervention="curriculum", curriculum_steps=5)
    assert np.all(tasks.needle_probs(cur, 0)[[0, 5]] == 0)
    assert np.allclose(tasks.needle_probs(cur, 5), 1 / 6)
    w = tasks.train_batch(_cfg(intervention="middle_weighted_loss"), 0)
    assert np.isclose(w["kv_weights"].mean(), 1, atol=1e-6) and np.isclose(w["lm_weights"].mean(), 1, atol=1e-6)


BAD = [(dict(task="qa"), "task"), (dict(steps=0), "steps"), (dict(model=toy_model(vocab=31)), "vocab_size"),
       (dict(needle_bins=16), "needle_bins"), (dict(lr=-1.0), "lr"), (dict(snapshot_steps=[0, -1]), "snapshot_steps"),
       (dict(intervention="x"), "intervention"), (dict(kv_format="qa"), "kv_format"), (dict(kv_keys=14), "kv_keys"),
       (dict(kv_values=0), "kv_values"), (dict(doc_length=1), "doc_length"), (dict(unroll_layers="True"), "unroll_layers"),
       (dict(model=toy_model(depth=0)), "model.depth"), (dict(model=toy_model(vocab_size=None)), "model.vocab_size"),
       (dict(model="toy"), "model must be an nn.DecoderConfig"), (dict(attn_impl="gpu"), "attn_impl"),
       (dict(model=toy_model(param_dtype="float64"), attn_impl="fused_cpu"), "attn_impl='fused_cpu'"),
       (dict(model=toy_model(position="learned", max_positions=100)), "max_positions")]


@pytest.mark.parametrize("kwargs,match", BAD, ids=[m for _, m in BAD])
def test_bad_config_names_the_field(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TrainConfig(**kwargs)


def test_vocab_must_hold_the_value_tokens():
    TrainConfig(model=toy_model(vocab=32))  # 2 + 15 keys + 15 keyed values, one per key
    with pytest.raises(ValueError, match="vocab_size must be >= 242"):
        TrainConfig(model=toy_model(vocab=241), kv_values=15)
    TrainConfig(model=toy_model(vocab=32), kv_format="shared", kv_values=15)  # 2 + 15 keys + 15 shared values


def test_default_model_is_the_toy_preset_with_the_old_overrides():
    cfg = TrainConfig()
    assert cfg.model == preset("toy", width=64, depth=2, heads=4, kv_heads=2, mlp_width=128, vocab_size=242)
    assert cfg.vocab == 242 and cfg.doc_length == 300 and cfg.needle_bins == 5


@pytest.mark.parametrize("cfg", [TrainConfig(), TrainConfig(**SMOKE),
                                 TrainConfig(model=toy_model(attn_mix=(0.5, 0.25)), snapshot_steps=(3, 1))])
def test_config_round_trips_through_json(cfg):
    """TrainConfig(**json) works: the nested model comes back as a dict, tuples as lists."""
    raw = json.loads(json.dumps(runs.jsonable(cfg)))
    assert isinstance(raw["model"], dict) and isinstance(raw["snapshot_steps"], list)
    again = TrainConfig(**raw)
    assert again == cfg and isinstance(again.snapshot_steps, tuple)
    assert dataclasses.replace(cfg) == cfg
    assert TrainConfig(model={"depth": 1}).model == dataclasses.replace(TrainConfig().model, depth=1)  # partial dict


def test_building_configs_never_imports_the_kernel():
    """Constructing and validating configs (attn_impl "auto" or "fused_cpu" included) leaves the
    fused kernel unimported, so it cannot compile (a fresh process)."""
    code = ("import sys; from lostmid_jax.train import TrainConfig, SMOKE; "
            "TrainConfig(); TrainConfig(**SMOKE); TrainConfig(attn_impl='fused_cpu'); "
            "print(any(m.startswith('lostmid_jax.kernels') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_passages_task_is_the_token_probe_with_one_needle_per_row():
    """Task "passages": each row is probes.token_probes' prompt with the fact in passage needle + 1, the target
    its value; the eval set has eval_per_bin rows per passage; chance is 1 / min(V - 2, T)."""
    cfg = TrainConfig(task="passages", kv_pairs=4, needle_bins=4, passage_length=32, kv_batch=16, eval_per_bin=5, lm_batch=8,
                      model=toy_model(width=16, depth=1, heads=2, kv_heads=1, vocab=40))
    batch = tasks.train_batch(cfg, 3)
    assert batch["kv_tokens"].shape == (16, 32) and batch["kv_weights"].shape == (16,)
    # the induction warm-up: n random ids then their copy, n varying per row; weights on the predictable repeats
    lm, w = batch["lm_tokens"], batch["lm_weights"]
    assert lm.shape == (cfg.lm_batch, 32) and w.mean() == pytest.approx(1.0)
    sizes = set()
    for row, weights in zip(lm, w):
        on = np.flatnonzero(weights)
        n = on[0]
        assert np.array_equal(on, np.arange(n, 2 * n - 1)) and np.array_equal(row[:n], row[n:2 * n])
        sizes.add(n)
    assert len(sizes) > 1 and min(sizes) >= 4 and max(sizes) <= 16  # T/8 .. T/2, varying
    assert np.array_equal(tasks.train_batch(cfg, 3)["kv_tokens"], batch["kv_tokens"])
    ev = tasks.eval_set(cfg)
    assert np.array_equal(np.bincount(ev["bin"]), [5] * 4) and ev["kv_tokens"].shape == (20, 32)
    assert tasks.chance_accuracy(cfg) == 1 / 32 and cfg.kv_length == 32
