"""The one atomic writer: the final file appears whole; its temporary is fresh (O_EXCL, random name) and never
a planted symlink; every writer of the package goes through it."""

import os
import pathlib
import re

import pytest

from lostmid_jax import atomic
from lostmid_jax.atomic import is_temporary, replacing, write_atomic

PACKAGE = pathlib.Path(atomic.__file__).resolve().parent


def test_write_atomic_keeps_text_as_given_and_leaves_no_temporary(tmp_path):
    path = write_atomic(tmp_path / "t.csv", "a,b\r\n1,2\r\n")
    assert path.read_bytes() == b"a,b\r\n1,2\r\n"
    assert write_atomic(tmp_path / "b.bin", b"\x00\x01").read_bytes() == b"\x00\x01"
    write_atomic(tmp_path / "m", "x\n", durable=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.bin", "m", "t.csv"]
    umask = os.umask(0o022)
    os.umask(umask)
    assert (path.stat().st_mode & 0o777) == 0o666 & ~umask  # as open(path, "w") makes it, not mkstemp's 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError), replacing(path) as f:
        f.write(b"half")
        (temporary,) = [p.name for p in tmp_path.iterdir() if p.name != "f.txt"]
        assert is_temporary(temporary, "f.txt")
        raise RuntimeError("killed")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


@pytest.mark.parametrize("planted", [".report.html.tmp", "report.html.tmp", ".report.html.XXXX.tmp"])
def test_planted_temporary_symlinks_are_never_written_through(tmp_path, planted):
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / planted).symlink_to(victim)
    (run / "report.html").symlink_to(victim)  # the final name too: the rename replaces the link, not its target
    write_atomic(run / "report.html", "<html>page</html>")
    assert victim.read_text() == "precious\n"
    assert not (run / "report.html").is_symlink() and (run / "report.html").read_text() == "<html>page</html>"


def test_two_writers_get_distinct_temporaries(tmp_path):
    with replacing(tmp_path / "x") as a, replacing(tmp_path / "x") as b:
        assert len(list(tmp_path.iterdir())) == 2
        a.write(b"a")
        b.write(b"b")
    assert (tmp_path / "x").read_bytes() in (b"a", b"b")


def test_every_writer_of_the_package_uses_the_atomic_writer():
    """No module but atomic.py opens a file for writing by a fixed temporary name or writes a run file
    with write_text/write_bytes/open(..., "w") directly (nn/hf/files.py's save_hf and
    retrieval/tokenizer_builders.py's save_tokenizer write a new export directory, not a run's files, and are
    allowed)."""
    allowed = {"atomic.py", "nn/hf/files.py", "retrieval/tokenizer_builders.py"}
    offenders = []
    pattern = re.compile(r"\.write_text\(|\.write_bytes\(|open\([^)]*[\"'][wa]b?[\"']|\.tmp[\"']")
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in allowed:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{rel}:{number}: {line.strip()}")
    # train/loop.py appends one line per step to metrics.jsonl / snapshots.jsonl (a torn last line is dropped
    # on resume), the one append the package does
    offenders = [o for o in offenders if not (o.startswith("train/loop.py") and 'open(path, "a")' in o)]
    assert offenders == []


def test_temporary_names_are_hidden_and_recognized():
    assert is_temporary(".MANIFEST.k2j3.tmp", "MANIFEST") and not is_temporary("MANIFEST", "MANIFEST")
    assert os.path.basename(".x.abc.tmp").startswith(".")


def test_a_guard_sees_each_path_first_and_may_refuse_the_write(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic, "_guards", [])
    seen = []
    atomic.add_guard(seen.append)
    atomic.add_guard(seen.append)  # once only
    write_atomic(tmp_path / "a.txt", "a")
    assert seen == [tmp_path / "a.txt"]

    def refuse(path):
        raise ValueError(f"{path.name} refused")

    atomic.add_guard(refuse)
    with pytest.raises(ValueError, match="b.txt refused"):
        write_atomic(tmp_path / "b.txt", "b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]  # nothing written, no temporary

