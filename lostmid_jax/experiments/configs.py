"""Alias kept for one release: configs as data (from_dict, to_dict, ...) live in :mod:`lostmid_jax.runs.config`."""

from ..runs.config import (field_default, field_types, from_dict, is_sequence_type, jsonable, nested_class,
                           replace_path, to_dict, tuples_from_lists)

__all__ = ["field_default", "field_types", "from_dict", "is_sequence_type", "jsonable", "nested_class", "replace_path",
           "to_dict", "tuples_from_lists"]
