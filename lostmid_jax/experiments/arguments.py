"""Command-line flags generated from an experiment's config dataclass.

One flag per field, named by its dotted path in the nesting with dashes for
underscores (``power_b`` -> ``--power-b``, ``base.model.rope_scaling.kind`` ->
``--base.model.rope-scaling.kind``), so a field added anywhere never renames
another's flag. Short names come only from an experiment's explicit tables:
``CLI_ALIASES`` ({short name: path}, listed in --help) and ``CLI_LEGACY``
(spellings of earlier releases, accepted but not listed). A name that two
fields, or an alias and a field, would share is refused when the flags are
built. The value syntax follows the field's type:

    int, float, str        --length 256        --band 0.1      --method exact
    X | None               --power-b none      (the word "none" is None)
    bool                   --split / --no-split
    tuple[int, ...]        --depths 1-8,16,32  (ranges allowed)
    tuple[float, ...]      --alphas 0.25,0.5,1
    tuple[str, ...]        --priors causal,window:64   ('' is the empty tuple)

Help shows each field's docstring line and its default. A flag that is not
given leaves the field alone, so the layers compose:
defaults < ``--config FILE`` < ``--smoke`` sizes < explicit flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import types
import typing

from ..runs.config import field_default, field_types, nested_class

_NONE_WORDS = ("none", "null")
MAX_RANGE = 100_000  # values one 'a-b' range may expand to


@dataclasses.dataclass(frozen=True)
class Flag:
    """One generated flag: its dotted field path, option strings and value parser."""

    path: str
    options: tuple[str, ...]  # listed in --help: the dotted flag, then its aliases
    parse: typing.Callable[[str], object] | None  # None: a bool flag
    annotation: object
    legacy: tuple[str, ...] = ()  # accepted, not listed: spellings of earlier releases


def field_docs(cls) -> dict[str, str]:
    """{field: its entry} from the "Attributes:" section of ``cls``'s docstring; an entry may name a field of a
    nested config by its dotted path ("influence.length: ...")."""
    doc = inspect.getdoc(cls) or ""
    docs, current, inside = {}, None, False
    for line in doc.splitlines():
        if line.strip() == "Attributes:":
            inside = True
            continue
        if not inside:
            continue
        match = re.match(r"^  ([\w.]+(?:, [\w.]+)*): (.*)$", line)
        if match:
            current = match.group(1).split(", ")
            for name in current:
                docs[name] = match.group(2).strip()
        elif line.startswith("    ") and current:
            for name in current:
                docs[name] += " " + line.strip()
        elif line.strip() and not line.startswith(" "):
            break
    return {k: v.replace("%", "%%") for k, v in docs.items()}


def int_list(text: str) -> tuple[int, ...]:
    """'1-4,8,16' -> (1, 2, 3, 4, 8, 16); '' -> (). A range expands to at most MAX_RANGE values."""
    values: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        match = re.fullmatch(r"(-?\d+)-(-?\d+)", part)
        try:
            bounds = (int(match.group(1)), int(match.group(2))) if match else None
            single = None if match else int(part)
        except ValueError:
            raise ValueError(f"expected integers or ranges like 1-64, got {part!r}") from None
        if bounds is None:
            values.append(single)
        elif bounds[1] - bounds[0] >= MAX_RANGE:
            raise ValueError(f"the range {part!r} has {bounds[1] - bounds[0] + 1} values; at most {MAX_RANGE} are taken")
        else:
            values.extend(range(bounds[0], bounds[1] + 1))
    return tuple(values)


def float_list(text: str) -> tuple[float, ...]:
    """'0.1, 0.5,1' -> (0.1, 0.5, 1.0); '' -> ()."""
    try:
        return tuple(float(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise ValueError(f"expected comma-separated numbers, got {text!r}") from None


def str_list(text: str) -> tuple[str, ...]:
    """'a, b,c' -> ('a', 'b', 'c'); '' -> ()."""
    return tuple(p.strip() for p in text.split(",") if p.strip())


def _members(annotation) -> tuple:
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return typing.get_args(annotation)
    return (annotation,)


def value_parser(annotation) -> typing.Callable[[str], object]:
    """text -> value for a field of type ``annotation`` (ValueError on bad text)."""
    members = [m for m in _members(annotation) if m is not type(None)]
    optional = len(members) < len(_members(annotation))
    scalar = next((m for m in members if m in (int, float, str)), None)
    sequence = next((m for m in members if typing.get_origin(m) is tuple or m is tuple), None)
    element = (typing.get_args(sequence) or (str,))[0] if sequence is not None else None
    seq_parse = {int: int_list, float: float_list}.get(element, str_list)

    def parse(text: str):
        if optional and text.strip().lower() in _NONE_WORDS:
            return None
        if sequence is not None and (scalar is None or "," in text):
            values = seq_parse(text)
            return values if scalar is None or len(values) != 1 else values[0]
        if scalar is int:
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"expected an integer, got {text!r}") from None
        if scalar is float:
            try:
                return float(text)
            except ValueError:
                raise ValueError(f"expected a number, got {text!r}") from None
        return text

    return parse


def _is_bool(annotation) -> bool:
    members = [m for m in _members(annotation) if m is not type(None)]
    return members == [bool]


def flag_name(path: str) -> str:
    """The flag of dotted field ``path``: 'base.model.rope_scaling.kind' -> '--base.model.rope-scaling.kind'."""
    return "--" + path.replace("_", "-")


def _leaves(cls, hidden) -> list[tuple[str, object]]:
    """[(dotted path, annotation)] of the non-config fields of ``cls``, nested configs walked, ``hidden`` left out."""
    leaves = []

    def walk(klass, prefix):
        hints = field_types(klass)
        for field in dataclasses.fields(klass):
            path = prefix + field.name
            inner = nested_class(hints[field.name])
            if inner is not None:
                walk(inner, path + ".")
            elif path not in hidden:
                leaves.append((path, hints[field.name]))

    walk(cls, "")
    return leaves


def flags(cls, *, aliases: dict[str, str] | None = None, legacy: dict[str, str] | None = None,
          hidden: frozenset[str] = frozenset(), reserved: frozenset[str] = frozenset()) -> list[Flag]:
    """The flags of config class ``cls`` (nested configs flattened into dotted paths).

    ``aliases`` / ``legacy``: {short name: dotted path} (listed / accepted only); ``reserved``: option
    strings taken by the command's other arguments (``--out``). ValueError when one option string would
    name two fields, or an alias names a path that is no flag."""
    by_path = {path: Flag(path, (flag_name(path),), None if _is_bool(annotation) else value_parser(annotation),
                          annotation) for path, annotation in _leaves(cls, hidden)}
    owner = {option: "the command's own argument" for option in reserved}

    def claim(option: str, who: str):
        if option in owner:
            raise ValueError(f"flag {option} of {cls.__qualname__} would name both {owner[option]} and {who}")
        owner[option] = who

    for path in by_path:
        claim(flag_name(path), f"field {path}")
    for table, slot in ((aliases, "options"), (legacy, "legacy")):
        for name, path in (table or {}).items():
            if path not in by_path:
                raise ValueError(f"flag alias --{name} of {cls.__qualname__} names {path!r}, which is no flag; "
                                 f"fields: {sorted(by_path)}")
            option = "--" + name.replace("_", "-")
            claim(option, f"field {path} (alias)")
            flag = by_path[path]
            by_path[path] = dataclasses.replace(flag, **{slot: getattr(flag, slot) + (option,)})
    for flag in by_path.values():  # a bool flag also takes --no-<name>
        for option in flag.options + flag.legacy if flag.parse is None else ():
            claim("--no-" + option[2:], f"field {flag.path} (negated)")
    return list(by_path.values())


def _default_of(cls, path: str):
    """The default at dotted ``path``: nested configs' defaults are read from the default instance, or, for a
    nested config without one (a required group), from its class's field defaults."""
    head, _, rest = path.partition(".")
    value = field_default(cls, head)
    if rest and value is dataclasses.MISSING:
        inner = nested_class(field_types(cls)[head])
        return _default_of(inner, rest) if inner is not None else value
    for name in rest.split(".") if rest else ():
        if not dataclasses.is_dataclass(value):
            return dataclasses.MISSING
        value = getattr(value, name)
    return value


