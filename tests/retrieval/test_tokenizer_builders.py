"""retrieval.tokenizer_builders: the word-level ids, a BPE that writes every text, tokenizer.json written."""

import json

from lostmid_jax.retrieval.tokenizer_builders import BOS, UNK, bpe_tokenizer, save_tokenizer, word_tokenizer


def test_word_tokenizer_ids_and_saved_files(tmp_path):
    tok = word_tokenizer(["code", "of", "code", "Arlo"])
    assert tok.token_to_id(UNK) == 0 and tok.token_to_id(BOS) == 1
    assert tok.encode("code of Arlo zebra").ids == [2, 3, 4, 0]  # duplicates dropped; unknown words are [UNK]
    path = save_tokenizer(tok, tmp_path / "tok")
    config = json.loads((path / "tokenizer_config.json").read_text())
    assert config == {"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": UNK, "bos_token": BOS}
    assert json.loads((path / "tokenizer.json").read_text())["model"]["vocab"]["Arlo"] == 4


def test_bpe_tokenizer_writes_every_text_without_unk():
    tok = bpe_tokenizer(["the river faces the garden"] * 4, vocab_size=270)
    assert tok.get_vocab_size() <= 270 and tok.token_to_id(UNK) == 0 and tok.token_to_id(BOS) == 1
    ids = tok.encode("zebra 42!").ids
    assert ids and 0 not in ids and tok.decode(ids) == "zebra 42!"
