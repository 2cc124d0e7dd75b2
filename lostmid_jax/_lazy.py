"""Lazy package attributes (PEP 562): a package names what it exports, and each name's
submodule is imported on first use, so importing the package (say, for a config class)
loads no jax until a model or an engine is asked for."""

from __future__ import annotations

import importlib


def lazy_exports(package: str, exports: dict[str, str], submodules: tuple[str, ...] = ()):
    """(__getattr__, __dir__) for package ``package``: ``exports`` maps a name to the relative
    module that defines it; ``submodules`` are exported as modules."""

    def __getattr__(name: str):
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name], package), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(exports) | set(submodules))

    return __getattr__, __dir__
