"""``camel_json``: the one converter from the harness's snake_case dataclasses to the
camelCase JSON objects of the wire (§8.1)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from enum import Enum
from typing import Any

_AS = "camel_json"
_FLAT = "camel_json_flat"


def json_as(name: str, convert: Callable[[Any], Any]) -> Mapping[str, Any]:
    """Field metadata (``field(metadata=json_as("scope", scope_name))``): the field goes to
    JSON as ``name``, its value converted."""
    return {_AS: (name, convert)}


def json_flat() -> Mapping[str, Any]:
    """Field metadata (``field(metadata=json_flat())``): the field, itself a dataclass, goes
    to JSON as its own fields, in its place."""
    return {_FLAT: True}


def camel_json(value: Any, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """A dataclass as JSON, field by field in order: camelCase names (or the ``json_as``
    name), enums by value, tuples as arrays, ``json_flat`` fields spread in place
    (``leave_out`` applies to their fields too)."""
    out: dict[str, Any] = {}
    for f in fields(value):
        if f.name in leave_out:
            continue
        item = getattr(value, f.name)
        if f.metadata.get(_FLAT):
            out.update(camel_json(item, leave_out))
            continue
        if _AS in f.metadata:
            name, convert = f.metadata[_AS]
            out[name] = convert(item)
            continue
        if isinstance(item, Enum):
            item = item.value
        elif isinstance(item, tuple):
            item = list(item)
        head, *rest = f.name.split("_")
        out[head + "".join(word.title() for word in rest)] = item
    return out


__all__ = ["camel_json", "json_as", "json_flat"]
