"""Each attention prior equals the Step-0 decoder stack with the matching mask.

A Decoder with uniform attention, no MLP, no norm and blocks
x <- (1 - a_l) x + a_l Attn(x), with value and output maps set to the
identity, has Jacobian d y_L / d x_j = w_j I_D where w is the influence row
of N_l = (1 - a_l) I + a_l A (A the mask's uniform attention). For ALiBi the
model uses softmax attention with zero query/key weights, so each head's
weights are softmax(-m_h (i - j)); value maps copy x into every head and the
output map averages the heads, so Attn(x) = (1/n) sum_h A_h x: the head
average that :class:`~lostmid_jax.theory.ALiBi` defines. The library's own
bridge, analysis.prior_for(cfg), must name the same prior. The Sinks prior is
the decoder's sliding window with ``sinks``. A softmax model whose layer-1
query/key maps give every head the score diag_h [i = j] (and zero in later
layers) is the Content prior with that per-layer self bonus, ALiBi included.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax import theory
from lostmid_jax.analysis import prior_for
from lostmid_jax.nn import Decoder, DecoderConfig, Execution, apply_fn
from lostmid_jax.masks.text import prior_spec

L, D = 9, 4
ALPHAS = (0.6, 1.0, 0.35)


def _last_row_jacobian(model, segment_ids=None) -> np.ndarray:
    """d y_L / d x_j for every j: [D, L, D]."""
    _, state, fn = apply_fn(model)
    x = jax.random.normal(jax.random.key(1), (L, D), jnp.float64)
    run = Execution(remat=False)  # no rematerialization: faster compiles, same values
    jac = jax.jit(jax.jacrev(lambda s, x: fn(s, x, segment_ids=segment_ids, execution=run)[-1], argnums=1))(state, x)
    return np.asarray(jac)


def _influence(jac: np.ndarray) -> np.ndarray:
    """w_j from a Jacobian that must be w_j I_D for every j."""
    w = jac[0, :, 0]
    np.testing.assert_allclose(jac, np.einsum("j,de->dje", w, np.eye(D)), atol=1e-13)
    return w


def _uniform_model(**mask_kw) -> Decoder:
    cfg = DecoderConfig(depth=len(ALPHAS), width=D, heads=2, attention="uniform", mlp="none", norm="none",
                        position="none", attn_mix=ALPHAS, param_dtype="float64", **mask_kw)
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    eye = jnp.broadcast_to(jnp.eye(D), (cfg.depth, D, D))
    model.blocks.attn.v.kernel[...] = eye
    model.blocks.attn.o.kernel[...] = eye
    return model


CASES = [
    (dict(mask="causal"), [(theory.Causal(), None)]),
    (dict(mask="bidirectional"), [(theory.Bidirectional(), None)]),
    (dict(mask="sliding_window", window=3), [(theory.SlidingWindow(3), None)]),
    (dict(mask="sliding_window", window=3, sinks=2), [(theory.Sinks(2, 3), None)]),
    (dict(mask="prefix_lm", prefix=4), [(theory.PrefixLM(4), None)]),
    (dict(mask="document"), [(theory.Chunks((2, 4, 3)), [0, 0, 1, 1, 1, 1, 2, 2, 2]),
                             (theory.Chunks((5, 4)), [3, 3, 3, 3, 3, 7, 7, 7, 7]),
                             (theory.Chunks((1,) * L), list(range(L)))]),
]


@pytest.mark.parametrize("mask_kw,priors", CASES, ids=[c[0]["mask"] for c in CASES])
def test_uniform_prior_equals_decoder_mask(mask_kw, priors):
    model = _uniform_model(**mask_kw)  # one model (one compile) per mask; segment ids are traced
    for prior, segments in priors:
        seg = None if segments is None else jnp.asarray(segments)
        w = _influence(_last_row_jacobian(model, seg))
        np.testing.assert_allclose(w, theory.influence_row(L, len(ALPHAS), ALPHAS, prior=prior), rtol=1e-10, atol=1e-15,
                                   err_msg=prior_spec(prior))
        assert prior_for(model.cfg, L, doc_length=getattr(prior, "lengths", None)) == prior


@pytest.mark.parametrize("heads,rule", [(1, "alibi"), (3, "alibi"), (3, "geometric")])
def test_alibi_prior_equals_decoder_with_zero_scores(heads, rule):
    cfg = DecoderConfig(depth=len(ALPHAS), width=D, heads=heads, head_dim=D, attention="softmax", mlp="none",
                        norm="none", position="alibi", alibi_rule=rule, attn_mix=ALPHAS, param_dtype="float64")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    h = cfg.depth
    model.blocks.attn.q.kernel[...] = jnp.zeros((h, D, heads * D))
    model.blocks.attn.k.kernel[...] = jnp.zeros((h, D, heads * D))
    model.blocks.attn.v.kernel[...] = jnp.broadcast_to(jnp.tile(jnp.eye(D), (1, heads)), (h, D, heads * D))
    model.blocks.attn.o.kernel[...] = jnp.broadcast_to(jnp.tile(jnp.eye(D), (heads, 1)) / heads, (h, heads * D, D))
    w = _influence(_last_row_jacobian(model))
    prior = theory.ALiBi(heads, rule=rule)
    np.testing.assert_allclose(w, theory.influence_row(L, len(ALPHAS), ALPHAS, prior=prior), rtol=1e-10, atol=1e-15)
    assert prior_for(cfg, L) == prior
