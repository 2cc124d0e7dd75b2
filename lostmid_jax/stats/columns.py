"""What the statistics' CSV columns mean: one table, {column: (meaning, unit)}, that experiments draw from.

    agreement_meanings(reference="the theory row")      # spearman, wasserstein, ceiling, each with _lo, _hi
    misfit_meanings(reference="the theory row")         # chi2_dof, dof, p_misfit (suffix="_fitted": chi2_dof_fitted ...)
    interval_meanings({"a_fit": ("the fitted a", "")})  # adds a_fit_lo, a_fit_hi
    MEANINGS["rms_log"]                                 # one statistic's (meaning template, unit)

Every meaning names the profile (``profile``: say, "the held-out mean profile") and
what it is compared with (``reference``). A column <name>_lo / <name>_hi is the
95% interval of <name> (:mod:`lostmid_jax.stats.agreement`: bootstrap over seeds;
W1 and the ceiling by the jackknife; means by the t interval, :mod:`lostmid_jax.stats.intervals`),
empty where it is undefined (one seed; the jackknife below 3 seeds).
"""

from __future__ import annotations

CONTEXT = "fraction of the context"
"""The unit of a Wasserstein-1 distance on x in [0, 1]."""

MEANINGS: dict[str, tuple[str, str]] = {
    "spearman": ("Spearman rank correlation of {profile} with {reference}", ""),
    "wasserstein": ("Wasserstein-1 on x in [0, 1] between {profile} and {reference}", CONTEXT),
    "ceiling": ("noise ceiling of the Spearman of {profile}: sqrt of the Spearman-Brown corrected split-half "
                "reliability, the best Spearman any reference can reach given the seed noise", ""),
    "spearman_bc": ("bias-corrected Spearman 2 T - median T* of {profile} with {reference}: the point its 95% "
                    "bootstrap CI is centred on", ""),
    "wasserstein_bc": ("bias-corrected (jackknife) Wasserstein-1 between {profile} and {reference}: the point its "
                       "95% jackknife-t CI is centred on", CONTEXT),
    "spearman_rc": ("rank-corrected Spearman of {profile} with {reference}: the plain Spearman plus the attenuation "
                    "a reference equal to the expected profile suffers at this noise (stats.agreement); the value a "
                    "Step-0 verdict judges", ""),
    "attenuation": ("Spearman lost to the seed noise by a reference equal to the expected profile of {profile} "
                    "(1 - median of the residual bootstrap; spearman_rc = spearman + attenuation)", ""),
    "reliability": ("Spearman-Brown corrected split-half Spearman R of {profile} (ceiling = sqrt R)", ""),
    "rms_log": ("rms over bins of the log ratio of {profile} to {reference}, free scale", "nats"),
    "chi2_dof": ("misfit statistic T / dof of the per-seed log residuals of {profile} vs {reference} in at "
                 "most 16 bins (stats.misfit.misfit_test; about 1 within independent noise)", ""),
    "dof": ("degrees of freedom of chi2_dof{suffix}", ""),
    "p_misfit": ("sign-flip p-value of chi2_dof{suffix} (whole seeds flipped): small = a systematic misfit beyond "
                 "the noise", ""),
}
"""Statistic -> (meaning with {profile}, {reference} and {suffix} to fill, unit)."""

INTERVALS = {"spearman": "95% bootstrap CI (over seeds)",
             "spearman_rc": "95% CI (bootstrap over seeds and the reference's residual bootstrap, in quadrature)", "wasserstein": "95% jackknife-t CI (over seeds)",
             "ceiling": "95% jackknife CI (over seeds; empty below 3 seeds)", "rms_log": "95% bootstrap CI (over seeds)"}
"""Statistic -> the interval its _lo / _hi columns hold."""

PROFILE = "the mean normalized profile"


def meaning(name: str, *, profile: str = PROFILE, reference: str = "the reference", suffix: str = "",
            note: str = "") -> tuple[str, str]:
    """(meaning, unit) of statistic ``name`` of :data:`MEANINGS`, filled in; ``note`` is appended in parentheses."""
    text, unit = MEANINGS[name]
    text = text.format(profile=profile, reference=reference, suffix=suffix)
    if note:
        text = f"{text[:-1]}; {note})" if text.endswith(")") else f"{text} ({note})"
    return text, unit


def interval_meanings(columns: dict[str, tuple[str, str]], interval: str = "95% CI", *,
                      cite: bool = False) -> dict[str, tuple[str, str]]:
    """Each column followed by <name>_lo and <name>_hi, 'lower/upper end of the ``interval`` of <name>'
    (``cite``: the meaning of <name> also says '(``interval``: <name>_lo, <name>_hi)')."""
    out = {}
    for name, (text, unit) in columns.items():
        out[name] = (f"{text} ({interval}: {name}_lo, {name}_hi)" if cite else text, unit)
        out[f"{name}_lo"] = (f"lower end of the {interval} of {name}", unit)
        out[f"{name}_hi"] = (f"upper end of the {interval} of {name}", unit)
    return out


def agreement_meanings(*, profile: str = PROFILE, reference: str = "the reference",
                       cite: bool = False) -> dict[str, tuple[str, str]]:
    """spearman, wasserstein, spearman_rc, ceiling (the columns of
    :meth:`lostmid_jax.stats.agreement.Agreement.columns`), each with its _lo and _hi; spearman_bc,
    wasserstein_bc and attenuation."""
    out = {}
    for name in ("spearman", "wasserstein", "spearman_rc", "ceiling"):
        out.update(interval_meanings({name: meaning(name, profile=profile, reference=reference)}, INTERVALS[name],
                                     cite=cite))
    for name in ("spearman_bc", "wasserstein_bc", "attenuation"):
        out[name] = meaning(name, profile=profile, reference=reference)
    return out


def misfit_meanings(*, profile: str = PROFILE, reference: str = "the reference", suffix: str = "",
                    note: str = "") -> dict[str, tuple[str, str]]:
    """chi2_dof{suffix}, dof{suffix}, p_misfit{suffix} (the columns of :func:`lostmid_jax.stats.misfit.misfit_columns`)."""
    return {f"{name}{suffix}": meaning(name, profile=profile, reference=reference, suffix=suffix,
                                       note=note if name == "chi2_dof" else "")
            for name in ("chi2_dof", "dof", "p_misfit")}


__all__ = ["CONTEXT", "INTERVALS", "MEANINGS", "PROFILE", "agreement_meanings", "interval_meanings", "meaning",
           "misfit_meanings"]
