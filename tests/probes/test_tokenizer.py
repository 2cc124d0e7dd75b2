"""probes.tokenizer: the word-level tokenizer read back by load_tokenizer and by transformers' AutoTokenizer;
a checkpoint without a tokenizer is refused, naming the argument."""

import json

import pytest

from lostmid_jax.probes import builtin_vocabulary, load_tokenizer, save_tokenizer, word_tokenizer


def test_saved_word_tokenizer_reads_back_in_both_libraries(tmp_path):
    transformers = pytest.importorskip("transformers")
    save_tokenizer(word_tokenizer(builtin_vocabulary()), tmp_path)
    ours = load_tokenizer(tmp_path)
    auto = transformers.AutoTokenizer.from_pretrained(tmp_path, local_files_only=True)
    text = " The code of Arlo Finch is 42.\n\nQuestion: What is the code of Arlo Finch?\nAnswer:"
    assert ours.encode(text) == auto.encode(text, add_special_tokens=False)
    assert ours.bos_id == auto.bos_token_id == 1 and 0 not in ours.encode(text)  # no [UNK]
    assert ours.vocab_size == len(auto)


def test_checkpoint_without_tokenizer_is_named(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    with pytest.raises(ValueError, match=r"^weights: .*holds no tokenizer.*tokens"):
        load_tokenizer(tmp_path)
    with pytest.raises(ValueError, match=r"^checkpoint: "):
        load_tokenizer(tmp_path, name="checkpoint")
