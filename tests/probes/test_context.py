"""probes.context: the trained context of a checkpoint (max_position_embeddings, or the context its rope_scaling
names) and lengths beyond it refused in one line naming the flag, or returned to be marked with allow."""

import pytest

from lostmid_jax.nn import RopeScaling, preset
from lostmid_jax.probes.context import check_context, extrapolated, trained_context


def _llama(**changes):
    return preset("llama-3.2-1b", depth=1, width=16, heads=2, kv_heads=1, mlp_width=32, vocab_size=50,
                  **{"rope_scaling": None, "max_positions": 512, **changes})


@pytest.mark.parametrize("changes,context,why", [
    ({}, 512, "max_position_embeddings 512"),
    ({"rope_scaling": RopeScaling(kind="yarn", factor=4.0, original_max_positions=512)}, 2048,
     "rope_scaling yarn: factor 4 x original context 512"),
    ({"rope_scaling": RopeScaling(kind="linear", factor=2.0)}, 1024, "rope_scaling linear: factor 2 x original"),
    # Llama 3.1: max_position_embeddings already the scaled context (131072 >= 8 x 8192)
    ({"max_positions": 131072, "rope_scaling": RopeScaling(kind="llama3", factor=8.0, low_freq_factor=1.0,
                                                           high_freq_factor=4.0, original_max_positions=8192)},
     131072, "max_position_embeddings 131072"),
])
def test_trained_context(changes, context, why):
    got, how = trained_context(_llama(**changes))
    assert got == context and how.startswith(why)


def test_lengths_beyond_are_refused_naming_the_flag_or_marked():
    cfg = _llama()
    assert check_context(cfg, {256: 256, 512: 512}, allow=False) == ()
    with pytest.raises(ValueError, match=r"^lengths: T = 600 \(and 8192\) needs 600 positions, beyond the checkpoint's "
                                         r"trained context of 512 \(max_position_embeddings 512\).*--allow-extrapolation"):
        check_context(cfg, {256: 256, 600: 600, 8192: 8192}, allow=False)
    with pytest.raises(ValueError, match=r"needs 513 positions"):  # the answer's extra ids count
        check_context(cfg, {512: 513}, allow=False)
    assert check_context(cfg, {256: 256, 600: 600}, allow=True) == (600,)
    assert extrapolated(cfg, 513) and not extrapolated(cfg, 512)
    learned = preset("gpt2-small", depth=1, width=16, heads=2, vocab_size=50, max_positions=32)
    with pytest.raises(ValueError, match=r"learned position table holds max_positions=32"):
        check_context(learned, {40: 40}, allow=True)  # a learned table has no position 33, whatever the flag
