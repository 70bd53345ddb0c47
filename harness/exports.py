"""A package's exports loaded on first use (PEP 562), so importing one light submodule
does not import its siblings: ``harness memory list --help`` needs ``harness.memory.notes``,
not the recall machinery beside it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, sources: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name in ``sources`` (submodule → the
    names it gives) is imported from its submodule the first time it is asked for, then
    kept on the package."""
    where = {name: module for module, names in sources.items() for name in names}

    def get(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return get


__all__ = ["lazy_exports"]
