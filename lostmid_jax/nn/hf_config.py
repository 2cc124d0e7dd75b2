"""Alias for one release: config.json <-> DecoderConfig now lives in lostmid_jax.nn.hf (families.py, files.py)."""

from .hf.families import FAMILIES, config_from_hf, config_to_hf, family_of  # noqa: F401
from .hf.files import INDEX, WEIGHTS, read_config, read_json_object, weights_file  # noqa: F401
