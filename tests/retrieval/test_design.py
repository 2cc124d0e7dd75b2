"""retrieval.design: a prompt assembled around the fact, filler budgets, padding of a ProbeSet, baselines."""

import numpy as np
import pytest

from lostmid_jax.retrieval.design import ProbeSet, assemble, baselines, budgets, check_design, probe_set


def test_assemble_puts_the_fact_at_the_cut_of_its_passage():
    pieces, cuts = [[1, 2, 3], [4, 5], [6, 7]], [1, 1, 2]
    row, start = assemble(pieces, cuts, [9, 9], 1, [0], [8], [7, 7])
    assert row == [8, 1, 2, 3, 0, 4, 9, 9, 5, 0, 6, 7, 7, 7] and row[start:start + 2] == [9, 9]
    row, start = assemble(pieces, cuts, [9], 2, [], [], [])
    assert row == [1, 2, 3, 4, 5, 6, 7, 9] and start == 7


def test_budgets_split_evenly_and_refuse_too_little():
    assert budgets(11, 3) == [4, 4, 3] and sum(budgets(100, 7)) == 100
    with pytest.raises(ValueError, match="length"):
        budgets(5, 3)


def test_probe_set_pads_and_baselines_share_one_width():
    answers = [[[5], [6, 6]], [[7], [8]]]
    probes = probe_set([[[1, 2, 3], [1, 2]], [[4, 4, 4], [4, 4, 4]]], [[0, 1], [1, 0]], answers, [1, 1], "tokens")
    assert isinstance(probes, ProbeSet) and probes.prompts.shape == (2, 2, 3) and probes.answers.shape == (2, 2, 2)
    assert probes.prompt_lengths.tolist() == [[3, 2], [3, 3]] and probes.prompt(0, 1).tolist() == [1, 2]
    assert probes.answer_lengths.tolist() == [[1, 2], [1, 1]] and probes.positions_needed == 3 + 2 - 1
    base = baselines([1], [[2, 3], [4]], [[9], [9, 9]], answers, "tokens")
    assert base["closed-book"].prompts.shape[2] == base["oracle"].prompts.shape[2] == 4
    assert base["oracle"].prompt(0, 0).tolist() == [1, 2, 3, 9] and base["closed-book"].prompt(1, 0).tolist() == [1, 9, 9]
    with pytest.raises(ValueError, match="example 1"):
        probe_set([[[1]], [[1]]], [[0], [0]], [[[5]], [[]]], [1, 1], "tokens")


def test_check_design_names_the_argument():
    assert check_design(2, 8, 2) == (2, 8, 2)
    for args, name in (((1, 8, 2), "passages"), ((2, 7, 2), "length"), ((2, 8, 1), "candidates")):
        with pytest.raises(ValueError, match=name):
            check_design(*args)
