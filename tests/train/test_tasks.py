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


@pytest.mark.parametrize("field,value", [("task", "qa"), ("steps", 0), ("kv_pairs", 40), ("depth_bins", 16),
                                         ("lr", -1.0), ("snapshot_steps", [0, 1]), ("intervention", "x")])
def test_bad_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=field if field != "kv_pairs" else "vocab"):
        TrainConfig(**{field: value})
