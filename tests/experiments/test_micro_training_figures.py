"""Micro-training's figures, redrawn from the tables alone in the shared style."""

from lostmid_jax.experiments import micro_training
from test_micro_training import tiny_run  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_figures_redraw_from_the_tables_in_the_shared_style(tiny_run):
    from lostmid_jax.runs import load_run

    run = load_run(tiny_run)
    figs = micro_training.figures(run.tables, run.config)
    assert set(figs) == {"fig1_valley", "fig2_pathways", "fig3_profiles", "fig4_doc_u", "fig5_accuracy"}
    for fig in figs.values():
        for ax in fig.axes:
            labels = [ax.get_xlabel(), ax.get_ylabel()] + [t.get_text() for t in ax.get_legend().get_texts()]
            assert not [s for s in labels if s in ("middle_weighted_loss", "middle_loss", "oversample_middle", "total_valley", "none")]
    ax = figs["fig1_valley"].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"$\\mathdefault{{{s}}}$" for s in (0, 1, 2, 5)] or \
        [round(t) for t in ax.get_xticks()] == [0, 1, 2, 5]
