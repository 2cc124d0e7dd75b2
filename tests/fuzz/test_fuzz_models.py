"""Fuzz model configs, presets, experiment configs and the profile engine's arguments."""

import dataclasses

import numpy as np
import pytest
from fuzz_harness import EXAMPLES, run_case
from fuzz_values import ODD, odd, size
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lostmid_jax import nn
from lostmid_jax.experiments import EXPERIMENTS, load

SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))
DECODER_FIELDS = [f.name for f in dataclasses.fields(nn.DecoderConfig)]


@SETTINGS
@given(field=st.sampled_from(DECODER_FIELDS), value=odd | st.integers(-2, 9) | st.sampled_from(["causal", "rope"]))
def test_decoder_config_field(field, value):
    kind, cfg = run_case("nn.DecoderConfig", lambda: nn.DecoderConfig(**{field: value}), (field,))
    if kind == "ok":
        stored = getattr(cfg, field)
        default = getattr(nn.DecoderConfig(), field)
        if isinstance(default, bool):
            assert isinstance(stored, bool)  # never a truthy string or None
        assert not isinstance(stored, np.ndarray)


@SETTINGS
@given(name=st.sampled_from(list(nn.PRESETS)) | odd, field=st.sampled_from(DECODER_FIELDS + ["bogus"]),
       value=odd)
def test_preset(name, field, value):
    run_case("nn.preset", lambda: nn.preset(name, **{field: value}), ("name", field))


def _experiment_fields():
    out = []
    for module in EXPERIMENTS:
        exp = load(module)
        out += [(module, f.name) for f in dataclasses.fields(exp.Config)]
    return out


def _requires_weights(config) -> str | None:
    """The field of ``config`` naming a checkpoint to read and without a default: ``weights``, or the group
    ``checkpoint`` (probes.settings.CheckpointSettings) that holds it; else None."""
    return next((f.name for f in dataclasses.fields(config) if f.name in ("weights", "checkpoint")
                 and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING), None)


@SETTINGS
@given(target=st.sampled_from(_experiment_fields()), value=odd | st.integers(-2, 9) | st.lists(odd, max_size=2))
def test_experiment_config_field(target, value, tmp_path_factory):
    module, field = target
    exp = load(module)
    kwargs = {field: value}
    needs_weights = _requires_weights(exp.Config)  # pretrained_vs_init (weights), diagnose, remedies (checkpoint)
    if needs_weights and field != needs_weights:
        missing = str(tmp_path_factory.getbasetemp() / "no-such-checkpoint")
        kwargs[needs_weights] = missing if needs_weights == "weights" else {"weights": missing}
    names = (field, needs_weights, "weights") if needs_weights else (field,)
    run_case(f"experiments.{module}.Config", lambda: exp.Config(**kwargs), names + ("base", "model"))


@pytest.fixture(scope="module")
def model():
    from flax import nnx

    return nn.Decoder(nn.preset("toy", depth=1, width=8, heads=2, kv_heads=1), rngs=nnx.Rngs(0))


ARGS = {"method": st.sampled_from(["exact", "randomized", "one-pass", "jacrev"]) | odd,
        "probes": size(4), "position": st.integers(-10, 10) | odd, "chunk": st.none() | size(8),
        "key": st.none() | st.integers(0, 3) | odd, "max_memory_gb": st.none() | odd | st.floats(0.01, 4)}


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(arg=st.sampled_from(list(ARGS)), data=st.data())
def test_influence_profile_argument(model, arg, data):
    from lostmid_jax.analysis import influence_profile

    value = data.draw(ARGS[arg])
    x = np.random.default_rng(0).standard_normal((6, 8)).astype(np.float32)
    kwargs = {"method": "randomized", "key": 0, "probes": 2} | {arg: value}
    kind, prof = run_case("analysis.influence_profile (arguments)", lambda: influence_profile(model, x, **kwargs),
                          (arg, "key", "probes", "method"))
    if kind == "ok":
        assert np.all(np.isfinite(prof.norms)) and prof.norms.any()


@SETTINGS
@given(x=st.sampled_from([None, "abc", [1, 2], np.zeros((0, 8)), np.zeros((6, 7)), np.zeros((2, 6, 8)),
                          np.full((6, 8), np.nan), np.full((6, 8), np.inf), np.full((6, 8), 1e30, np.float32),
                          np.full((6, 8), 3e19, np.float32), np.ones((6, 8), np.float32)] + ODD[:6]))
def test_influence_profile_input(model, x):
    from lostmid_jax.analysis import influence_profile

    kind, prof = run_case("analysis.influence_profile (x)", lambda: influence_profile(model, x), ("x", "influence"))
    if kind == "ok":
        assert np.all(np.isfinite(prof.norms)) and prof.norms.any()
