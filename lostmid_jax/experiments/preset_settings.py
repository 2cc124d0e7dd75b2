"""The model presets an experiment initializes, and their dtype: one config group (step0, step0-study).

An experiment nests :class:`PresetSettings` as its field ``models``, so its flags are
``--models.presets`` and ``--models.param-dtype`` (the short ``--preset`` and ``--dtype`` are aliases
in its CLI_ALIASES, the earlier ``--presets`` and ``--param-dtype`` legacy spellings). The group checks
that every name is a preset of :data:`lostmid_jax.nn.PRESETS`; an experiment narrows the choice.
"""

from __future__ import annotations

import dataclasses

from ..runs.config import tuples_from_lists
from ..validation import check_choice

FIELD = "models"  # the field name every experiment nests the group under (named in error messages)
DTYPES = ("float16", "bfloat16", "float32", "float64")
# config.json keys of runs written before the group existed -> their dotted path (runs.config.from_dict)
OLD_KEYS = {"presets": f"{FIELD}.presets", "param_dtype": f"{FIELD}.param_dtype"}
# the flags of earlier releases, accepted and not listed (an experiment's CLI_LEGACY)
LEGACY_FLAGS = dict(OLD_KEYS)
# the short flags listed in --help (an experiment's CLI_ALIASES)
ALIASES = {"preset": f"{FIELD}.presets", "dtype": f"{FIELD}.param_dtype"}


@dataclasses.dataclass(frozen=True, kw_only=True)
class PresetSettings:
    """Which nn presets are initialized, in which dtype; validated at construction.

    Attributes:
      presets: nn preset names, comma-separated (keys of nn.PRESETS).
      param_dtype: parameter and compute dtype name.
    """

    presets: tuple[str, ...] = ("toy-deep", "gpt2-small")
    param_dtype: str = "float32"

    def __post_init__(self):
        from ..nn import PRESETS

        tuples_from_lists(self)
        if not self.presets:
            raise ValueError(f"{FIELD}.presets must not be empty")
        for name in self.presets:
            if name not in PRESETS:
                raise ValueError(f"{FIELD}.presets must be among {tuple(PRESETS)}, got {name!r}")
        check_choice(f"{FIELD}.param_dtype", self.param_dtype, DTYPES)


__all__ = ["ALIASES", "DTYPES", "FIELD", "LEGACY_FLAGS", "OLD_KEYS", "PresetSettings"]
