"""runs.ledger: the record of the entries a run wrote, listed before each is written; clear removes those
and nothing else."""

import pytest

from lostmid_jax.runs import ledger, write_atomic


def test_a_run_never_replaces_a_file_it_did_not_list(tmp_path):
    (tmp_path / "results.csv").write_text("someone's table")
    with ledger.recording(tmp_path, fresh=True):
        write_atomic(tmp_path / "config.json", "{}")
        with pytest.raises(ValueError, match="results.csv was not written by this run"):
            write_atomic(tmp_path / "results.csv", "mine")
        write_atomic(tmp_path / "config.json", "{}")  # its own file, again
    assert (tmp_path / "results.csv").read_text() == "someone's table"
    assert ledger.read_ledger(tmp_path) == {"config.json"}
    (tmp_path / ledger.LEDGER_FILE).write_text("../outside\n/etc\n.\nconfig.json\n")  # a record someone sent
    assert ledger.read_ledger(tmp_path) == {"config.json"}


def test_an_entry_is_listed_by_its_top_level_name_and_a_resumed_run_extends_the_list(tmp_path):
    (tmp_path / "units").mkdir()
    with ledger.recording(tmp_path, fresh=True):
        write_atomic(tmp_path / "units" / "u0.npz", b"0")
    assert ledger.read_ledger(tmp_path) == {"units"}
    with ledger.recording(tmp_path, fresh=False):
        write_atomic(tmp_path / "results.csv", "a\n")
    write_atomic(tmp_path / "after.txt", "not recorded")  # no run records now
    assert ledger.read_ledger(tmp_path) == {"units", "results.csv"}


def test_clear_removes_the_listed_entries_their_temporaries_and_the_record_only(tmp_path):
    with ledger.recording(tmp_path, fresh=True):
        write_atomic(tmp_path / "results.csv", "a\n")
        ledger.note(tmp_path / "units")  # a folder made by hand: listed before it exists
        (tmp_path / "units").mkdir()
        (tmp_path / "units" / "u0.npz").write_bytes(b"0")
    (tmp_path / ".results.csv.k2j3.tmp").write_text("half")  # a killed write's temporary
    (tmp_path / "notes.txt").write_text("mine")
    removed, left = ledger.clear(tmp_path)
    assert removed == [".lostmid-files", ".results.csv.k2j3.tmp", "results.csv", "units"]
    assert left == ["notes.txt"] and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    with pytest.raises(ValueError, match=r"^out: .* has no \.lostmid-files"):
        ledger.clear(tmp_path)
