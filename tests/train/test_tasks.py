"""Synthetic tasks: purity in (seed, t), retrieval structure, depth control."""

import numpy as np
import pytest

from lostmid_jax.train import TrainConfig, tasks


def _cfg(**kw):
    return TrainConfig(lm_length=40, chunk=10, kv_pairs=6, depth_bins=3, kv_batch=64, lm_batch=3, **kw)


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
    cfg = _cfg(kv_keys=8, kv_values=5, vocab=2 + 8 + 40)
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
    cfg = _cfg(kv_format=fmt, kv_keys=6, kv_values=values, vocab=2 + 6 + 6 * values)
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


def test_eval_set_has_equal_counts_per_bin_and_right_depths():
    cfg = _cfg()
    ev = tasks.eval_set(cfg)
    assert np.bincount(ev["bin"]).tolist() == [cfg.eval_per_bin] * 3
    edges = tasks.depth_bin_edges(6, 3)
    for row, b in zip(ev["kv_tokens"], ev["bin"]):
        i = list(row[1:13:2]).index(row[-1])
        assert edges[b] <= i < edges[b + 1]
    assert np.array_equal(ev["kv_tokens"], tasks.eval_set(cfg.replace(seed=5))["kv_tokens"])


def test_interventions_change_depth_distribution():
    p = tasks.depth_probs(_cfg(intervention="oversample_middle"), 0)
    assert p[2] > p[0] and np.isclose(p.sum(), 1)
    cur = _cfg(intervention="curriculum", curriculum_steps=5)
    assert np.all(tasks.depth_probs(cur, 0)[[0, 5]] == 0)
    assert np.allclose(tasks.depth_probs(cur, 5), 1 / 6)
    w = tasks.train_batch(_cfg(intervention="middle_loss"), 0)
    assert np.isclose(w["kv_weights"].mean(), 1, atol=1e-6) and np.isclose(w["lm_weights"].mean(), 1, atol=1e-6)


@pytest.mark.parametrize("field,value", [("task", "qa"), ("steps", 0), ("vocab", 31), ("depth_bins", 16),
                                         ("lr", -1.0), ("snapshot_steps", [0, 1]), ("intervention", "x"),
                                         ("kv_format", "qa"), ("kv_keys", 14), ("kv_values", 0)])
def test_bad_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        TrainConfig(**{field: value})


def test_vocab_must_hold_the_value_tokens():
    TrainConfig(vocab=32)  # 2 + 15 keys + 15 keyed values, one per key
    with pytest.raises(ValueError, match="vocab must be >= 242"):
        TrainConfig(vocab=241, kv_values=15)
    TrainConfig(vocab=32, kv_format="shared", kv_values=15)  # 2 + 15 keys + 15 shared values
