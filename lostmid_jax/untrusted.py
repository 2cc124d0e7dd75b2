"""Files that come from outside (a checkpoint's config.json, index and tokenizer files, a run directory
someone sent, ``--config``, JSON-lines facts): the one reader of their JSON and text, and the one check
of their symlinks.

    read_json(path, name="--config")             # the parsed value
    read_json_object(path, name="--config")      # a dict (ValueError when the file holds a list, a number, ...)
    text, value = read_json_text(path, name, kind="an object")   # both, for a library that parses the text again
    read_text_file(path, name="facts")           # the UTF-8 text of a regular file
    parse_json(text, where="facts.jsonl line 3") # one JSON text (a line of a JSON-lines file)
    typed(record, "rms_norm_eps", "a number", where="config.json")   # the value, refused when null or mistyped
    check_inside(root, path, what="run directory")   # a regular file whose links stay inside ``root``

Each refusal is one ValueError line naming ``name`` (the argument) and the file: a path that is not a
regular file (a FIFO or a device could block or never end, a directory cannot be read; the file is
opened without blocking and checked on its descriptor), more than ``max_bytes`` (default MAX_BYTES),
bytes that are not UTF-8 (the byte offset named), text that is not JSON (line and column; NaN and
Infinity are not JSON either), nesting deeper than MAX_DEPTH (Python's parser would hit its recursion
limit at about 1000). The readers follow a symlink; readers of an untrusted directory pass each entry
through :func:`check_inside` first (:mod:`lostmid_jax.runs.inside`, :func:`lostmid_jax.nn.hf.files.checkpoint_file`).
"""

from __future__ import annotations

import json
import os
import pathlib
import stat

MAX_BYTES = 256 * 2 ** 20
"""Largest file read (256 MiB): a real tokenizer.json is up to ~35 MB, a config.json a few kB."""
MAX_DEPTH = 64
"""Deepest nesting of objects and arrays accepted (real configs and tokenizers nest < 10 deep)."""

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _label(name: str | None, path) -> str:
    return f"{name}: {path}" if name else str(path)


