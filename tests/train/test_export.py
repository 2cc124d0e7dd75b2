"""load_trained: a run's model back from its checkpoints; save_hf / load_hf round trip; strict JSON lines."""

import json
import math

import numpy as np
import pytest

from lostmid_jax.nn import load_hf, save_hf
from lostmid_jax.train import TrainConfig, load_trained, read_jsonl, toy_model, train
from lostmid_jax.train.loop import strict_json

TINY = dict(task="retrieval", model=toy_model(width=16, depth=1, heads=2, kv_heads=1, vocab=16), kv_pairs=4,
            needle_bins=2, kv_batch=4, lm_length=24, doc_length=8, lm_batch=2, eval_per_bin=4, warmup=2)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A micro-training-shaped run directory: <root>/none/seed0 trained 4 steps (checkpoints 2 and 4)."""
    root = tmp_path_factory.mktemp("mt")
    cfg = TrainConfig(**TINY).replace(steps=4, ckpt_every=2, keep=2, attn_impl="blocked", snapshot_steps=(0, 4))
    return root, train(cfg, root / "none" / "seed0")


def _params(model):
    from flax import nnx

    import jax
    return [np.asarray(x) for x in jax.tree.leaves(nnx.state(model, nnx.Param))]


def test_latest_step_is_the_trained_state(run):
    root, result = run
    cfg, model = load_trained(root)
    assert cfg == result.cfg and model.cfg == result.cfg.model
    import jax
    want = [np.asarray(x) for x in jax.tree.leaves(result.params)]
    assert all(np.array_equal(a, b) for a, b in zip(_params(model), want))
    _, earlier = load_trained(root, step=2)
    assert not all(np.array_equal(a, b) for a, b in zip(_params(earlier), want))


@pytest.mark.parametrize("kwargs,name", [(dict(seed=1), "seed=1"), (dict(step=3), "step=3"),
                                         (dict(intervention="curriculum"), "intervention='curriculum'"),
                                         (dict(seed=-1), "seed")])
def test_missing_seed_step_or_intervention_named(run, kwargs, name):
    root, _ = run
    with pytest.raises(ValueError, match=name.replace("(", r"\(")) as err:
        load_trained(root, **kwargs)
    if "step" in kwargs:
        assert "[2, 4]" in str(err.value)  # lists what is there
    if kwargs.get("seed") == 1:
        assert "[0]" in str(err.value)


def test_missing_run_dir_named(tmp_path):
    with pytest.raises(ValueError, match="run_dir"):
        load_trained(tmp_path / "nowhere")


def test_save_hf_then_load_hf_gives_the_same_logits(run, tmp_path):
    root, _ = run
    cfg, model = load_trained(root)
    save_hf(model, cfg.model, tmp_path / "hf")
    hf_cfg, back = load_hf(tmp_path / "hf")
    assert hf_cfg == cfg.model
    tokens = np.random.default_rng(0).integers(0, cfg.vocab, size=12).astype(np.int32)
    np.testing.assert_allclose(np.asarray(back.lm(tokens)), np.asarray(model.lm(tokens)), rtol=1e-6, atol=1e-6)


def test_export_hf_writes_a_tokenizer_that_names_the_ids(run, tmp_path):
    """export_hf: the checkpoint plus a `tokenizers` tokenizer whose word "t<i>" is id i, read back by
    probes.load_tokenizer and by the `tokenizers` library itself."""
    import tokenizers

    from lostmid_jax.probes import load_tokenizer
    from lostmid_jax.train import export_hf

    root, _ = run
    cfg, out = export_hf(root, tmp_path / "hf")
    assert load_hf(out)[0] == cfg.model
    ids = [2, 7, cfg.vocab - 1]
    text = " ".join(f"t{i}" for i in ids)
    assert load_tokenizer(out).encode(text) == ids
    assert tokenizers.Tokenizer.from_file(str(out / "tokenizer.json")).encode(text, add_special_tokens=False).ids == ids


def _strict(text):
    def refuse(token):
        raise ValueError(f"non-standard JSON constant {token}")
    return json.loads(text, parse_constant=refuse)


def test_jsonl_files_are_strict_json(run):
    root, result = run
    for name in ("metrics.jsonl", "snapshots.jsonl"):
        lines = (root / "none" / "seed0" / name).read_text().splitlines()
        assert lines and all(isinstance(_strict(line), dict) for line in lines)
    # the LM-free task has no document boundaries: its spike is NaN, stored as null, read back as NaN
    snap = _strict((root / "none" / "seed0" / "snapshots.jsonl").read_text().splitlines()[0])
    assert snap["total_spike"] is None and math.isnan(result.snapshots[0]["total_spike"])
    assert math.isnan(read_jsonl(root / "none" / "seed0" / "snapshots.jsonl")[0]["total_spike"])


def test_strict_json_replaces_every_non_finite_value():
    row = {"step": 1, "a": math.nan, "b": [1.0, math.inf, {"c": -math.inf}], "d": 2.5}
    assert strict_json(row) == {"step": 1, "a": None, "b": [1.0, None, {"c": None}], "d": 2.5}
    _strict(json.dumps(strict_json(row), allow_nan=False))
