"""Step-0 snapshot equals the Jacobian engine on the freshly initialized model."""

import jax.numpy as jnp
import numpy as np
from flax import nnx

from lostmid_jax import analysis
from lostmid_jax.nn import Decoder
from lostmid_jax.train import init_state, tasks, training_execution


def test_step0_snapshot_matches_engine_on_fresh_model(lm_one_step):
    cfg, res = lm_one_step  # task "lm", steps=1, snapshot_steps=(0, 1)
    snap0 = res.snapshots[0]
    assert [s["step"] for s in res.snapshots] == [0, 1]
    fresh = Decoder(cfg.model, rngs=nnx.Rngs(cfg.seed))
    x = fresh.embed(jnp.asarray(tasks.profile_tokens(cfg)))
    ref = analysis.influence_profile(fresh, x, method="exact").norms
    np.testing.assert_allclose(snap0["profiles"]["total"], ref, rtol=1e-6, atol=0)
    np.testing.assert_allclose(snap0["strength_0"], analysis.attention_strength(fresh, x)[0], rtol=1e-6)
    assert len(ref) == cfg.lm_length
    assert not np.allclose(res.snapshots[1]["profiles"]["total"], ref)
    assert res.execution == training_execution(cfg) and not res.execution.remat  # how the model ran
    graphdef, params, _ = init_state(cfg)
    assert np.array_equal(nnx.merge(graphdef, params).embed(jnp.arange(3)), fresh.embed(jnp.arange(3)))
