"""Configs as data: a frozen config dataclass to nested plain values (JSON-ready), and back.

Every experiment's config is a keyword-only frozen dataclass. A run stores it
in config.json as nested JSON (tuples become lists, nested configs become
objects); :func:`from_dict` and :func:`tuples_from_lists` turn that back into
the same dataclass, so ``Config(**json.load(f)["config"])`` works too.

    values = to_dict(cfg)                      # nested dicts / lists, JSON-ready (jsonable)
    cfg2 = from_dict(type(cfg), values)        # == cfg
    cfg3 = replace_path(cfg, "base.steps", 5)  # a nested field replaced (validated again)
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing

from ..validation import check_float_like, check_int_like


def jsonable(value):
    """A value JSON can store: dataclasses and dicts as objects, tuples as lists,
    non-finite floats as their string ("inf", "nan"), numpy scalars as Python numbers."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: jsonable(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # numpy scalars
        return jsonable(value.item())
    return str(value)


def field_types(cls) -> dict[str, object]:
    """{field name: resolved annotation} of a dataclass (string annotations evaluated)."""
    return typing.get_type_hints(cls)


def nested_class(annotation):
    """The dataclass inside ``annotation`` (``C`` or ``C | None``), else None."""
    if dataclasses.is_dataclass(annotation):
        return annotation
    for arg in typing.get_args(annotation):
        if dataclasses.is_dataclass(arg):
            return arg
    return None


def is_sequence_type(annotation) -> bool:
    """True for ``tuple[...]`` (possibly inside a union with None or a scalar)."""
    if typing.get_origin(annotation) is tuple or annotation is tuple:
        return True
    return any(is_sequence_type(arg) for arg in typing.get_args(annotation) if arg is not type(None))


def tuples_from_lists(obj) -> None:
    """In a frozen dataclass's __post_init__: store nested dicts given for dataclass fields as that
    dataclass (a partial dict changes only those fields of the field's default), and sequences given for ``tuple[X, ...]`` fields as tuples of X (NumPy scalars converted),
    with a ValueError naming the field for anything else (a string, a number, None where not allowed,
    an element of the wrong type)."""
    types = field_types(type(obj))
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        annotation = types[field.name]
        inner = nested_class(annotation)
        if inner is not None and isinstance(value, dict):  # a partial dict changes the default's fields
            default = field_default(type(obj), field.name)
            if dataclasses.is_dataclass(default):
                value = {f.name: getattr(default, f.name) for f in dataclasses.fields(default)} | value
            object.__setattr__(obj, field.name, from_dict(inner, value))
        elif is_sequence_type(annotation):
            object.__setattr__(obj, field.name, _sequence(field.name, value, annotation))


def _sequence(name: str, value, annotation):
    members = typing.get_args(annotation) if typing.get_origin(annotation) in (typing.Union, types.UnionType) \
        else (annotation,)
    if value is None and type(None) in members:
        return None
    tuple_type = next(m for m in members if typing.get_origin(m) is tuple or m is tuple)
    scalars = [m for m in members if m in (int, float, str)]
    if scalars and not isinstance(value, (list, tuple)):
        return value  # a scalar alternative (e.g. one float for every layer): the config checks it
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be a list of values, got {value!r}")
    element = (typing.get_args(tuple_type) or (object,))[0]
    check = {int: check_int_like, float: check_float_like}.get(element)
    out = []
    for i, item in enumerate(value):
        if check is not None:
            item = check(f"{name}[{i}]", item)
        elif element is str and not isinstance(item, str):
            raise ValueError(f"{name}[{i}] must be a string, got {item!r}")
        out.append(item)
    return tuple(out)


