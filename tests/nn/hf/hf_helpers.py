"""Tiny random Hugging Face GPT-2 / Qwen2 checkpoints saved with transformers (no network); the shared
helpers of tests/nn/hf."""

import pathlib

TINY = {
    "gpt2": dict(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=64),
    "qwen2": dict(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                  rope_theta=1000.0),
    "qwen2-tied": dict(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=1, tie_word_embeddings=True),
}


def tiny_hf_model(name: str, seed: int = 0):
    """A tiny causal LM of family ``name`` (keys of TINY), eval mode, eager attention, float32."""
    import torch
    import transformers

    torch.manual_seed(seed)
    if name == "gpt2":
        config = transformers.GPT2Config(attn_implementation="eager", **TINY[name])
        model = transformers.GPT2LMHeadModel(config)
    else:
        config = transformers.Qwen2Config(attn_implementation="eager", **TINY[name])
        model = transformers.Qwen2ForCausalLM(config)
    return model.eval()


def save_tiny(name: str, path: pathlib.Path, **kwargs):
    """Save tiny_hf_model(name) with save_pretrained (safetensors) to ``path``; returns the torch model."""
    model = tiny_hf_model(name)
    model.save_pretrained(path, **kwargs)
    return model


def base_model(model):
    """The bare decoder (GPT2Model / Qwen2Model) inside a causal LM."""
    return model.transformer if hasattr(model, "transformer") else model.model
