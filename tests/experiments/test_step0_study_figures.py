"""The study's figures, drawn from the saved tables alone."""

from matplotlib.figure import Figure

from lostmid_jax.experiments import step0_study
from lostmid_jax.runs import load_run
from test_step0_study import run_dir  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_figures_come_from_the_tables_alone(run_dir):
    run = load_run(run_dir)
    figs = step0_study.figures(run.tables, run.config)
    assert set(figs) == {"convergence_toy", "variants_toy", "layers", "noise"}
    assert all(isinstance(f, Figure) for f in figs.values())
