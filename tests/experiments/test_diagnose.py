"""lostmid diagnose: the offline smoke run and its files, every column documented, and bad input refused (one
line naming the argument, exit 2) before any model is loaded."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from flax import nnx

from lostmid_jax import cli
from lostmid_jax.experiments import diagnose
from lostmid_jax.experiments.script import build_config
from lostmid_jax.nn import Decoder, load_hf, preset, save_hf


@pytest.fixture(scope="module")
def smoke_run(smoke_runs):
    return smoke_runs("diagnose")


def _tables(run):
    from lostmid_jax.runs import read_tables

    return read_tables(run)


def test_smoke_writes_its_checkpoint_and_every_file(smoke_run):
    names = {p.name for p in smoke_run.iterdir()}
    assert {"config.json", "columns.csv", "table.txt", "verdict.txt", "checkpoint", "fig1_accuracy.png",
            "fig2_attention.png", "fig3_heatmap.png", "fig4_influence.png"} <= names
    assert {f"{n}" for n in diagnose.COLUMNS} <= names
    config = json.loads((smoke_run / "config.json").read_text())
    assert config["config"]["checkpoint"]["weights"] == diagnose.RANDOM_TINY and config["smoke"] is True
    assert (smoke_run / "checkpoint" / "tokenizer.json").is_file()
    cfg, _ = load_hf(smoke_run / "checkpoint")
    assert cfg.position == "rope" and cfg.mlp == "swiglu"
    verdict = (smoke_run / "verdict.txt").read_text()
    assert "Position test" in verdict and "At birth" in verdict and "power law" in verdict


def test_every_column_is_documented_and_positions_are_one_based(smoke_run):
    t = _tables(smoke_run)
    for name, frame in t.items():
        assert list(frame.columns) == list(diagnose.COLUMNS[f"{name}.csv"]), name
    k, lengths = diagnose.SMOKE["probe.passages"], diagnose.SMOKE["probe.lengths"]
    T = lengths[0]  # attention and profiles are measured at the first length
    assert t["accuracy"]["passage"].tolist() == list(range(1, k + 1)) * len(lengths)
    assert t["accuracy"]["length"].tolist() == [t for t in lengths for _ in range(k)]
    assert t["profiles"]["j"].tolist() == list(range(1, T + 1))
    np.testing.assert_allclose(t["profiles"][["trained", "step0", "prior"]].sum(), 1.0, rtol=1e-6)
    acc = t["accuracy"]
    assert np.all(acc["accuracy_lo"] <= acc["accuracy"] + 1e-9) and np.all(acc["accuracy"] <= acc["accuracy_hi"] + 1e-9)
    ex = t["examples"]
    per_passage = ex.groupby(["length", "passage"])["correct"].mean().to_numpy()  # the rates are the examples' means
    np.testing.assert_allclose(per_passage, acc["accuracy"], atol=1e-6)
    dictionary = pd.read_csv(smoke_run / "columns.csv")
    assert set(dictionary["file"]) == set(diagnose.COLUMNS)


@pytest.fixture(scope="module")
def bare_checkpoints(tmp_path_factory):
    """A Llama checkpoint without a tokenizer, and a GPT-2 one with a 32-position learned table."""
    root = tmp_path_factory.mktemp("bare")
    llama = preset("llama-3.2-1b", depth=1, width=16, heads=2, kv_heads=1, mlp_width=32, rope_scaling=None,
                   vocab_size=50, max_positions=64)
    save_hf(Decoder(llama, rngs=nnx.Rngs(0)), llama, root / "llama")
    gpt2 = preset("gpt2-small", depth=1, width=16, heads=2, vocab_size=50, max_positions=32)
    save_hf(Decoder(gpt2, rngs=nnx.Rngs(0)), gpt2, root / "gpt2")
    return root


@pytest.mark.parametrize("flags,message", [
    (["--weights", "{root}/llama"], "weights: the checkpoint .* holds no tokenizer"),
    (["--weights", "{root}/llama", "--mode", "tokens", "--passages", "1"], "passages must be"),
    (["--weights", "{root}/gpt2", "--mode", "tokens", "--lengths", "16,40"], "lengths: T = 40 needs 40 positions .*learned position table"),
    (["--weights", "{root}/missing"], "weights: "),
])
def test_bad_input_is_one_line_exit_2(bare_checkpoints, tmp_path, capsys, flags, message):
    import re

    out = tmp_path / "run"
    flags = [f.format(root=bare_checkpoints) for f in flags]
    with pytest.raises(SystemExit) as exc:
        cli.main(["diagnose", *flags, "--out", str(out)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(message, err[0]), err
    assert not out.exists()  # refused before the run directory is claimed


@pytest.mark.slow  # 16 s of compiling; tokens-mode scoring is checked against transformers in tests/probes
def test_tokens_mode_runs_without_a_tokenizer(bare_checkpoints, tmp_path):
    cfg = build_config(diagnose, weights=str(bare_checkpoints / "llama"), mode="tokens", passages=3, lengths=(24,),
                       examples=3, candidates=3, attention_examples=2, profile_examples=2, heat_bins=8, n_boot=100)
    result = diagnose.run(cfg, None, progress=False)
    assert result.measured["tests"][24]["scores"].logprob.shape == (3, 3, 3)
    assert result.measured["attention"]["vs_uniform"].shape == (2, 1, 2, 24)


def test_a_received_run_reads_back_without_its_checkpoint(smoke_run, tmp_path):
    """load_run of a diagnose run whose checkpoint is elsewhere (and a hub id with downloads on) resolves
    nothing: the config's own fields are checked, no directory looked up, no network."""
    import shutil

    from lostmid_jax.runs.load import load_run

    copy = tmp_path / "received"
    shutil.copytree(smoke_run, copy, ignore=shutil.ignore_patterns("checkpoint"))
    config = json.loads((copy / "config.json").read_text())
    config["config"].update(checkpoint={"weights": "someone/not-cached", "allow_download": True})
    (copy / "config.json").write_text(json.dumps(config))
    run = load_run(copy)
    assert run.config.checkpoint.weights == "someone/not-cached" and "accuracy" in run.tables


