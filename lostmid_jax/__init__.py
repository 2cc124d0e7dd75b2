"""lostmid-jax: the 'lost in the middle' position bias, from first principles.

The exact Step-0 theory (Cesàro matrices, influence rows; Chowdhury, "Lost
in the Middle at Birth", arXiv:2603.10123) and Jacobian measurements of
decoder stacks, side by side.

Packages and top-level modules (every one; tests/test_architecture.py checks
this list, the layers and the commands below against the source):
    masks        one class per attention mask / Step-0 prior (causal,
                 bidirectional, window, sinks, chunks/documents, prefix-LM,
                 ALiBi, content), owning its rule, row operator and cost;
                 shared by nn and theory (pure Python and numpy).
    theory       pure math (numpy, scipy, mpmath, python-flint): influence
                 rows in every arithmetic through the priors' structured
                 operators, continuum densities, the middle of a profile.
                 jax only for backend="jax"; large causal / chunk float64
                 rows in one compiled pass (bit-identical, through native).
    stats        statistics of measured profiles (numpy, scipy; no jax):
                 profile metrics, agreement with 95% CIs and the noise
                 ceiling, held-out scoring, intervals.
    plots        figures that return a matplotlib Figure and accept ax=.
    present      a run shown to people: its figures redrawn, one HTML page
                 (MathML formulas, the claims table), tables to paste.
    runs         run directories stored and read back: claiming one,
                 config.json, CSV files, units, load_run; the experiments a
                 run may name are registered into it, never imported.
    io, results, report   aliases of runs and present for one release (lostmid_jax._moved).
    kernels      the fused CPU attention kernel, compiled only when a run
                 selects it.
    nn           Flax NNX decoder stacks: an architecture-only DecoderConfig,
                 layers, presets, Hugging Face import/export; execution
                 options are passed at call time.
    parallel     meshes, work spread over devices and hosts.
    analysis     what we measure on a model: influence profiles (request ->
                 memory plan -> engine -> estimate), pathways, attention
                 strength, prior_for (a model's theory prior).
    probes       what practitioners measure on a trained model:
                 position-controlled retrieval, remedies, its tokenizer.
    train        synthetic tasks, optimizer steps, checkpoints, snapshots.
    retrieval    position-controlled retrieval as token ids, below train and probes
                 (train never imports probes): the paired design (ProbeSet), the
                 token-level probe, the tokenizers built here.
    experiments  one module or package per experiment (depth_sweep,
                 counterfactuals, step0, step0_study, pretrained_vs_init,
                 micro_training, remedies, diagnose): a frozen config,
                 run(cfg, run_dir) -> result, records, verdict, figures.
    cli          the ``lostmid`` command, a thin adapter over the experiments.
    resources    the work and memory limits checked before any work.
    native       the one builder of compiled C++ code (first use, cached, sealed; no jax):
                 the kernels' and theory's float64 row kernel.
    atomic       the one atomic writer (fresh temporaries, then a rename), below every package.
    untrusted      the one reader of outside JSON and text (regular files, bounded, UTF-8, named errors).
    compile_cache  JAX's persistent compilation cache of the commands.
    compile_time   seconds JAX spends compiling, from its monitoring events (--profile).
    cpu_heaps      XLA's per-heap size limit for jitted steps on CPU (temporaries reused, not re-mapped).
    validation   argument checks: a ValueError naming the argument and range.
    _lazy        lazy package attributes (importing a package loads no jax).
    _moved       old addresses kept for one release: the registry (old -> new, end release) and
                 MovedWarning, given once per process (CHANGELOG.md lists the same).

Layers, top to bottom: each imports only the groups to its right (">"):
    cli > experiments > train, probes > retrieval > analysis > nn > kernels > io, results, report > present
    > plots > stats > theory > masks > resources > runs > native
    > atomic, validation, untrusted, compile_cache, compile_time, parallel, _lazy > cpu_heaps, _moved

Commands (``lostmid --help``): lostmid theory | sweep | counterfactuals | step0 |
step0-study | compare | train | remedies | diagnose | rerun | plot | report | table.

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
