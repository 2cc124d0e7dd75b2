"""`lostmid report RUN_DIR`: one self-contained HTML page, checked by parsing it and by a real browser."""

import base64
import html.parser
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "runs"))
from run_params import experiment_params  # noqa: E402

from lostmid_jax import cli, runs  # noqa: E402
from lostmid_jax.present import build_html  # noqa: E402
from lostmid_jax.stats.intervals import wilson_interval  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
URL_ATTRIBUTES = {"href", "src", "srcset", "action", "formaction", "data", "poster", "background", "cite",
                  "longdesc", "manifest", "ping", "xlink:href"}


class _Page(html.parser.HTMLParser):
    """Tags, attribute values and <style> text of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.styles, self.images, self.text = [], [], [], [], []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.extend((tag, k, v or "") for k, v in attrs)
        if tag == "img":
            self.images.append(dict(attrs))
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        (self.styles if self._in_style else self.text).append(data)


def _external_references(page: _Page) -> list[str]:
    """Everything that would make the page fetch or link outside itself."""
    found = [f"<{t}>" for t in page.tags if t in ("script", "link", "iframe", "object", "embed", "base", "frame")]
    for tag, name, value in page.attributes:
        value = value.strip().lower()
        if name == "style" and ("url(" in value or "@import" in value):
            found.append(f"<{tag} style={value[:40]!r}>")
        if name in URL_ATTRIBUTES or name.startswith("on"):
            local = value.startswith("#") or (name == "src" and value.startswith("data:image/"))
            if not local:
                found.append(f"<{tag} {name}={value[:40]!r}>")
        if value.startswith(("http:", "https:", "//", "ftp:", "file:")):
            found.append(f"<{tag} {name}={value[:40]!r}>")
    css = "".join(page.styles).lower()
    found += [word for word in ("url(", "@import", "@font-face", "http:", "https:") if word in css]
    return found


def _bare(text: str) -> str:
    """Text without spaces and formula markup (_ ^ braces; the symbols MathML rendering puts for >=, <=, ->)."""
    for ascii_, symbol in ((">=", "\u2265"), ("<=", "\u2264"), ("->", "\u2192"), ("sqrt(", "\u221a(")):
        text = text.replace(ascii_, symbol)
    greek = {"alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3", "delta": "\u03b4", "rho": "\u03c1",
             "sigma": "\u03c3", "mu": "\u03bc", "tau": "\u03c4", "theta": "\u03b8", "lambda": "\u03bb"}
    text = re.sub(r"(?<![\w.])(" + "|".join(greek) + r")(?=_)", lambda m: greek[m.group(1)], text)
    return re.sub(r"[\s_^{}()]", "", text)


def _layout_problems(page_html: str, run_dir) -> list[str]:
    """What a shared page must not show: the local path of the run directory (or any absolute path of this
    machine), and a raw <pre> summary open on the page (it runs past the right edge): every <pre> is folded."""
    problems = []
    for path in {str(run_dir), str(pathlib.Path(run_dir).resolve()), str(pathlib.Path.home()), "/tmp/"}:
        if path in page_html:
            problems.append(f"absolute path {path!r}")
    depth, opened = 0, []
    for token in re.finditer(r"<(/?)(details|pre)\b", page_html):
        closing, tag = token.groups()
        if tag == "details":
            depth += -1 if closing else 1
        elif not closing and depth == 0:
            opened.append(token.start())
    problems += [f"<pre> not folded at offset {at}" for at in opened]
    return problems


def test_the_layout_check_can_fail(smoke_runs):
    run_dir = smoke_runs("depth_sweep")
    bad = f"<p>{run_dir}</p><pre>{'x' * 300}</pre><details><pre>ok</pre></details>"
    assert len(_layout_problems(bad, run_dir)) >= 2 and any('<pre>' in m for m in _layout_problems(bad, run_dir))


@pytest.mark.parametrize("name", experiment_params())
def test_report_shows_no_local_path_and_no_open_pre(name, smoke_runs):
    run_dir = smoke_runs(name)
    text = build_html(runs.load_run(run_dir))
    assert _layout_problems(text, run_dir) == []
    assert f"run directory {run_dir.name}" in text


def test_step0_report_opens_with_title_abstract_and_claims_table(smoke_runs):
    """A human title, the abstract (command, sizes, smoke, date, version), then the claims table with one
    highlighted outcome per claim of the verdict."""
    run = runs.load_run(smoke_runs("step0"))
    text = build_html(run)
    page = _Page()
    page.feed(text)
    assert "<h1>Step-0 Jacobian influence profiles of initialized decoders vs theory</h1>" in text
    abstract = text[text.index("<p class='abstract'>"):text.index("<nav>")]
    assert "lostmid step0" in abstract and "length 16" in abstract and "lostmid-jax 0.1.0" in abstract
    assert run.record["created_utc"][:10] in abstract
    claims = text[text.index("<table class='claims'>"):text.index("</table>", text.index("<table class='claims'>"))]
    outcomes = re.findall(r"<span class='outcome (\w+)'>(\w+)</span>", claims)
    judged = re.findall(r": (REPRODUCED|REFUTED|inconclusive) \(", run.verdict)
    assert [o for o, _ in outcomes] == [o for _, o in outcomes] == judged and len(judged) == 10
    assert claims.count("<td>0.99</td>") == 3 and "<td>0.02</td>" in claims  # the paper's numbers
    assert "<msub><mi>a</mi>" in claims  # a_l as MathML
    assert text.index("id='claims'") < text.index("id='verdict'") < text.index("id='figures'")


def test_the_offline_check_catches_external_references():
    page = _Page()
    page.feed("<html><head><link rel=stylesheet href='https://x/y.css'><style>@import 'a.css';</style></head>"
              "<body><img src='//cdn/x.png'><a href='http://x'>x</a><a href='#ok'>ok</a>"
              "<img src='data:image/png;base64,AAAA'><script>1</script></body></html>")
    assert len(_external_references(page)) >= 5
    clean = _Page()
    clean.feed("<a href='#verdict'>v</a><img src='data:image/png;base64,AAAA'>")
    assert _external_references(clean) == []


@pytest.mark.parametrize("name", experiment_params())
def test_report_embeds_every_figure_and_links_nowhere(name, smoke_runs, tmp_path):
    run_dir = smoke_runs(name)
    out = tmp_path / "report.html"
    assert cli.main(["report", str(run_dir), "--out", str(out), "--rows", "5"]) == 0
    page = _Page()
    page.feed(out.read_text())
    assert _external_references(page) == []
    run = runs.load_run(run_dir)
    pngs = {p.stem: p.read_bytes() for p in run.figures if p.suffix == ".png"}
    embedded = {img["alt"]: base64.b64decode(img["src"].split(",", 1)[1]) for img in page.images}
    assert pngs and embedded == pngs  # every saved figure, byte for byte
    text = " ".join(" ".join(page.text).split())
    for line in run.verdict.splitlines():  # every word and number of the verdict (formulas become MathML)
        assert _bare(line) in _bare(" ".join(page.text)), line
    for stem, frame in run.tables.items():
        assert f"{stem}.csv" in text
        if len(frame) > 5:
            assert f"the first 5 of {len(frame)} rows (truncated" in text
    bare = _bare(" ".join(page.text))
    for stem, columns in run.columns.items():
        for column, (meaning, _) in columns.items():
            assert _bare(meaning) in bare, meaning
    assert run.record["versions"]["numpy"] in text and "git revision" in text


def test_report_of_a_run_without_figure_files_draws_them(smoke_runs, tmp_path, monkeypatch):
    """A run saved with --no-figures: the report draws them from the tables (stand-in figures keep it quick;
    test_plot_cli redraws the real ones)."""
    from matplotlib.figure import Figure

    from lostmid_jax.present import report

    def draw(run):
        figures = {stem: Figure(figsize=(1, 1)) for stem in ("a", "b")}
        for fig in figures.values():
            fig.subplots().plot(run.tables["results"]["depth"])
        return figures

    copy = tmp_path / "run"
    shutil.copytree(smoke_runs("depth_sweep"), copy, ignore=shutil.ignore_patterns("*.png"))
    monkeypatch.setattr(report, "draw", draw)
    page = _Page()
    page.feed(build_html(runs.load_run(copy)))
    assert [img["alt"] for img in page.images] == ["a", "b"]
    assert all(base64.b64decode(img["src"].split(",", 1)[1]).startswith(b"\x89PNG") for img in page.images)
    assert "drawn from the run's tables" in " ".join(page.text)
    assert _external_references(page) == []


def test_report_refuses_bad_arguments(smoke_runs, tmp_path, capsys):
    for argv, message in ((["--rows", "0"], "rows"), (["--out", str(tmp_path)], "directory")):
        with pytest.raises(SystemExit) as exc:
            cli.main(["report", str(smoke_runs("depth_sweep")), *argv])
        assert exc.value.code == 2 and message in capsys.readouterr().err


def _browser():
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


SCREENSHOTS = os.environ.get("LOSTMID_REPORT_SCREENSHOTS")  # a folder: keep the first screens there to look at


def _screenshot(browser, page, shot, tmp_path, height):
    argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", f"--window-size=1280,{height}",
            f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", page.as_uri()]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]


@pytest.mark.parametrize("name", [pytest.param("depth_sweep", marks=pytest.mark.extended), "step0"])
def test_report_renders_in_headless_chromium(name, smoke_runs, tmp_path):
    """The page, opened from disk with every network request refused, renders to a screenshot
    whose figures show (coloured pixels of the palette, not a blank page); the first screen (1280 x 900)
    shows the title and, for step0, the claims table with its highlighted outcomes."""
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium or Chrome on PATH (Debian: apt-get install chromium); the HTML checks above "
                    "still ran")
    from matplotlib.image import imread

    page = tmp_path / "report.html"
    assert cli.main(["report", str(smoke_runs(name)), "--out", str(page)]) == 0
    shot, first = tmp_path / "shot.png", tmp_path / "first.png"
    _screenshot(browser, page, shot, tmp_path, 2400)
    _screenshot(browser, page, first, tmp_path, 900)
    if SCREENSHOTS:
        shutil.copy(first, pathlib.Path(SCREENSHOTS) / f"report_{name}_first_screen.png")
    pixels = imread(shot)[..., :3]
    assert pixels.shape[:2] == (2400, 1280)
    rgb = np.round(pixels * 255).astype(int)
    not_white = np.any(rgb < 235, axis=-1).mean()
    blue = np.all(np.abs(rgb - (0x00, 0x72, 0xB2)) < 40, axis=-1).sum()  # PALETTE[0]: headings and curves
    orange = np.all(np.abs(rgb - (0xE6, 0x9F, 0x00)) < 40, axis=-1).sum()  # PALETTE[1]: only in the figures
    assert not_white > 0.05 and blue > 500 and orange > 200, (not_white, blue, orange)
    top = np.round(imread(first)[..., :3] * 255).astype(int)
    smoke = np.all(np.abs(top - (0xFF, 0xF4, 0xD6)) < 6, axis=-1).sum()  # the smoke note's yellow
    assert smoke > 2000 or not runs.load_run(smoke_runs(name)).record.get("smoke"), smoke
    if name == "step0":  # the grey of "inconclusive" badges: the claims table is on the first screen
        badges = np.all(np.abs(top - (0xEC, 0xEC, 0xEC)) < 4, axis=-1).sum()
        assert badges > 3000, badges


def test_missing_values_show_as_one_mark(smoke_runs, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(smoke_runs("depth_sweep"), copy)
    runs.write_csv(copy / "extra.csv", [{"flag": True, "v": None, "w": "a"}, {"flag": None, "v": 1.5, "w": ""}])
    text = build_html(runs.load_run(copy))
    row = text[text.index("<details id='table-extra'>"):]
    row = row[row.index("<table class='data'>"):]
    row = row[:row.index("</table>")]
    assert row.count("<td>\u2014</td>") == 3 and "<td>True</td>" in row and "<td>1.5</td>" in row
    assert "&lt;NA&gt;" not in row and "nan" not in row.lower()


def _between(text: str, start: str, end: str) -> str:
    at = text.index(start)
    return text[at:text.index(end, at)]


def test_diagnose_report_names_what_was_measured_then_the_results_table(smoke_runs):
    """Title: the checkpoint, the lengths and sizes (not the experiment's generic description); then the results
    table (one row per T: accuracy by passage with its interval, the gap, the verdict, the overall accuracy
    against chance) before the verdict and the figures; attention and valley-law prose folded under Details."""
    run = runs.load_run(smoke_runs("diagnose"))
    text = build_html(run)
    assert "<h1>Diagnosis of tiny random Llama at T = 32, 48: 6 examples x 3 passages (text probe)</h1>" in text
    assert text.index("id='results'") < text.index("id='verdict'") < text.index("id='figures'")
    table = _between(text, "<table class='results'>", "</table>")
    acc = run.tables["accuracy"]
    rows = re.findall(r"<tr><td>(\d+)</td>(.*?)</tr>", table)
    assert [int(t) for t, _ in rows] == sorted(set(acc["length"]))
    first = acc[acc["length"] == acc["length"].min()].sort_values("passage")
    for r in first.itertuples():
        assert f"<td>{r.accuracy:.2f} [{r.accuracy_lo:.2f}, {r.accuracy_hi:.2f}]</td>" in rows[0][1]
    gap = run.tables["gaps"]
    gap = gap[(gap["length"] == first["length"].iloc[0]) & (gap["measure"] == "accuracy")]["verdict"].iloc[0]
    right = (first["accuracy"] * run.config.probe.examples).round().sum()
    trials = run.config.probe.examples * len(first)
    lo, hi = wilson_interval(int(right), trials)
    chance = float(first["chance"].iloc[0])
    reading = ("above chance" if lo > chance else "at or below chance (ties count as wrong)" if hi < chance
               else "at chance (the 95% CI includes it)")
    assert f"{gap}</span>" in rows[0][1] and f"<span class='outcome neutral'>{reading}</span>" in rows[0][1]
    folded = _between(text, "<details class='verdict-details'>", "</details>")
    assert "Attention received" in folded and "Valley power law" in folded
    assert "Position test at T = 32" in _between(text, "id='verdict'", "<details")


def test_train_report_names_the_model_task_and_runs(smoke_runs):
    run = runs.load_run(smoke_runs("micro_training"))
    text = build_html(run)
    cfg = run.config
    assert (f"<h1>Micro-training of a {cfg.base.model.depth}-layer, width-{cfg.base.model.width} decoder (rope, "
            f"causal mask) on the {cfg.base.task} task") in text
    assert text.index("id='results'") < text.index("id='verdict'") < text.index("id='figures'")
    table = _between(text, "<table class='results'>", "</table>")
    assert table.count("<tr><td>") == 1 + len(cfg.variants) and "against chance" in table
    assert "pathway norm" in _between(text, "<details class='verdict-details'>", "</details>")


@pytest.mark.extended
def test_remedies_report_table_and_noop(smoke_runs):
    """The remedies page: title with the checkpoint and T, one table row per remedy from effects.csv (verdict,
    the middle and ends differences with intervals, the Step-0 ratio), the no-op named as such, the per-remedy
    prose folded."""
    run = runs.load_run(smoke_runs("remedies"))
    text = build_html(run)
    assert "<h1>Inference-time remedies on tiny random Llama at T = 48: 6 remedies" in text
    table = _between(text, "<table class='results'>", "</table>")
    effects = run.tables["effects"]
    rows = re.findall(r"<tr><td>([^<]+)</td><td class='words'><span class='outcome \w+'>([^<]+)</span></td>", table)
    assert rows == list(zip(effects["remedy"], effects["verdict"]))
    assert ("rope_scaling:dynamic:2", "no-op at this length") in rows
    assert "The model answers" not in text and "in the middle (middle accuracy" in _between(
        text, "<details class='verdict-details'>", "</details>")


def test_run_strings_are_escaped_in_title_results_and_verdict(smoke_runs, tmp_path):
    """A received run's strings (the checkpoint name, a CSV cell, the verdict) reach the page as text only."""
    import json

    import pandas as pd

    copy = tmp_path / "run"
    shutil.copytree(smoke_runs("diagnose"), copy)
    evil = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    record = json.loads((copy / "config.json").read_text())
    record["config"]["checkpoint"]["weights"] = f"org/{evil}"
    (copy / "config.json").write_text(json.dumps(record))
    gaps = pd.read_csv(copy / "gaps.csv")
    gaps["verdict"] = evil
    gaps.to_csv(copy / "gaps.csv", index=False)
    (copy / "verdict.txt").write_text(f"{evil}\nDetails\n{evil}\n")
    text = build_html(runs.load_run(copy))
    page = _Page()
    page.feed(text)
    assert _external_references(page) == [] and "script" not in page.tags and len(page.images) == 4
    assert "<h1>Diagnosis of org/&lt;script&gt;" in text and text.count("&lt;script&gt;alert(1)") >= 4


def test_a_results_table_escapes_its_cells():
    from lostmid_jax.present.page import PageTable
    from lostmid_jax.present.report import _results_html

    html_text = _results_html(PageTable(("a<b", "verdict"), (("<i>x</i>", "helps <b>"), ("", "hurts")), note="<u>n",
                                        outcomes=(1,)))
    assert "<i>" not in html_text and "<b>" not in html_text and "<u>" not in html_text
    assert "<td class='words'><span class='outcome good'>helps &lt;b&gt;</span></td>" in html_text and "<td>\u2014</td>" in html_text
    assert "<span class='outcome bad'>hurts</span>" in html_text
    with pytest.raises(ValueError, match="rows must have 2 cells"):
        PageTable(("a", "b"), (("x",),))