def test_examples_jsonl_holds_every_scored_prompt_and_the_baselines(smoke_run, tmp_path):
    """examples.jsonl: one line per (length, example, passage) and per baseline example, its scores those of
    examples.csv, the prompt decoded; baselines.csv's rates are its lines' means; load_run passes it by, and a
    symlinked copy is refused."""
    import os
    import shutil

    from lostmid_jax.experiments.diagnose.examples_log import read_examples
    from lostmid_jax.runs.load import load_run
    from lostmid_jax.stats.intervals import wilson_interval

    rows = read_examples(smoke_run)
    e, k, lengths = diagnose.SMOKE["probe.examples"], diagnose.SMOKE["probe.passages"], diagnose.SMOKE["probe.lengths"]
    position = [r for r in rows if r["condition"] == "position"]
    assert len(position) == e * k * len(lengths) and len(rows) == len(position) + 2 * e
    csv = _tables(smoke_run)["examples"].set_index(["length", "example", "passage"])
    for r in position:
        expected = csv.loc[(r["length"], r["example"], r["gold_position"])]
        assert r["scores"][0] == pytest.approx(expected["logprob"], rel=1e-9) and r["rank"] == expected["rank"]
        assert len(r["scores"]) == len(r["candidates"]) == diagnose.SMOKE["probe.candidates"]
        assert r["prompt"].startswith("[BOS]") and r["prompt"].endswith("Answer :") and r["prompt_tokens"] == r["length"]
        assert f"is {r['candidates'][0]}." in r["prompt"]  # the fact, with its answer, is in the prompt
        assert r["greedy"]  # greedy decoding's first token at least
    baselines = _tables(smoke_run)["baselines"].set_index("condition")
    for name in ("closed-book", "oracle"):
        lines = [r for r in rows if r["condition"] == name]
        assert len(lines) == e and all(r["gold_position"] is None for r in lines)
        assert all(("is " + r["candidates"][0] + ".") in r["prompt"] for r in lines) == (name == "oracle")
        right = sum(r["correct"] for r in lines)
        assert baselines.loc[name, "accuracy"] == pytest.approx(right / e)
        assert (baselines.loc[name, "accuracy_lo"], baselines.loc[name, "accuracy_hi"]) == pytest.approx(
            wilson_interval(right, e))
    assert "examples.jsonl" not in load_run(smoke_run).tables
    copy = tmp_path / "copy"
    shutil.copytree(smoke_run, copy, ignore=shutil.ignore_patterns("checkpoint", "examples.jsonl"))
    os.symlink(smoke_run / "examples.jsonl", copy / "examples.jsonl")
    with pytest.raises(ValueError, match="symlink"):
        read_examples(copy)


