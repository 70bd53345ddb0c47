"""``camel_json``: the one converter from the harness's snake_case dataclasses to the
camelCase JSON objects of the wire (§8.1)."""

from __future__ import annotations

from dataclasses import fields
from enum import Enum
from typing import Any


def camel_json(value: Any, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """A dataclass as JSON, field by field in order: camelCase names, enums by value,
    tuples as arrays."""
    out: dict[str, Any] = {}
    for f in fields(value):
        if f.name in leave_out:
            continue
        item = getattr(value, f.name)
        if isinstance(item, Enum):
            item = item.value
        elif isinstance(item, tuple):
            item = list(item)
        head, *rest = f.name.split("_")
        out[head + "".join(word.title() for word in rest)] = item
    return out


__all__ = ["camel_json"]
