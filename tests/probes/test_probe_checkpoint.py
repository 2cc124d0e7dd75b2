"""probes.checkpoint: the tiny Llama written with save_hf and its word tokenizer read back; the gain scales the
weight matrices only; a checkpoint without a tokenizer is named; titles."""

import numpy as np
import pytest

from lostmid_jax.nn import load_hf
from lostmid_jax.probes import builtin_facts, load_tokenizer, text_probes
from lostmid_jax.probes.checkpoint import (RANDOM_TINY, check_tokenizer_files, checkpoint_title, tiny_config,
                                           write_tiny_checkpoint)


def test_tiny_checkpoint_reads_back_with_its_tokenizer_and_gain(tmp_path):
    plain = write_tiny_checkpoint(tmp_path / "plain")
    loud = write_tiny_checkpoint(tmp_path / "loud", gain=5.0)
    (cfg, a), (_, b) = load_hf(plain), load_hf(loud)
    assert cfg == tiny_config()
    np.testing.assert_allclose(np.asarray(b.wte[...]), 5.0 * np.asarray(a.wte[...]), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(b.final_norm.scale[...]), np.asarray(a.final_norm.scale[...]))
    tok = load_tokenizer(loud)
    probes = text_probes(tok, builtin_facts(2), passages=3, length=40, candidates=2)
    assert probes.prompts.max() < cfg.vocab_size and 0 not in probes.prompts  # every word known, no [UNK]


def test_tokenizer_files_and_titles(tmp_path):
    with pytest.raises(ValueError, match="^weights: the checkpoint 'x' holds no tokenizer"):
        check_tokenizer_files(tmp_path, "x")
    (tmp_path / "tokenizer.json").write_text("{}")
    check_tokenizer_files(tmp_path, "x")
    assert checkpoint_title(RANDOM_TINY) == "tiny random Llama"
    assert checkpoint_title(str(tmp_path)) == tmp_path.name and checkpoint_title("org/model") == "org/model"


@pytest.mark.parametrize("weights,name", [("random:tiny-llama", "tiny random Llama"), ("/home/me/ckpts/qwen2", "qwen2"),
                                          ("~/models/llama/", "llama"), ("./local", "local"),
                                          ("C:\\models\\gpt2", "gpt2"), ("Qwen/Qwen2-0.5B", "Qwen/Qwen2-0.5B"),
                                          (".", ".")])
def test_a_stored_checkpoint_is_named_without_this_machines_directories(weights, name):
    from lostmid_jax.probes.checkpoint import stored_checkpoint_name

    assert stored_checkpoint_name(weights) == name
