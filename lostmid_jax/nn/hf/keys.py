"""The config.json keys a family knows, and the refusal of any other key that would change the model.

Each family module names the top-level keys it reads (``HANDLED_KEYS``: turned into DecoderConfig
fields, or refused at values it does not compute) and those it knowingly ignores (``IGNORED_KEYS``:
dropouts, caches, training switches that leave the forward function unchanged). Keys every
transformers config may carry are shared here: :data:`GENERIC_IGNORED` (bookkeeping, output
switches, token ids, generation settings) and :data:`GENERIC_DEFAULTS` (base-class keys that would
change the function, with transformers' defaults). Any other key is accepted only at transformers'
default for it: the value in :data:`GENERIC_DEFAULTS`, else null (a key the family's config class
does not have defaults to absent). So a future key (a logit soft-capping, say) is refused in one
line naming it and the family, not silently dropped.

The lists are pinned against transformers' config classes by tests/nn/hf/test_keys.py; nothing
here imports transformers.
"""

from __future__ import annotations

import json

GENERIC_IGNORED = frozenset({
    # bookkeeping of the file and of the code that wrote it (auto_map names remote code: never executed)
    "transformers_version", "architectures", "model_type", "_name_or_path", "_commit_hash", "auto_map",
    "dtype", "torch_dtype", "use_bfloat16", "torchscript", "tf_legacy_loss", "tokenizer_class", "prefix",
    "finetuning_task", "task_specific_params", "problem_type", "id2label", "label2id", "num_labels",
    "attn_implementation", "_attn_implementation", "_attn_implementation_autoset", "chunk_size_feed_forward",
    # what a forward pass returns, not what it computes
    "output_hidden_states", "output_attentions", "return_dict", "use_cache", "is_decoder",
    # token ids and generation settings (transformers 4 kept them in the model's config)
    "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "unk_token_id", "decoder_start_token_id",
    "max_length", "min_length", "do_sample", "early_stopping", "num_beams", "num_beam_groups", "diversity_penalty",
    "temperature", "top_k", "top_p", "typical_p", "repetition_penalty", "length_penalty", "no_repeat_ngram_size",
    "encoder_no_repeat_ngram_size", "bad_words_ids", "num_return_sequences", "output_scores",
    "return_dict_in_generate", "forced_bos_token_id", "forced_eos_token_id", "remove_invalid_values",
    "exponential_decay_length_penalty", "suppress_tokens", "begin_suppress_tokens",
})

# Keys of transformers' base config that change the model, with their defaults (accepted only there).
GENERIC_DEFAULTS = {"is_encoder_decoder": False, "add_cross_attention": False, "tie_encoder_decoder": False,
                    "pruned_heads": {}, "cross_attention_hidden_size": None}


def _show(value) -> str:
    return json.dumps(value)[:60]


def check_keys(raw: dict, family: str, handled: frozenset[str], ignored: frozenset[str]) -> None:
    """ValueError naming the first key of ``raw`` that ``family`` neither handles nor ignores and whose
    value differs from transformers' default (GENERIC_DEFAULTS, else null)."""
    known = handled | ignored | GENERIC_IGNORED
    for key, value in raw.items():
        if key in known:
            continue
        default = GENERIC_DEFAULTS.get(key)
        if value != default:
            raise ValueError(f"config.json {key}={_show(value)} is not supported for {family} (a key "
                             f"nn/hf/{family}.py neither reads nor knowingly ignores, at a value other than "
                             f"transformers' default {_show(default)})")
