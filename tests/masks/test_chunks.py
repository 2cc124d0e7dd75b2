"""masks/chunks.py: documents of a sequence as causal blocks: equal splits, validation, counts, labels."""

import numpy as np
import pytest

from lostmid_jax.masks import Chunks


def test_equal_splits_keep_a_shorter_last_segment():
    assert Chunks.equal(10, 4) == Chunks((4, 4, 2)) and Chunks.equal(8, 4) == Chunks((4, 4))
    assert Chunks.equal(3, 5) == Chunks((3,))


def test_counts_restart_at_every_document():
    assert Chunks((2, 3)).counts(5).tolist() == [1, 2, 1, 2, 3]
    i, j = np.indices((5, 5))
    seg = np.array([0, 0, 1, 1, 1])
    assert np.array_equal(Chunks((2, 3)).allows(i, j), (j <= i) & (seg[i] == seg[j]))


@pytest.mark.parametrize("lengths,match", [((0, 3), r"lengths\[0\] must be an int >= 1"), ((), "at least one"), ("23", "integers")])
def test_bad_lengths(lengths, match):
    with pytest.raises(ValueError, match=match):
        Chunks(lengths)


def test_check_labels_and_specs():
    with pytest.raises(ValueError, match="sum to 5 but length is 6"):
        Chunks((2, 3)).check(6)
    with pytest.raises(ValueError, match="segment ids at call time"):
        Chunks(None).check(4)
    assert Chunks((4, 4, 2)).label == "chunks 3x2-4" and Chunks(None).label == "documents"
    assert Chunks((4, 4, 2)).spec == "chunks:4" and Chunks((2, 3)).spec == "chunks:2+3"
