"""Seven theory rows for a measured Step-0 profile, from a fitted constant to zero-parameter predictions.

Shapes: L positions (1-based j, x = j/L), H depth.

The variants differ in where the mixture's a_l (or the branch gains) come from:

    fitted_a        a constant a fitted to the log profile (theory_fit.fit_constant_alpha)
    measured_a      a_l = E_i ||attn_out_i|| / (||resid_i|| + ||attn_out_i||)  (analysis.strength)
    jacobian_a      a_l = g_l / (1 + g_l), g_l^2 = ||G_l||_F^2 / D  (analysis.branch_gains;
                    theory.variants.jacobian_alphas)
    random_matrix   independent zero-mean branch Jacobians, paths added in squared norm
                    (theory.variants.random_matrix_row)
    random_matrix_keys
                    the same with a gain per layer and key (analysis.branch_gains.key_gains;
                    theory.variants.key_gain_row)
    random_matrix_positionwise
                    random_matrix with the position-wise Jacobians I + K_{l,i} of the MLP and its
                    norm, k_{l,i}^2 = ||K_{l,i}||_F^2 / D (analysis.branch_gains.mlp_gains;
                    theory.variants.positionwise_row)
    random_matrix_keys_positionwise
                    both: the per-key gains g_l^2(j) and the position-wise k_{l,i}^2

The position-wise variants take the measured Gram kappa_l[i, i'] = tr(K_{l,i}^T K_{l,i'}) / D
(analysis.branch_gains.mlp_gram) when it is given: the MLP shares its weights across positions, so
K_{l,i} and K_{l,i'} are correlated. Without it (runs measured before the Gram) they fall back to
the diagonal kappa_l = diag(k_{l,i}^2), the model of independent positions.

The parameter-free a_l of the paper's mixture is jacobian_a's g_l / (1 + g_l), the
branch-Jacobian gain, not measured_a's forward-pass ratio.
The row math is :mod:`lostmid_jax.theory.variants` (its names read here warn
for one release: lostmid_jax._moved); this module turns the fitting rows' measurements into a row.
"""

from __future__ import annotations

import numpy as np

from .. import theory
from .._moved import old_names
from ..theory.variants import jacobian_alphas, key_gain_row, positionwise_row, random_matrix_row
from .theory_fit import fit_constant_alpha, theory_row

VARIANTS = ("fitted_a", "measured_a", "jacobian_a", "random_matrix", "random_matrix_keys",
            "random_matrix_positionwise", "random_matrix_keys_positionwise")
LABELS = {"fitted_a": "fitted constant $a$", "measured_a": r"measured $a_l$",
          "jacobian_a": r"Jacobian $a_l = g_l/(1+g_l)$", "random_matrix": r"random-matrix paths ($g_l$)",
          "random_matrix_keys": r"random-matrix paths, per key ($g_l(j)$)",
          "random_matrix_positionwise": r"random-matrix paths, position-wise Jacobians ($g_l$, $k_{l,i}$)",
          "random_matrix_keys_positionwise": r"random-matrix paths, per key and position-wise ($g_l(j)$, $k_{l,i}$)"}
DESCRIPTIONS = {"fitted_a": "the paper's mixture with a fitted constant a",
                "measured_a": "the mixture with the measured a_l",
                "jacobian_a": "the mixture with a_l = g_l/(1+g_l) from the branch Jacobians",
                "random_matrix": "independent random branch Jacobians, paths added in squared norm, g_l measured",
                "random_matrix_keys": "the random-matrix paths with a measured gain per layer and key, g_l(j)",
                "random_matrix_positionwise": "the random-matrix paths through position-wise Jacobians I + K_{l,i} "
                                              "(MLP and norm), g_l and k_{l,i} measured",
                "random_matrix_keys_positionwise": "the position-wise random-matrix paths with a gain per layer and "
                                                   "key, g_l(j) and k_{l,i} measured"}
ZERO_PARAMETER = tuple(v for v in VARIANTS if v != "fitted_a")


def variant_row(variant: str, length: int, *, profiles=None, alphas=None, gains_sq=None, gains_key=None,
                mlp_gains=None, mlp_gram=None, prior=theory.Causal()) -> tuple[np.ndarray, dict]:
    """(row [L], parameters) of one variant from fitting data only.

    Args:
      variant: one of :data:`VARIANTS`.
      length: L.
      profiles: [F, L] measured profiles of the fitting rows ("fitted_a" fits
        its a to the mean of their normalized rows).
      alphas: [F, H] measured a_l of the fitting rows ("fitted_a" takes H from it, "measured_a").
      gains_sq: [F, H] measured g_l^2 of the fitting rows ("jacobian_a", "random_matrix").
      gains_key: [F, H, L] measured g_l^2(j) of the fitting rows ("random_matrix_keys").
      mlp_gains: [F, H, L] measured k_{l,i}^2 of the fitting rows (the "..._positionwise" variants,
        with ``gains_sq`` or ``gains_key``; used when ``mlp_gram`` is None).
      mlp_gram: [F, H, L, L] measured Grams kappa_l[i, i'] of the fitting rows (the "..._positionwise"
        variants, weight-shared MLPs); None: the diagonal model from ``mlp_gains``.
      prior: the Step-0 attention matrix.

    Returns:
      the row and {"a_fit": ...} for "fitted_a", else {}.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if variant.endswith("_positionwise"):
        position = mlp_gram if mlp_gram is not None else mlp_gains
        if position is None:
            raise ValueError(f"mlp_gram ([F, H, L, L]) or mlp_gains ([F, H, L] measured k_{{l,i}}^2) is needed "
                             f"for {variant}")
        gains = gains_key if variant == "random_matrix_keys_positionwise" else gains_sq
        return positionwise_row(length, np.asarray(gains, np.float64).mean(axis=0),
                                np.asarray(position, np.float64).mean(axis=0), prior=prior), {}
    if variant == "fitted_a":
        p = np.asarray(profiles, np.float64)
        p = (p / p.sum(axis=1, keepdims=True)).mean(axis=0)
        depth = np.asarray(alphas).shape[-1]
        a = fit_constant_alpha(p, depth, prior=prior)
        return theory_row(length, np.full(depth, a), prior=prior), {"a_fit": a}
    if variant == "measured_a":
        return theory_row(length, np.asarray(alphas, np.float64).mean(axis=0), prior=prior), {}
    if variant == "random_matrix_keys":
        return key_gain_row(np.asarray(gains_key, np.float64).mean(axis=0), prior=prior), {}
    g2 = np.asarray(gains_sq, np.float64).mean(axis=0)
    if variant == "jacobian_a":
        return theory_row(length, jacobian_alphas(g2), prior=prior), {}
    return random_matrix_row(length, g2, prior=prior), {}


__all__ = ["DESCRIPTIONS", "LABELS", "VARIANTS", "ZERO_PARAMETER", "variant_row"]


__getattr__ = old_names(__name__)  # theory.variants' names read here: lostmid_jax._moved.NAMES (warn once)
