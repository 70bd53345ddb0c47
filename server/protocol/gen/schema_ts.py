"""TypeScript interfaces of the commands' params models, from their JSON Schema (pydantic,
camelCase aliases): each model and every model it nests becomes one ``interface``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

Schema = Mapping[str, Any]
SCALARS = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}
SCALARS |= {"null": "null"}


def ts_type(schema: Schema) -> str:
    """The TypeScript type of one JSON Schema."""
    if "$ref" in schema:
        return str(schema["$ref"]).rpartition("/")[2]
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " | ".join(dict.fromkeys(ts_type(s) for s in schema["anyOf"]))
    kind = schema.get("type")
    if kind == "array":
        item = ts_type(schema.get("items", {}))
        return f"({item})[]" if " " in item else f"{item}[]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        return f"Record<string, {ts_type(extra) if isinstance(extra, dict) else 'unknown'}>"
    if isinstance(kind, str) and kind in SCALARS:
        return SCALARS[kind]
    return "unknown"


def interface(name: str, schema: Schema) -> str:
    required = set(schema.get("required", ()))
    lines = [f"export interface {name} {{"]
    for field, sub in schema.get("properties", {}).items():
        optional = "" if field in required else "?"
        lines.append(f"  {field}{optional}: {ts_type(sub)};")
    return "\n".join([*lines, "}"])


def interfaces(models: Sequence[type[BaseModel]]) -> str:
    """Every model of ``models`` and those they nest, each once, by name."""
    found: dict[str, Schema] = {}
    for model in models:
        schema = model.model_json_schema(by_alias=True)
        for name, sub in schema.get("$defs", {}).items():
            found.setdefault(name, sub)
        found.setdefault(model.__name__, schema)
    return "\n\n".join(interface(name, found[name]) for name in sorted(found))


__all__ = ["interfaces", "ts_type"]