def _doc_of(cls, path: str) -> str:
    """The help of dotted ``path``: an entry of that dotted name in ``cls``'s own docstring (an experiment
    saying what a group's field means for it: "influence.length: ..."), else the nested class's entry."""
    head, _, rest = path.partition(".")
    own = field_docs(cls).get(path) if rest else None
    if own:
        return own
    if rest:
        inner = nested_class(field_types(cls)[head])
        return _doc_of(inner, rest)
    return field_docs(cls).get(head, "")


def _show(value) -> str:
    if value is dataclasses.MISSING:
        return "required"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value) or "''"
    return "none" if value is None else str(value)


def add_flags(parser: argparse.ArgumentParser, cls, *, aliases=None, legacy=None, hidden=frozenset(),
              reserved=frozenset(), smoke: dict | None = None, choices: dict | None = None) -> list[Flag]:
    """Add one flag per field of ``cls`` to ``parser`` (dest = dotted path; absent flags are not set).

    ``choices``: {dotted path: the values a field accepts}, listed in its help ("choices: a, b, c");
    ``legacy`` spellings parse into the same field and stay out of the help."""
    taken = {option for action in parser._actions for option in action.option_strings}
    out = flags(cls, aliases=aliases, legacy=legacy, hidden=hidden, reserved=frozenset(reserved) | taken)
    group = parser.add_argument_group("experiment configuration (fields of "
                                      f"{cls.__module__}.{cls.__qualname__})")
    for flag in out:
        default = _default_of(cls, flag.path)
        doc = _doc_of(cls, flag.path)
        help_text = doc
        if choices and flag.path in choices:
            help_text += f" Choices: {', '.join(map(str, choices[flag.path]))}."
        help_text += f" (default: {_show(default)}"
        if smoke and flag.path in smoke:
            help_text += f"; --smoke: {_show(smoke[flag.path])}"
        help_text += ")"
        for options, text in ((flag.options, help_text), (flag.legacy, argparse.SUPPRESS)):
            if not options:
                continue
            if flag.parse is None:
                group.add_argument(*options, dest=flag.path, action=argparse.BooleanOptionalAction,
                                   default=argparse.SUPPRESS, help=text)
            else:
                group.add_argument(*options, dest=flag.path, type=str, default=argparse.SUPPRESS,
                                   metavar=flag.path.rsplit(".", 1)[-1].upper(), help=text)
    return out


