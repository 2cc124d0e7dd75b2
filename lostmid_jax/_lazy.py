"""Lazy package attributes (PEP 562): a package names what it exports, and each name's
submodule is imported on first use, so importing the package (say, for a config class)
loads no jax until a model or an engine is asked for."""

from __future__ import annotations

import importlib


def lazy_exports(package: str, exports: dict[str, str], submodules: tuple[str, ...] = ()):
    """(__getattr__, __dir__) for package ``package``: ``exports`` maps a name to the relative
    module that defines it; ``submodules`` are exported as modules; an alias module kept for one release
    (:data:`lostmid_jax._moved.MODULES`) is imported on use too (it warns), and left out of ``dir()``."""

    def __getattr__(name: str):
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        if name not in exports and f"{package}.{name}" in _moved_modules():  # an old submodule: it warns
            return importlib.import_module(f"{package}.{name}")
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name], package), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(exports) | set(submodules))

    return __getattr__, __dir__


def _moved_modules():
    from ._moved import MODULES

    return MODULES
