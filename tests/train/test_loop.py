"""A finished training run seals metrics.jsonl and snapshots.jsonl: a file edited afterwards is refused, naming
it, instead of flowing into the run's tables; resuming a sealed run reads its records back and seals them again."""

import json

import pytest

from lostmid_jax.train import train
from lostmid_jax.train.loop import SEAL_KEY, read_jsonl, seal_jsonl


def test_a_sealed_file_reads_back_and_an_edited_one_is_refused(tmp_path):
    path = tmp_path / "snapshots.jsonl"
    path.write_text('{"step": 0, "x": 1.5}\n{"step": 1, "x": 2.5}\n')
    seal_jsonl(path)
    assert json.loads(path.read_text().splitlines()[-1])[SEAL_KEY]["records"] == 2
    assert [r["x"] for r in read_jsonl(path)] == [1.5, 2.5]
    for edited in (path.read_text().replace("2.5", "9.5"),                        # a value changed
                   path.read_text().replace('{"step": 0, "x": 1.5}\n', ""),        # a row removed
                   '{"step": 2, "x": 0.0}\n' + path.read_text()):                 # a row added
        path.write_text(edited)
        with pytest.raises(ValueError, match=f"{path} was changed after its run sealed it"):
            read_jsonl(path)
    path.write_text('{"step": 0}\n')
    seal_jsonl(path)
    path.write_text(path.read_text() + '{"step": 1}\n')
    with pytest.raises(ValueError, match="lines after its seal"):
        read_jsonl(path)


def test_a_finished_run_is_sealed_and_an_edited_record_stops_its_resumption(tiny, tmp_path):
    """Before: an edited snapshots.jsonl flowed into snapshots.csv on the next (resuming) run."""
    cfg = tiny.replace(steps=2, snapshot_steps=(0, 2), ckpt_every=2)
    first = train(cfg, tmp_path)
    for name in ("metrics.jsonl", "snapshots.jsonl"):
        assert SEAL_KEY in (tmp_path / name).read_text().splitlines()[-1]
    again = train(cfg, tmp_path)  # resumed at its last step: the same records, sealed again
    assert again.metrics == first.metrics and len(again.snapshots) == len(first.snapshots) == 2
    path = tmp_path / "snapshots.jsonl"
    lines = path.read_text().splitlines()
    row = json.loads(lines[0])
    row["step"] = 0
    row = {k: (v * 0 if isinstance(v, float) else v) for k, v in row.items()}
    path.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match="snapshots.jsonl was changed after its run sealed it"):
        train(cfg, tmp_path)
