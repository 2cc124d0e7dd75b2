"""The counterfactual sweep's table and verdict follow its numbers."""

import pandas as pd

from lostmid_jax.experiments import counterfactuals as cf
from test_counterfactuals import _rows, smoke_run  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_closing_table_states_each_familys_dead_zone(smoke_run):
    run_dir, _ = smoke_run
    table = (run_dir / "table.txt").read_text()
    results = pd.read_csv(run_dir / "results.csv")
    at = results[results["depth"] == 16].set_index("prior")
    closing = table[table.index("Dead-zone share of each family"):]
    for name, spec in cf.FAMILIES.items():
        line = next(l for l in closing.splitlines() if l.startswith(name))
        assert f"{100 * at.loc[spec, 'dead_fraction']:.1f}" in line
    assert "docs/theory.md §4" in closing


def test_verdict_follows_the_numbers(smoke_run):
    """Bidirectional rows are flat (w_j = (1 - (1-a)^H) / L below the last token): no dead zone."""
    run_dir, _ = smoke_run
    text = (run_dir / "verdict.txt").read_text()
    assert "bidirectional: removes the dead zone" in text
    assert "docs/theory.md §4" in text and "theory.md section" not in text
    assert "Decoder families at L=128" in text
    flat = [r for r in _rows(run_dir) if r["prior"] == "bidirectional"]
    assert all(float(r["dead_fraction"]) == 0 for r in flat)
    chunk = next(r for r in _rows(run_dir) if r["prior"].startswith("chunks") and r["depth"] == "16")
    assert f"{float(chunk['zero_fraction']):.0%} exactly 0" in text  # earlier chunks: no path to the last token
