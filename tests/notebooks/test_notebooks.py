"""Notebooks (jupytext percent-format .py) execute end to end at smoke size and show their figures.

Each notebook is converted with jupytext and executed with nbclient in a
Jupyter kernel (LOSTMID_SMOKE=1 shrinks it to the --smoke size; LOSTMID_RUNS
points its run directory at a temporary folder). No backend is forced: the
figures must come out as the image/png outputs Jupyter shows, from every cell
tagged "figure".
"""

import os
import pathlib

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def _figure_cells(notebook):
    return [c for c in notebook.cells if c.cell_type == "code" and "figure" in c.metadata.get("tags", [])]


# Under -m extended (CI runs it): two train a model in their kernel, and depth_sweep costs ~9 CPU-seconds.
EXTENDED = ("training_dynamics", "lost_in_the_middle_toy", "depth_sweep")


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=[pytest.mark.extended] if p.stem in EXTENDED else [])
                                  for p in NOTEBOOKS])
def test_notebook_executes_and_shows_its_figures(path, monkeypatch, tmp_path):
    monkeypatch.setenv("LOSTMID_SMOKE", "1")
    monkeypatch.setenv("LOSTMID_RUNS", str(tmp_path / "runs"))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # as a user's Jupyter: the kernel's own inline backend
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    notebook = jupytext.read(path)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    figures = _figure_cells(notebook)
    assert figures, f"{path.name} tags no cell 'figure'"
    for cell in figures:
        images = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
        assert len(images) == 1, f"{path.name}: figure cell shows {len(images)} images:\n{cell.source}"
    runs = list((tmp_path / "runs" / "notebooks").iterdir())  # runs/notebooks/<timestamp>
    assert len(runs) == 1 and (runs[0] / "config.json").is_file() and (runs[0] / "columns.csv").is_file()


def test_no_library_code_selects_a_matplotlib_backend():
    """Nothing in the package forces a backend (Agg would hide every figure in Jupyter)."""
    offenders = [p.relative_to(ROOT) for p in (ROOT / "lostmid_jax").rglob("*.py")
                 if "matplotlib.use(" in p.read_text() or "pyplot.switch_backend" in p.read_text()]
    assert not offenders


@pytest.mark.slow
def test_training_notebook_from_a_warm_cache_prints_no_xla_warning(monkeypatch, tmp_path):
    """The notebook imports jax (through lostmid_jax) before compile_cache.configure(): run twice on one
    compilation cache, the second run loads its programs from disk and must not print jaxlib's false
    "could lead to execution errors such as SIGILL" alarm (kernel stderr is a cell output in Jupyter)."""
    path = ROOT / "notebooks" / "training_dynamics.py"
    monkeypatch.setenv("LOSTMID_SMOKE", "1")
    monkeypatch.setenv("LOSTMID_COMPILE_CACHE", "1")
    monkeypatch.setenv("LOSTMID_COMPILE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    texts = []
    for attempt in range(2):
        monkeypatch.setenv("LOSTMID_RUNS", str(tmp_path / f"runs{attempt}"))
        notebook = jupytext.read(path)
        nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}).execute()
        texts.append("".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code"
                             for o in c.get("outputs", []) if o.get("output_type") == "stream"))
    assert any((tmp_path / "cache").rglob("*-cache")), "nothing was cached: the second run was not warm"
    assert "SIGILL" not in texts[1] and "cpu_aot_loader" not in texts[1], texts[1][:2000]