def test_a_facts_file_of_no_known_format_is_refused_in_one_line(tmp_path, capsys):
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"question": "q", "answers": ["a"], "contexts": []}) + "\n")
    with pytest.raises(SystemExit) as exc:
        cli.main(["diagnose", "--smoke", "--facts", str(odd), "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1, err
    assert "odd.jsonl" in err[0] and "missing field 'ctxs'" in err[0] and not (tmp_path / "run").exists()


def _qa_file(path, count: int, docs: int = 3):
    """Multi-document QA lines made up here (the paper's fields): the gold ctx second, flagged isgold."""
    rows = []
    for e in range(count):
        ctxs = [dict(title=f"Field {e}{d}", text="The quiet river faces the old garden. The busy market joins "
                     "the road.", isgold=False, hasanswer=False) for d in range(docs)]
        ctxs.insert(1, dict(title=f"Gate {e}", text=f"The gate of the old tower is {30 + e}.", isgold=True,
                            hasanswer=True))
        rows.append(dict(question=f"What is the gate of the old tower {e}?", answers=[str(30 + e)], ctxs=ctxs))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.extended  # a second diagnosis (compiling a BPE-sized model): 15 s
def test_multi_document_qa_run_with_a_bpe_checkpoint(tmp_path):
    """diagnose --facts in the paper's multi-document QA format, on a tiny Llama with a BPE tokenizer trained
    here: the gold document at each position among whole distractors, the baselines beside the curve."""
    from lostmid_jax.experiments.diagnose.examples_log import read_examples
    from lostmid_jax.probes import builtin_facts, bpe_tokenizer, save_tokenizer
    from lostmid_jax.probes.checkpoint import TINY_LLAMA
    from lostmid_jax.probes.documents import builtin_sentences

    texts = builtin_sentences(np.random.default_rng(0), 200) + [f.fact for f in builtin_facts(100)]
    tok = bpe_tokenizer(texts + ["Document (Title: Gate Field) What is the gate?"], 320)
    cfg = preset("llama-3.2-1b", vocab_size=tok.get_vocab_size(), **TINY_LLAMA)
    save_hf(Decoder(cfg, rngs=nnx.Rngs(0)), cfg, tmp_path / "ckpt")
    save_tokenizer(tok, tmp_path / "ckpt")
    qa = _qa_file(tmp_path / "qa.jsonl", 4)
    out = tmp_path / "run"
    assert cli.main(["diagnose", "--weights", str(tmp_path / "ckpt"), "--facts", str(qa), "--passages", "3",
                     "--lengths", "200", "--examples", "4", "--candidates", "3", "--attention-examples", "2",
                     "--profile-examples", "2", "--heat-bins", "8", "--n-boot", "100", "--batch", "6",
                     "--no-progress", "--out", str(out)]) == 0
    baselines = _tables(out)["baselines"]
    assert baselines["condition"].tolist() == ["closed-book", "oracle"] and baselines["examples"].tolist() == [4, 4]
    rows = read_examples(out)
    for r in rows:
        gold = f"Document (Title: Gate {r['example']}) The gate of the old tower is {30 + r['example']}."
        if r["condition"] == "position":
            docs = r["prompt"][r["prompt"].index("Document"):r["prompt"].index("\n\nQuestion")].split("\n\n ")
            assert docs.index(gold) == r["gold_position"] - 1 and len(docs) == 3
        assert (gold in r["prompt"]) == (r["condition"] != "closed-book")
    assert "closed-book" in (out / "verdict.txt").read_text()


def test_documents_longer_than_the_prompt_are_refused_before_the_model_loads(bare_checkpoints, tmp_path, capsys):
    """A QA file whose documents and question need more ids than --lengths gives, or fewer distractors than
    --passages needs: one line naming the argument, before the run directory is claimed."""
    import shutil

    from lostmid_jax.probes import bpe_tokenizer, save_tokenizer

    ckpt = tmp_path / "ckpt"
    shutil.copytree(bare_checkpoints / "llama", ckpt)
    save_tokenizer(bpe_tokenizer(["The quiet river faces the old garden."], 280), ckpt)
    qa = _qa_file(tmp_path / "qa.jsonl", 3)
    for flags, message in ((["--passages", "3", "--lengths", "64"], r"lengths: T = 64 holds fewer ids than example \d's 3 documents"),
                           (["--passages", "5"], "passages: example 0 of .* holds 3 distractor documents; passages=5")):
        with pytest.raises(SystemExit):
            cli.main(["diagnose", "--weights", str(ckpt), "--facts", str(qa), *flags, "--out", str(tmp_path / "run")])
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and re.search(message, err[0]), err
        assert not (tmp_path / "run").exists()


def test_the_smoke_run_finishes_within_its_estimate(smoke_run):
    """The config's estimate of the run's CPU seconds (probes.cost, what --limits max_operations is checked
    against) bounds the smoke run from above, and loosely: within 20 times what it took."""
    config = json.loads((smoke_run / "config.json").read_text())
    used, estimate = config["cpu_seconds"], config["estimated_cpu_seconds"]
    assert 0 < used <= estimate <= 20 * used, (used, estimate)


@pytest.mark.extended  # two more runs of the tiny model (~20 CPU-s)
def test_extrapolated_lengths_are_marked_and_bfloat16_is_close(smoke_run, tmp_path):
    """--allow-extrapolation: the length beyond the tiny Llama's 512 positions is marked in every row of
    accuracy.csv and gaps.csv, in table.txt and in the verdict. --dtype bfloat16 on the smoke: every log
    P(right answer) within 0.1 nats of float32 (measured: 0.06)."""
    out = tmp_path / "beyond"
    assert cli.main(["diagnose", "--smoke", "--lengths", "32,520", "--allow-extrapolation", "--no-figures",
                     "--no-progress", "--out", str(out)]) == 0
    t = _tables(out)
    for name in ("accuracy", "gaps"):
        assert dict(zip(t[name]["length"], t[name]["extrapolated"])) == {32: 0, 520: 1}
    assert "\n  520*       1" in (out / "table.txt").read_text()
    from lostmid_jax.experiments.diagnose import page_table

    page = page_table(t, None)
    assert [row[0] for row in page.rows] == ["32", "520*"] and "T*: measured beyond" in page.note
    assert "T*" not in page_table(_tables(smoke_run), None).note
    verdict = (out / "verdict.txt").read_text()
    assert verdict.startswith("Extrapolated (--allow-extrapolation): T = 520 read beyond the checkpoint's trained "
                              "context of 512 positions") and "Position test at T = 520 (extrapolated)" in verdict
    half = tmp_path / "bf16"
    assert cli.main(["diagnose", "--smoke", "--dtype", "bfloat16", "--no-figures", "--no-progress",
                     "--out", str(half)]) == 0
    a, b = _tables(smoke_run)["examples"], _tables(half)["examples"]
    assert np.abs(a["logprob"] - b["logprob"]).max() < 0.1
