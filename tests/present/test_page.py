"""present.page: the title and results table an experiment gives its report page, or None for each."""

import types

import pytest

from lostmid_jax.present.page import PageTable, page_parts


def test_a_row_must_have_as_many_cells_as_the_header():
    with pytest.raises(ValueError, match=r"rows must have 2 cells like the header, got 1: \('x',\)"):
        PageTable(("a", "b"), (("x",),))


def test_page_parts_asks_the_module_and_falls_back_to_none():
    table = PageTable(("remedy", "verdict"), (("none", "helps"),), note="n", outcomes=(1,))
    module = types.SimpleNamespace(page_title=lambda cfg: f"run of {cfg}", page_table=lambda tables, cfg: table)
    assert page_parts(module, {}, "cfg") == ("run of cfg", table)
    assert page_parts(types.SimpleNamespace(), {}, "cfg") == (None, None)


def test_a_run_the_parts_cannot_be_read_from_gives_none_not_an_error():
    def missing(tables, cfg):
        return tables["effects"]  # an older run without this table

    module = types.SimpleNamespace(page_title=lambda cfg: cfg.checkpoint, page_table=missing)
    assert page_parts(module, {}, types.SimpleNamespace()) == (None, None)  # AttributeError, KeyError
