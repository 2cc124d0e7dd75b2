"""Cotangents for each method and the estimates built from their squared VJP norms.

Shapes: L positions, D width, K cotangents.

For J_j = d y_pos / d x_j (D x D) and a cotangent u: [D],

    exact       u = e_1..e_D:    sum_k ||e_k^T J_j||^2 = ||J_j||_F^2      (K = D, no error)
    randomized  u_k ~ N(0, I_D): E ||u^T J_j||^2 = trace(J_j J_j^T) = ||J_j||_F^2
                s_j = (1/K) sum_k ||u_k^T J_j||^2 is unbiased for ||J_j||_F^2;
                its standard error is std_k(||u_k^T J_j||^2) / sqrt(K) (ddof 1).
                Var ||u^T J_j||^2 = 2 sum_i sigma_i^4 (sigma_i: singular values
                of J_j), so the relative std of s_j is sqrt(2 / (K r_j)) with
                r_j = (sum sigma^2)^2 / sum sigma^4 in [1, D] the effective rank:
                sqrt(2/K) (35% at K = 16) for a rank-1 block, sqrt(2/(K D)) for
                an isotropic one. The norm sqrt(s_j) has half that relative error
                (delta method) and a small downward bias (Jensen). Measured on
                the toy preset (D = 32, r_j ~ 9): median relative error of the
                norm ~4% at K = 16. The +-2 SE interval undercovers at small K
                (per-probe values are skewed, chi-square-like with ~r_j degrees
                of freedom): ~85% there, not the nominal 95%; the reported
                variance itself is unbiased (tests/analysis/test_randomized.py).
    one-pass    u = (1, ..., 1): ||1^T J_j|| = ||d sum_d y_pos,d / d x_j||, the
                cheap scalar surrogate. Biased: it weights the output directions
                by their alignment with the all-ones vector and is not
                ||J_j||_F (for J_j = c I it is c sqrt(D) = ||J_j||_F, in general
                it is neither an upper nor a lower bound of it).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False)
class InfluenceProfile:
    """Influence of every input position j on the output at ``position``.

    Attributes:
      method: "exact", "randomized", "one-pass" or "jacrev".
      position: 0-based output row.
      cotangents: K, the number of reverse passes (D for exact, probes for
        randomized, 1 for one-pass, D for jacrev).
      sq_norms: [L] ||J_j||_F^2 (exact), its unbiased estimate (randomized),
        or ||1^T J_j||^2 (one-pass).
      norms: [L] sqrt(sq_norms).
      sq_stderr: [L] standard error of sq_norms (randomized with K >= 2),
        else None.
      stderr: [L] standard error of norms by the delta method,
        sq_stderr / (2 norms) (inf where the norm is 0), else None.
      plan: the chunk, devices and remat the engine chose, with its memory
        estimate (an analysis.memory.MemoryPlan; None for "jacrev").
    """

    method: str
    position: int
    cotangents: int
    sq_norms: np.ndarray
    norms: np.ndarray
    sq_stderr: np.ndarray | None = None
    stderr: np.ndarray | None = None
    plan: object | None = None


def cotangents(method: str, width: int, dtype, *, probes: int, key) -> jax.Array:
    """[K, D] cotangent rows for ``method`` (K = D, probes or 1).

    ``key``: a jax.random key or an int seed, required for "randomized" (ValueError naming ``key``).
    """
    if method == "exact":
        return jnp.eye(width, dtype=dtype)
    if method == "randomized":
        if key is None:
            raise ValueError("key is required with method='randomized' (a jax.random key or an int seed)")
        return jax.random.normal(check_key(key), (probes, width), dtype)
    return jnp.ones((1, width), dtype)


def check_key(key):
    """A jax.random key from ``key``: a typed key (jax.random.key), a raw uint32 [2] key, or an int seed."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        return jax.random.key(int(key))
    dtype, shape = getattr(key, "dtype", None), getattr(key, "shape", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key) and shape == ():
        return key
    if dtype == np.uint32 and shape == (2,):
        return key
    raise ValueError(f"key must be a jax.random key (jax.random.key(seed)) or an int seed, got {key!r}")


def estimates(request, s: np.ndarray, plan=None) -> list[InfluenceProfile]:
    """One profile per pathway of ``request`` from s [K, P, L'] (see :func:`estimate`), each with ``plan``.

    Raises:
      ValueError: some squared norm is NaN or inf, or the total profile is zero at every
        position: the numbers would be wrong, so they are not returned (:func:`check_measured`).
    """
    check_measured(s)
    return [dataclasses.replace(estimate(request.method, request.position, s[:, p], request.length), plan=plan)
            for p in range(s.shape[1])]


def check_measured(s: np.ndarray) -> None:
    """Refuse squared norms s [K, P, L'] that cannot be a profile, naming the likely cause."""
    s = np.asarray(s)
    bad = ~np.isfinite(s)
    if bad.any():
        raise ValueError(f"the influence profile came out non-finite ({int(bad.sum())} of {s.size} squared norms "
                         "are NaN or inf): the forward or backward pass overflowed, as float32 does for inputs far "
                         "from unit scale; use param_dtype='float64' or inputs of unit scale")
    if not np.any(s[:, 0]):
        raise ValueError("the influence profile is zero at every position: the output does not depend on x, or "
                         "its gradient underflowed or saturated (e.g. float32 with inputs of size ~1e30); "
                         "check the model (residual, init_std) and the input scale, or use param_dtype='float64'")


def estimate(method: str, position: int, per_cotangent: np.ndarray, length: int) -> InfluenceProfile:
    """Profile from s[k, j] = ||c_k^T J_j||^2 ([K, L'] with L' <= L; zero-padded to L)."""
    s = np.zeros((per_cotangent.shape[0], length))
    s[:, : per_cotangent.shape[1]] = np.asarray(per_cotangent, dtype=np.float64)
    k = s.shape[0]
    if method == "randomized":
        sq = s.mean(axis=0)
        sq_se = s.std(axis=0, ddof=1) / np.sqrt(k) if k >= 2 else None
    else:
        sq, sq_se = s.sum(axis=0), None
    norms = np.sqrt(sq)
    se = None
    if sq_se is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            se = np.where(norms > 0, sq_se / (2 * np.where(norms > 0, norms, 1.0)), np.inf)
    return InfluenceProfile(method=method, position=position, cotangents=k, sq_norms=sq,
                            norms=norms, sq_stderr=sq_se, stderr=se)
