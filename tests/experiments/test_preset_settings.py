"""The model-preset group (experiments.preset_settings): its checks and its flags."""

import pytest

from lostmid_jax.experiments.preset_settings import PresetSettings
from lostmid_jax.experiments.script import build_parser


@pytest.mark.parametrize("kwargs, named", [({"presets": ()}, "models.presets must not be empty"),
                                           ({"presets": ("gpt3",)}, "models.presets must be among"),
                                           ({"param_dtype": "int8"}, "models.param_dtype must be one of")])
def test_the_group_refuses_bad_values_naming_the_dotted_field(kwargs, named):
    with pytest.raises(ValueError, match=named):
        PresetSettings(**kwargs)


def test_lists_become_tuples():
    assert PresetSettings(presets=["toy"]).presets == ("toy",)


@pytest.mark.parametrize("name", ["step0", "step0_study"])
def test_the_short_and_the_earlier_flags_still_set_the_presets(name):
    parser, _ = build_parser(name)
    for argv in (["--preset", "toy"], ["--presets", "toy"], ["--models.presets", "toy"]):
        assert getattr(parser.parse_args(argv), "models.presets") == "toy"
    for argv in (["--dtype", "float64"], ["--param-dtype", "float64"], ["--models.param-dtype", "float64"]):
        assert getattr(parser.parse_args(argv), "models.param_dtype") == "float64"
    text = parser.format_help()
    assert "--preset PRESETS" in text and "--presets" not in text.replace("--models.presets", "")
