"""train/config.py: the renamed intervention (middle_loss -> middle_weighted_loss)."""

import json

import pytest

from lostmid_jax.train.config import INTERVENTIONS, RENAMED_INTERVENTIONS, TrainConfig, intervention_dirs


def test_old_intervention_name_is_read_with_a_deprecation_warning():
    assert "middle_loss" not in INTERVENTIONS and RENAMED_INTERVENTIONS["middle_loss"] in INTERVENTIONS
    with pytest.warns(DeprecationWarning, match="intervention: 'middle_loss' is now called 'middle_weighted_loss'"):
        cfg = TrainConfig(intervention="middle_loss")
    assert cfg.intervention == "middle_weighted_loss"
    stored = json.loads(json.dumps({"intervention": "middle_loss", "steps": 3}))  # an old train_config.json
    with pytest.warns(DeprecationWarning):
        assert TrainConfig(**stored) == TrainConfig(intervention="middle_weighted_loss", steps=3)


def test_new_name_warns_nothing_and_unknown_names_are_refused(recwarn):
    assert TrainConfig(intervention="middle_weighted_loss").intervention == "middle_weighted_loss"
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]
    with pytest.raises(ValueError, match="intervention"):
        TrainConfig(intervention="middle")


def test_old_directory_names_are_searched_after_the_new_one():
    assert intervention_dirs("middle_weighted_loss") == ("middle_weighted_loss", "middle_loss")
    assert intervention_dirs("curriculum") == ("curriculum",)
