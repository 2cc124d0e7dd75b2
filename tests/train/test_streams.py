"""Cutting each task's batch into independent streams leaves the loss and the step unchanged."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Decoder
from lostmid_jax.train import TrainConfig, init_state, tasks, train_step_for
from lostmid_jax.train.step import losses


def _manual_losses(model, batch):
    """Per-task weighted mean cross-entropy written out with log_softmax (independent of optax)."""
    out = {}
    tok = batch["lm_tokens"]
    logp = jax.nn.log_softmax(model.lm(tok[:, :-1]), axis=-1)
    nll = -jnp.take_along_axis(logp, tok[:, 1:, None], axis=-1)[..., 0]
    out["lm"] = jnp.mean(batch["lm_weights"] * nll)
    logp = jax.nn.log_softmax(model.lm(batch["kv_tokens"])[:, -1], axis=-1)
    nll = -jnp.take_along_axis(logp, batch["kv_target"][:, None], axis=-1)[:, 0]
    out["kv"] = jnp.mean(batch["kv_weights"] * nll)
    return out


# Under -m extended (a float64 compile of three stream counts each); streams are checked by default through
# the step: test_train_step_with_streams_matches_one_stream. (3, 4): the LM batch is not cut.
@pytest.mark.parametrize("lm_batch,kv_batch", [pytest.param(4, 6, marks=pytest.mark.extended),
                                               pytest.param(3, 4, marks=pytest.mark.extended)])
def test_streams_give_the_same_losses(tiny, lm_batch, kv_batch):
    cfg = tiny.replace(task="mixed", lm_batch=lm_batch, kv_batch=kv_batch, intervention="middle_weighted_loss")
    graphdef, state = nnx.split(Decoder(dataclasses.replace(cfg.model, param_dtype="float64"), rngs=nnx.Rngs(0)))

    @jax.jit  # one program (run op by op, every primitive of each stream count would compile apart)
    def all_losses(state, batch):
        model = nnx.merge(graphdef, state)
        return _manual_losses(model, batch), [losses(model, batch, streams) for streams in (1, 2, 3)]

    want, got_by_streams = all_losses(state, tasks.train_batch(cfg, 3))
    for got in got_by_streams:
        assert set(got) == {"lm", "kv"}
        for task in ("lm", "kv"):
            np.testing.assert_allclose(got[task], want[task], rtol=1e-6, atol=0)  # optax CE runs in float32


def test_train_step_with_streams_matches_one_stream(tiny):
    """The retrieval step of the other training tests (TINY, 2 streams: compiled once for all of them);
    that the streams cut the LM and KV batches into the same losses: test_streams_give_the_same_losses."""
    cfg = tiny
    assert cfg.streams == 2 and cfg.kv_batch % 2 == 0
    graphdef, params, opt = init_state(cfg)
    states = []
    for streams in (1, 2):
        p, o = params, opt
        step = train_step_for(graphdef, cfg, streams)
        for t in range(3):
            p, o, _ = step(p, o, tasks.train_batch(cfg, t))
        states.append(p)
    for a, b in zip(jax.tree.leaves(states[0]), jax.tree.leaves(states[1])):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)  # float32: summation order differs


def test_streams_must_be_a_positive_int():
    with pytest.raises(ValueError, match="streams"):
        TrainConfig(streams=0)