def given_values(args: argparse.Namespace, flag_list: list[Flag]) -> dict[str, object]:
    """{dotted path: parsed value} of the flags given on the command line (ValueError naming the flag)."""
    values = {}
    for flag in flag_list:
        if not hasattr(args, flag.path):
            continue
        raw = getattr(args, flag.path)
        if flag.parse is None:
            values[flag.path] = raw
            continue
        try:
            values[flag.path] = flag.parse(raw)
        except ValueError as err:
            raise ValueError(f"{flag.options[0]}: {err}") from None
    return values


def parse_assignment(text: str, flag_list: list[Flag]) -> tuple[str, object]:
    """'key=value' (key a dotted field path or a flag name) -> (path, parsed value), for ``--set``."""
    key, sep, raw = text.partition("=")
    if not sep:
        raise ValueError(f"--set expects key=value, got {text!r}")
    key = key.strip().lstrip("-")
    for flag in flag_list:
        names = {flag.path} | {o.lstrip("-").replace("-", "_") for o in flag.options + flag.legacy}
        if key in names or key.replace("-", "_") in names:
            if flag.parse is None:
                word = raw.strip().lower()
                if word not in ("true", "false"):
                    raise ValueError(f"--set {key}: expected true or false, got {raw!r}")
                return flag.path, word == "true"
            try:
                return flag.path, flag.parse(raw)
            except ValueError as err:
                raise ValueError(f"--set {key}: {err}") from None
    raise ValueError(f"--set: no field {key!r}; fields: {sorted(f.path for f in flag_list)}")


def nest(values: dict[str, object]) -> dict:
    """{'a.b': 1, 'c': 2} -> {'a': {'b': 1}, 'c': 2}."""
    out: dict = {}
    for path, value in values.items():
        node = out
        *heads, leaf = path.split(".")
        for head in heads:
            node = node.setdefault(head, {})
        node[leaf] = value
    return out


def merge(base: dict, update: dict) -> dict:
    """Deep merge of nested dicts: ``update`` wins; a config object in ``base`` that ``update``
    changes in part becomes the dict of its fields first (so --smoke's model keeps its other fields)."""
    out = dict(base)
    for key, value in update.items():
        current = out.get(key)
        if isinstance(value, dict) and dataclasses.is_dataclass(current) and not isinstance(current, type):
            current = {f.name: getattr(current, f.name) for f in dataclasses.fields(current)}
        out[key] = merge(current, value) if isinstance(value, dict) and isinstance(current, dict) else value
    return out