def read_bytes_file(path, name: str | None = None, *, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (at most ``max_bytes``); ValueError naming it otherwise."""
    label = _label(name, path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting for a writer
    except FileNotFoundError:
        raise ValueError(f"{label} does not exist") from None
    except OSError as err:
        raise ValueError(f"{label} cannot be read ({err.strerror or err})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
        raise ValueError(f"{label} is {kind}, not a regular file; give the path of a file")
    with os.fdopen(fd, "rb") as file:
        try:
            data = file.read(max_bytes + 1)
        except OSError as err:
            raise ValueError(f"{label} cannot be read ({err.strerror or err})") from None
    if len(data) > max_bytes:
        raise ValueError(f"{label} is larger than {max_bytes} bytes, more than such a file ever holds")
    return data


def read_text_file(path, name: str | None = None, *, max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of the regular file ``path`` (:func:`read_bytes_file`); ValueError naming the file and
    the first byte that is not UTF-8."""
    data = read_bytes_file(path, name, max_bytes=max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{_label(name, path)} is not UTF-8 text (byte {err.start}: {err.reason}); save it "
                         "as UTF-8") from None


def _refuse_constant(word: str):
    raise ValueError(f"{word} is not a JSON value (write null, or a finite number)")


def _depth(value) -> int:
    """The nesting depth of a parsed JSON value (a scalar: 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def parse_json(text: str, where: str, *, allow_nan: bool = False):
    """The JSON value of ``text``; ValueError "<where> is not valid JSON (...)" or "<where> nests ... deeper
    than MAX_DEPTH levels". ``allow_nan``: NaN, Infinity and -Infinity read as floats (files Python's json
    wrote with its default allow_nan=True), else refused."""
    too_deep = f"{where} nests objects or arrays more than {MAX_DEPTH} levels deep; no such file does"
    try:
        value = json.loads(text, parse_constant=None if allow_nan else _refuse_constant)
    except RecursionError:
        raise ValueError(too_deep) from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{where} is not valid JSON ({err.msg} at line {err.lineno} column {err.colno})") from None
    except ValueError as err:  # NaN / Infinity, an integer of more than 4300 digits
        raise ValueError(f"{where} is not valid JSON ({err})") from None
    if _depth(value) > MAX_DEPTH:
        raise ValueError(too_deep)
    return value


def read_json(path, name: str | None = None, *, max_bytes: int = MAX_BYTES):
    """The JSON value in the regular file ``path`` (module docstring: every refusal one line naming it)."""
    return read_json_text(path, name, max_bytes=max_bytes)[1]


def read_json_text(path, name: str | None = None, *, max_bytes: int = MAX_BYTES, kind: str | None = None):
    """(text, JSON value) of the regular file ``path``; ``kind`` "an object" (or another key of KINDS): the
    value must be of it (ValueError naming the file and what it holds instead)."""
    text = read_text_file(path, name, max_bytes=max_bytes)
    if not text.strip():
        raise ValueError(f"{_label(name, path)} is empty, not a JSON document")
    value = parse_json(text, _label(name, path))
    if kind is not None and (isinstance(value, bool) or not isinstance(value, KINDS[kind])):
        raise ValueError(f"{_label(name, path)} must hold {kind.replace('an object', 'a JSON object {...}')}, "
                         f"got a {_json_kind(value)}")
    return text, value


def read_json_object(path, name: str | None = None, *, max_bytes: int = MAX_BYTES) -> dict:
    """:func:`read_json`, which must be an object (ValueError naming the file and what it holds instead)."""
    return read_json_text(path, name, max_bytes=max_bytes, kind="an object")[1]


def _json_kind(value) -> str:
    kinds = {dict: "object", list: "list", str: "string", bool: "true/false", int: "number", float: "number"}
    return "null" if value is None else kinds.get(type(value), type(value).__name__)


KINDS = {"a number": (int, float), "an integer": (int,), "a string": (str,), "true or false": (bool,),
         "an object": (dict,), "a list": (list,)}
"""The kinds :func:`typed` checks, by the words its messages use."""


def typed(record: dict, key: str, kind: str, where: str, *, default=None, nullable: bool = False):
    """``record[key]`` if it is of ``kind`` (a key of KINDS; bools are not numbers), ``default`` when the key
    is missing (or null, with ``nullable``).

    Raises:
      ValueError: "<where> <key> must be <kind>, got null" (or the value and its kind), naming the key.
    """
    if key not in record:
        return default
    value = record[key]
    if value is None and nullable:
        return default
    types = KINDS[kind]
    if value is None or (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        shown = "null" if value is None else f"{json.dumps(value)[:60]} (a {_json_kind(value)})"
        raise ValueError(f"{where} {key} must be {kind}, got {shown}")
    return value


def check_inside(root, path, what: str) -> pathlib.Path:
    """``path`` (an entry of the folder ``root``, the ``what`` of the messages) if it is a regular file there,
    or a symlink to a regular file inside ``root`` (the name is returned, the target checked).

    Raises:
      ValueError: naming the entry: a symlink that leaves ``root`` (or dangles or loops), or something
        other than a regular file.
    """
    root, path = pathlib.Path(root).resolve(), pathlib.Path(path)
    try:
        target = path.resolve(strict=True)  # every link on the way, the folders' included
    except (OSError, RuntimeError):
        link = f" ({os.readlink(path)!r})" if path.is_symlink() else ""
        raise ValueError(f"{path} is a symlink that leads nowhere{link}; a {what} is read from its own files "
                         "only") from None
    if target != root and root not in target.parents:
        raise ValueError(f"{path} is a symlink to {target}, outside the {what} {root}; a {what} is read from "
                         "its own files only (replace the link by the file)")
    if not stat.S_ISREG(target.stat().st_mode):
        raise ValueError(f"{path} is not a regular file; a {what} is read from its own regular files only")
    return path


__all__ = ["KINDS", "MAX_BYTES", "MAX_DEPTH", "check_inside", "parse_json", "read_bytes_file", "read_json",
           "read_json_object", "read_json_text", "read_text_file", "typed"]
