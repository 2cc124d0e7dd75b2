"""The one atomic writer: the final file appears whole, under its temporary name only until the rename."""

import pytest

from lostmid_jax.runs import atomic, replacing, write_atomic


def test_write_atomic_keeps_text_as_given_and_leaves_no_temporary(tmp_path):
    path = write_atomic(tmp_path / "t.csv", "a,b\r\n1,2\r\n")
    assert path.read_bytes() == b"a,b\r\n1,2\r\n"
    assert write_atomic(tmp_path / "b.bin", b"\x00\x01").read_bytes() == b"\x00\x01"
    write_atomic(tmp_path / "m", "x\n", tmp="m.tmp", durable=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.bin", "m", "t.csv"]


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError), replacing(path) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert path.read_text() == "old"
    assert atomic.temporary_path(path).name == ".f.txt.tmp"
