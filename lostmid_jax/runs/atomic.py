"""The one atomic writer of the package: a file is written under a temporary name beside it, then renamed.

A reader (or a kill) sees the old file or the new one, never half of one.

    write_atomic(path, "text")                          # .path.tmp, then renamed
    write_atomic(path, text, tmp="MANIFEST.tmp", durable=True)   # fsynced file and directory
    with replacing(path, tmp=".fig.png.tmp") as tmp:    # a library writes the file itself
        fig.savefig(tmp, format="png")
"""

from __future__ import annotations

import contextlib
import os
import pathlib


def temporary_path(path: pathlib.Path, tmp: str | None = None) -> pathlib.Path:
    """The temporary name beside ``path``: ``tmp`` if given, else ``.<name>.tmp``."""
    path = pathlib.Path(path)
    return path.with_name(tmp if tmp is not None else f".{path.name}.tmp")


def _fsync_directory(directory: pathlib.Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename itself reaches the disk
    finally:
        os.close(fd)


@contextlib.contextmanager
def replacing(path, *, tmp: str | None = None, durable: bool = False):
    """Yield the temporary path beside ``path``; once the block finishes, rename it onto ``path``.

    Args:
      path: the final file.
      tmp: the temporary file's name (default ``.<name>.tmp``), in the same directory.
      durable: fsync the written file before the rename and the directory after it.
    """
    path = pathlib.Path(path)
    temporary = temporary_path(path, tmp)
    yield temporary
    if durable:
        fd = os.open(temporary, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    os.replace(temporary, path)
    if durable:
        _fsync_directory(path.parent)


def write_atomic(path, data: str | bytes, *, tmp: str | None = None, durable: bool = False) -> pathlib.Path:
    """Write ``data`` (text as given, no newline translation: CSV keeps its \\r\\n; or bytes) to a
    temporary name beside ``path`` (:func:`replacing`), then rename it into place; returns ``path``."""
    path = pathlib.Path(path)
    with replacing(path, tmp=tmp, durable=durable) as temporary:
        if isinstance(data, bytes):
            temporary.write_bytes(data)
        else:
            with open(temporary, "w", newline="") as f:
                f.write(data)
    return path


__all__ = ["replacing", "temporary_path", "write_atomic"]
