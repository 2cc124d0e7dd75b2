"""Tiny random Hugging Face causal LMs (Llama, Qwen2, GPT-2) saved with save_pretrained, with a word-level
tokenizer over the built-in probe vocabulary (the `tokenizers` library); no network."""

import pathlib

from lostmid_jax.probes import builtin_vocabulary, save_tokenizer, word_tokenizer

SHAPE = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
             intermediate_size=48, max_position_embeddings=256)


def tokenizer():
    return word_tokenizer(builtin_vocabulary())


def tiny_lm(family: str, *, vocab_size: int, seed: int = 0):
    """A tiny causal LM with every parameter random and large enough that its distributions are sharp."""
    import torch
    import transformers

    torch.manual_seed(seed)
    if family == "gpt2":
        config = transformers.GPT2Config(attn_implementation="eager", vocab_size=vocab_size, n_embd=32, n_layer=2,
                                         n_head=4, n_positions=64)
        model = transformers.GPT2LMHeadModel(config)
    else:
        cls = {"llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
               "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM)}[family]
        model = cls[1](cls[0](attn_implementation="eager", vocab_size=vocab_size, **SHAPE))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight") or name.endswith("ln_1.weight") or name.endswith("ln_2.weight"):
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
            else:
                p.normal_(0.0, 0.3 if name.endswith("weight") else 0.1)
    return model.eval()


def save_tiny_lm(family: str, path: pathlib.Path, *, with_tokenizer: bool = True):
    """Save a tiny LM (and the word tokenizer) under ``path``; returns the torch model."""
    tok = tokenizer()
    model = tiny_lm(family, vocab_size=tok.get_vocab_size())
    model.save_pretrained(path)
    if with_tokenizer:
        save_tokenizer(tok, path)
    return model
