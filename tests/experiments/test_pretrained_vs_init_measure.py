"""The comparison's measurement: the recorded profiles are the engine's output."""

import numpy as np
import pytest

from lostmid_jax.analysis import influence_profile
from lostmid_jax.experiments import pretrained_vs_init as compare
from lostmid_jax.nn import load_hf


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=64, n_embd=16, n_layer=2, n_head=2, n_positions=32)
    path = tmp_path_factory.mktemp("gpt2")
    transformers.GPT2LMHeadModel(config).eval().save_pretrained(path)
    return path


@pytest.mark.extended  # a torch GPT-2 through the engine
def test_pretrained_profile_is_the_engine_output(gpt2):
    """The recorded pretrained profile is influence_profile on seed 0's embedded tokens, normalized."""
    cfg = compare.Config(checkpoint={"weights": str(gpt2)}, influence={"length": 16, "seeds": 2})
    result = compare.run(cfg, None, progress=False)
    _, model = load_hf(gpt2)
    tokens = np.random.default_rng(0).integers(0, 64, size=16).astype(np.int32)
    norms0 = influence_profile(model, model.embed(tokens), method="exact").norms
    tokens1 = np.random.default_rng(1).integers(0, 64, size=16).astype(np.int32)
    norms1 = influence_profile(model, model.embed(tokens1), method="exact").norms
    rows = [r for r in compare.profile_records(result.summaries) if r["model"] == "pretrained"]
    np.testing.assert_allclose([r["norm_mean"] for r in rows], (norms0 + norms1) / 2, rtol=1e-6)
    p = (norms0 / norms0.sum() + norms1 / norms1.sum()) / 2
    np.testing.assert_allclose([r["p_mean"] for r in rows], p, rtol=1e-6)
