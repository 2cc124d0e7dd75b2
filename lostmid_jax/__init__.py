"""lostmid-jax: the 'lost in the middle' position bias, from first principles.

The exact Step-0 theory (Cesàro matrices, influence rows; Chowdhury, "Lost
in the Middle at Birth", arXiv:2603.10123) and Jacobian measurements of
decoder stacks, side by side.

Subpackages (data flows one way: theory <- analysis -> nn; train uses nn and
analysis; experiments use everything below them):
    masks        one class per attention mask / Step-0 prior (causal,
                 bidirectional, window, sinks, chunks/documents, prefix-LM,
                 ALiBi, content), owning its rule, row operator and cost;
                 shared by nn and theory (pure Python and numpy).
    theory       pure math (numpy, scipy, mpmath, python-flint): influence
                 rows in every arithmetic through the priors' structured
                 operators, continuum densities, the middle of a profile.
                 jax only for backend="jax".
    nn           Flax NNX decoder stacks: an architecture-only DecoderConfig,
                 layers, presets, Hugging Face import/export; execution
                 options are passed at call time.
    stats        statistics of measured profiles (numpy, scipy; no jax):
                 profile metrics, agreement with 95% CIs and the noise
                 ceiling, held-out scoring, intervals.
    analysis     what we measure on a model: influence profiles (request ->
                 memory plan -> engine -> estimate), pathways, attention
                 strength, prior_for (a model's theory prior).
    train        synthetic tasks, optimizer steps, checkpoints, snapshots.
    experiments  one module per experiment (depth_sweep, counterfactuals,
                 step0, pretrained_vs_init, micro_training): a frozen config,
                 run(cfg, run_dir) -> result, records, verdict, figures.
    parallel     meshes, work spread over devices and hosts.
    kernels      the fused CPU attention kernel, compiled only when a run
                 selects it.
    runs         run directories: claiming one, atomic writes, config.json,
                 CSV files, load_run, plot and report (io, results and
                 report are aliases of it for one release).
    plots        figures that return a matplotlib Figure and accept ax=.
    cli          the ``lostmid`` command, a thin adapter over the experiments.
    validation   argument checks: a ValueError naming the argument and range.

Glossary of axis letters and names (used in every docstring and shape):
    L    positions; 1-based j = 1..L in formulas (array index j - 1),
         x = j / L in (0, 1]; the middle is x = 1/2 (theory.middle)
    D    width of the residual stream
    H    depth = the number of layers (blocks), and only that; layers l = 1..H
    N    query heads          G    key/value heads
    Dh   head dim (never K)
    K    cotangents / probes of the Jacobian engine
    E    ensemble items       S    seeds
    B    batch                V    vocabulary
    P    pathways (total, value, score)
    chunk       only the Jacobian engine's cotangents per batched backward pass
    doc_length  the training corpus's document length (theory.Chunks is the
                block-diagonal prior of documents)
    needle bins the positions of the needle in retrieval (not "depth")

Importing this package (or lostmid_jax.theory / lostmid_jax.masks / lostmid_jax.stats / lostmid_jax.validation)
loads no jax, flax, matplotlib or tqdm.
"""

__version__ = "0.1.0"


def _quiet_cache_warnings():
    """XLA's false cache warnings hidden whatever was imported first (compile_cache.quiet_if_cached);
    checked only when jax is already loaded or a cache folder is set, so this import stays free of jax."""
    import os
    import sys

    if "jax" in sys.modules or os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        from . import compile_cache

        compile_cache.quiet_if_cached()


_quiet_cache_warnings()
