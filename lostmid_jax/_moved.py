"""Old addresses kept for one release: the registry of what moved where, and the one warning they give.

An alias module (an old module path) is three lines, its names listed in :data:`MODULES` here:

    \"\"\"Alias for one release: run directories live in :mod:`lostmid_jax.runs`.\"\"\"
    from ._moved import alias
    __getattr__, __dir__, __all__ = alias(__name__)

Importing it warns once per process (:class:`MovedWarning`, a DeprecationWarning naming the old and the new
address and the release that removes the old one); each name resolves on first use to the object at its new
address (the same object). Names with no counterpart (an old signature, say) are written in the alias module
itself and listed as ``kept``. An old name inside a live module (renamed in place) is listed in :data:`NAMES`
and served by ``__getattr__ = old_names(__name__)`` at the end of that module: it warns once on first use.

:data:`MOVED` is every old address -> (new address, the release it disappears in); CHANGELOG.md lists the
same ("## Moved in 0.2.0"), and tests/test_moved.py checks both against the source. Standard library only.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import NamedTuple

END = "0.3.0"
"""The release that removes every address below."""


class MovedWarning(DeprecationWarning):
    """An old address was used: it works until :data:`END` (the message names the new one)."""


class Alias(NamedTuple):
    home: str  # the new module (or package) of the alias module's names
    names: dict[str, str]  # old name -> new dotted address of the same object
    kept: tuple[str, ...] = ()  # names defined in the alias module itself (no counterpart; removed with it)
    end: str = END


def _alias(home: str, names: str, kept: str = "") -> Alias:
    """Alias(home, {name: home.name, or the dotted address after "=" ("old=pkg.mod.new")}, kept)."""
    table = {}
    for item in names.split():
        old, _, new = item.partition("=")
        table[old] = new or f"{home}.{old}"
    return Alias(home, table, tuple(kept.split()))


_P = "lostmid_jax"
MODULES: dict[str, Alias] = {
    f"{_P}.io": _alias(f"{_P}.runs", "Run claim_run_dir git_revision jsonable load_run na_field package_versions "
                                     f"read_csv write_config write_csv write_atomic={_P}.atomic.write_atomic"),
    f"{_P}.results": _alias(f"{_P}.runs", "COLUMNS_FILE FIGURE_FORMATS Run StoredConfigWarning UNDOCUMENTED "
                                          "UndocumentedColumnsWarning load_run read_columns read_table read_tables "
                                          + " ".join(f"{name}={_P}.present.plot.{name}" for name in (
                                              "draw", "draw_figures", "figure_title", "parse_formats", "save_figures"))),
    f"{_P}.report": _alias(f"{_P}.present.report", "build_html write_report"),
    f"{_P}.runs.atomic": _alias(f"{_P}.atomic", "TEMPORARY_SUFFIX is_temporary remove_temporaries replacing "
                                                "write_atomic"),
    f"{_P}.runs.mathml": _alias(f"{_P}.present.mathml", "inline"),
    f"{_P}.runs.page": _alias(f"{_P}.present.page", "PageTable page_parts"),
    f"{_P}.runs.paste": _alias(f"{_P}.present.paste", "FORMATS check_format needed render"),
    f"{_P}.runs.plot": _alias(f"{_P}.present.plot", "FIGURE_FORMATS draw draw_figures failure_line figure_title "
                                                    "parse_formats plain_title save_figures"),
    f"{_P}.runs.report": _alias(f"{_P}.present.report", "build_html write_report"),
    f"{_P}.runs.verdict_table": _alias(f"{_P}.present.verdict_table", "Claim DETAILS OUTCOMES claim_rows"),
    f"{_P}.analysis.heldout": _alias(f"{_P}.stats.heldout", "MISFIT_ROWS HeldoutScore Split fit_rows heldout_score "
                                                            "rms_log_error split_halves", kept="misfit_chi2"),
    f"{_P}.analysis.metrics": _alias(f"{_P}.stats.profile_metrics",
                                     "PowerLawFit positions spearman to_distribution u_statistics valley_power_law "
                                     f"wasserstein mean_se={_P}.stats.intervals.mean_sem"),
    f"{_P}.analysis.uncertainty": _alias(f"{_P}.stats.agreement",
                                         "LEVEL Agreement agreement bin_matrix bootstrap_interval bootstrap_weights "
                                         "expansion noise_ceiling row_bootstrap_ci spearman_rows wasserstein_rows "
                                         f"Misfit={_P}.stats.misfit.Misfit log_misfit={_P}.stats.misfit.misfit_test"),
    f"{_P}.experiments.configs": _alias(f"{_P}.runs.config", "field_default field_types from_dict is_sequence_type "
                                                             "jsonable nested_class replace_path to_dict "
                                                             "tuples_from_lists"),
    f"{_P}.experiments.counterfactual_verdict": _alias(f"{_P}.experiments.counterfactuals.claims",
                                                       "CATEGORIES classify verdict_lines"),
    f"{_P}.nn.hub": _alias(f"{_P}.nn.hf.hub", "WEIGHT_PATTERNS resolve_checkpoint"),
    f"{_P}.nn.hf_config": _alias(f"{_P}.nn.hf.families",
                                 f"FAMILIES config_from_hf config_to_hf family_of INDEX={_P}.nn.hf.files.INDEX "
                                 f"WEIGHTS={_P}.nn.hf.files.WEIGHTS read_config={_P}.nn.hf.files.read_config "
                                 f"read_json_object={_P}.nn.hf.files.read_json_object "
                                 f"weights_file={_P}.nn.hf.files.weights_file"),
    f"{_P}.nn.hf_layout": _alias(f"{_P}.nn.hf.families", "IGNORED_SUFFIXES PREFIX from_hf to_hf"),
    f"{_P}.nn.hf_rope_families": _alias(f"{_P}.nn.hf.families",
                                        f"FAMILIES={_P}.nn.hf.families.ROPE_FAMILIES ROPE_TYPES={_P}.nn.hf.llama.ROPE_TYPES "
                                        f"rope_from_hf={_P}.nn.hf.llama.rope_from_hf",
                                        kept="ARCHITECTURES config_from_hf config_to_hf family_of mismatches"),
    f"{_P}.nn.hf_alibi_families": _alias(f"{_P}.nn.hf.families",
                                         f"FAMILIES={_P}.nn.hf.families.ALIBI_FAMILIES "
                                         f"family_of={_P}.nn.hf.families.alibi_family_of",
                                         kept="EMBEDDING FIXED PREFIX config_from_hf config_to_hf from_hf to_hf"),
    f"{_P}.nn.mask_spec": _alias(f"{_P}.masks.spec", "MASK_KINDS MaskSpec mask_of"),
    f"{_P}.probes.position_test": _alias(f"{_P}.probes.accuracy_by_passage", "PositionResult Rates end_passages "
                                                                          "middle_passages position_test rates"),
    f"{_P}.theory.alibi_slopes": _alias(f"{_P}.masks.alibi_slopes", "SLOPE_RULES float_slopes slope_exponents"),
    f"{_P}.theory.content": _alias(f"{_P}.masks.content", "MASKS Content"),
    f"{_P}.theory.content_ops": _alias(f"{_P}.masks.content_ops", "alibi_sums content_matrix layer_operators"),
    f"{_P}.theory.prior_specs": _alias(f"{_P}.masks.text", "default_priors parse_prior prior_spec"),
    f"{_P}.theory.priors": _alias(f"{_P}.masks", "PRIORS ALiBi Bidirectional Causal Chunks PrefixLM SlidingWindow "
                                                 "Sinks causal_here check_prior check_slopes"),
    f"{_P}.theory.resources": _alias(f"{_P}.resources", "DEFAULT_MEMORY_GB Limits check_budget check_max_dps "
                                                        "check_max_heads check_memory check_operations current_limits "
                                                        "limits physical_memory_bytes"),
    f"{_P}.analysis.step0_measure": _alias(f"{_P}.analysis.measured_prior", "CONTENT_LENGTH CONTENT_SCORES content_records measured_content_prior "
                                                        f"model_input={_P}.analysis.random_inputs.model_input"),
    f"{_P}.analysis.step0_summary": _alias(f"{_P}.analysis.seed_summary", "BINS LOOP_BOOT NULL_ALPHAS bin_choices intervals null_references "
                                                        "null_scores pathway_summary summarize_variant unit_timings"),
    f"{_P}.experiments.counterfactuals.sweep": _alias(f"{_P}.experiments.counterfactuals.measure",
                                                           "PROFILE_POINTS Result profile_depths profile_record profile_rows "
                                                           f"records run dead_zone={_P}.theory.dead_zones.dead_zone"),
    f"{_P}.experiments.step0_study.drawing": _alias(f"{_P}.experiments.step0_study.figures", "convergence_figure layers_figure noise_figure "
                                                                "variants_figure "
                                                                f"draw={_P}.experiments.step0_study.figures.figures"),
    f"{_P}.experiments.step0_study.report": _alias(f"{_P}.experiments.step0_study.tables", "layer_rows noise_rows preset_tables tables "
                                                               + " ".join(f"{n}={_P}.experiments.step0_study.claims.{n}" for n in ("summary_table", "verdict_lines", "winner"))
                                                               + " ".join(f" {n}={_P}.experiments.step0_study.columns.{n}" for n in ("COLUMNS", "TARGET"))),
    f"{_P}.experiments.step0.report": _alias(f"{_P}.experiments.step0.tables", "BINS CLAIMS HEAT_HEADS LOOP_BOOT METRIC_COLUMNS PATHWAYS "
                                                         "PEAK_TO_TROUGH_BAND THEORY_ROWS THRESHOLDS TIMING_COLUMNS agreement_records "
                                                         "alpha_records attention_records bin_choices content_records intervals "
                                                         "measured_content_prior metric_ci metric_records null_records pathway_summary "
                                                         "profile_records summarize summarize_variant timing_records "
                                                         f"content_prior={_P}.analysis.measured_prior.measured_content_prior"),
}
"""Old module -> :class:`Alias` (its file at the old path is the three lines above, plus any ``kept`` names)."""

NAMES: dict[str, tuple[str, str]] = {
    f"{_P}.plots.training.mean_ci": (f"{_P}.stats.intervals.mean_halfwidth", END),
    f"{_P}.stats.misfit.log_misfit": (f"{_P}.stats.misfit.misfit_test", END),
    f"{_P}.train.metrics.middle_mask": (f"{_P}.train.metrics.valley_band_mask", END),
    f"{_P}.train.snapshots.middle_bins": (f"{_P}.train.snapshots.central_needle_bins", END),
    f"{_P}.train.tasks.middle_pairs": (f"{_P}.train.tasks.needle_middle_pairs", END),
    f"{_P}.experiments.step0.measure.load_unit": (f"{_P}.runs.units.load_unit", END),
    f"{_P}.experiments.step0.measure.save_unit": (f"{_P}.runs.units.save_unit", END),
    f"{_P}.experiments.counterfactuals.dead_zone": (f"{_P}.theory.dead_zones.dead_zone", END),
    **{f"{_P}.analysis.theory_variants.{name}": (f"{_P}.theory.variants.{name}", END)
       for name in ("EXACT_LIMIT", "elementary_symmetric", "power_rows")},
    f"{_P}.probes.documents.token_probes": (f"{_P}.retrieval.token_probes.token_probes", END),
    **{f"{_P}.probes.tokenizer.{name}": (f"{_P}.retrieval.tokenizer_builders.{name}", END)
       for name in ("BOS", "UNK", "bpe_tokenizer", "save_tokenizer", "word_tokenizer")},
}
"""Old name inside a live module -> (its new dotted address, the release it disappears in)."""

MOVED: dict[str, tuple[str, str]] = {
    **{old: (alias.home, alias.end) for old, alias in MODULES.items()},
    **{f"{old}.{name}": (new, alias.end) for old, alias in MODULES.items() for name, new in alias.names.items()},
    **NAMES,
}
"""Every old address (module or name) -> (its new address, the release it disappears in)."""

_warned: set[str] = set()


def _outside(old_module: str) -> int:
    """The stacklevel of the first frame outside this module, the alias ``old_module`` and the import machinery
    (importlib's frames, which warnings.warn skips itself, and a custom loader's exec_module, such as pytest's
    for a module named like a test file), so the warning points at the line that used the old address."""
    frame, level = sys._getframe(2), 2
    while frame is not None:
        internal = frame.f_code.co_filename.startswith("<frozen importlib")
        if not (internal or frame.f_code.co_name == "exec_module"
                or frame.f_globals.get("__name__") in (__name__, old_module)):
            break
        level += not internal
        frame = frame.f_back
    return level


def warn_once(old: str, new: str, end: str, *, module: str) -> None:
    """The one :class:`MovedWarning` of ``old`` in this process (none after it was shown once)."""
    if old in _warned:
        return
    warnings.warn(MovedWarning(f"{old} is an old address kept until lostmid-jax {end}: use {new}"),
                  stacklevel=_outside(module))
    _warned.add(old)  # after warn: a warning turned into an error is raised again at the next use


def resolve(address: str):
    """The object at dotted ``address`` (a module, or a name in one)."""
    if address in sys.modules:
        return sys.modules[address]
    module, _, name = address.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except AttributeError:
        return importlib.import_module(address)


def alias(module: str):
    """(__getattr__, __dir__, __all__) of alias module ``module`` (a key of :data:`MODULES`); warns once."""
    entry = MODULES[module]
    warn_once(module, entry.home, entry.end, module=module)

    def __getattr__(name: str):
        if name not in entry.names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return resolve(entry.names[name])  # not cached: always the object now at the new address

    def __dir__():
        return sorted(set(vars(sys.modules[module])) | set(entry.names))

    return __getattr__, __dir__, sorted({*entry.names, *entry.kept})


def old_names(module: str):
    """__getattr__ of live module ``module``: its old names (:data:`NAMES`), each warning once on first use."""
    prefix = module + "."

    def __getattr__(name: str):
        new, end = NAMES.get(prefix + name, (None, None))
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warn_once(prefix + name, new, end, module=module)
        return resolve(new)

    return __getattr__