def from_dict(cls, values: dict):
    """``cls(**values)`` with nested dicts turned into their dataclasses; unknown keys are an error, except a
    field renamed or moved into a group since (``cls.RENAMED_FIELDS``, :func:`renamed`), read at its new path.

    A nested dict may give only some fields: the others keep the field's default
    (e.g. {"base": {"steps": 5}} changes only base.steps of the default base)."""
    if not isinstance(values, dict):
        raise ValueError(f"{cls.__name__}: expected a mapping of field values, got {values!r}")
    values = renamed(cls, values)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise ValueError(f"{cls.__name__} has no field(s) {unknown}; fields: {sorted(names)}")
    types = field_types(cls)
    kwargs = {}
    for name, value in values.items():
        inner = nested_class(types[name])
        if inner is not None and isinstance(value, dict):
            default = field_default(cls, name)
            if dataclasses.is_dataclass(default):  # a partial dict changes the default's fields
                value = {f.name: getattr(default, f.name) for f in dataclasses.fields(default)} | value
            value = from_dict(inner, value)
        kwargs[name] = value
    return cls(**kwargs)


def renamed(cls, values: dict) -> dict:
    """``values`` with the fields of earlier config.json files under their names now (``cls.RENAMED_FIELDS``
    {old: new name or dotted path into a nested config, e.g. "weights": "checkpoint.weights"}); a value given
    under the new name too wins (a flag over a file)."""
    table = getattr(cls, "RENAMED_FIELDS", {})
    if not any(old in values for old in table):
        return values
    out = {k: v for k, v in values.items() if k not in table}
    for old, new in table.items():
        if old in values:
            _set_default(out, new.split("."), values[old])
    return out


def _set_default(node: dict, path: list[str], value) -> None:
    """node[a][b]... = value along ``path`` unless already set (a nested config met on the way becomes its dict)."""
    head, rest = path[0], path[1:]
    if not rest:
        node.setdefault(head, value)
        return
    inner = node.get(head)
    if dataclasses.is_dataclass(inner) and not isinstance(inner, type):
        inner = {f.name: getattr(inner, f.name) for f in dataclasses.fields(inner)}
    node[head] = inner = dict(inner) if isinstance(inner, dict) else {}
    _set_default(inner, rest, value)


def field_default(cls, name: str):
    """The default value of field ``name`` of dataclass ``cls`` (dataclasses.MISSING if none)."""
    field = next(f for f in dataclasses.fields(cls) if f.name == name)
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def unchecked(cls, values: dict):
    """``cls`` with ``values`` set and no __post_init__ (lists stored as tuples, nested configs built):
    a stored config that no longer validates, kept as it was."""
    types = field_types(cls)
    values = renamed(cls, values)
    obj = object.__new__(cls)
    for field in dataclasses.fields(cls):
        value = values[field.name] if field.name in values else field_default(cls, field.name)
        if value is dataclasses.MISSING:
            value = None
        inner = nested_class(types[field.name])
        if inner is not None and isinstance(value, dict):
            value = unchecked(inner, value)
        elif isinstance(value, list):
            value = tuple(value)
        object.__setattr__(obj, field.name, value)
    return obj


def to_dict(cfg) -> dict:
    """Nested plain values of a config (dataclasses -> dicts, tuples -> lists)."""
    return jsonable(cfg)


def replace_path(cfg, path: str, value):
    """A copy of ``cfg`` with the field at dotted ``path`` (e.g. "base.model.width") replaced."""
    head, _, rest = path.partition(".")
    names = {f.name for f in dataclasses.fields(cfg)}
    if head not in names:
        raise ValueError(f"{type(cfg).__name__} has no field {head!r}; fields: {sorted(names)}")
    if rest:
        inner = getattr(cfg, head)
        if not dataclasses.is_dataclass(inner):
            raise ValueError(f"{head!r} of {type(cfg).__name__} is not a nested config, so {path!r} is not a field")
        value = replace_path(inner, rest, value)
    return dataclasses.replace(cfg, **{head: value})


__all__ = ["field_default", "field_types", "from_dict", "is_sequence_type", "jsonable", "nested_class", "renamed",
           "replace_path", "to_dict", "tuples_from_lists", "unchecked"]
