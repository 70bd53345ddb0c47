"""The providers' official request schemas and recorded streams, read where they are kept:
``../shared/wire-schemas`` beside the repository (never copied into it). From a git worktree
one level deeper, the nearest ancestor's ``shared/`` is used.

    validate_openai(body)      CreateChatCompletionRequest (OpenAI's OpenAPI, as JSON Schema)
    validate_anthropic(body)   MessageCreateParams (the Anthropic SDK's request types)
    recorded_streams()         the manifest's streams: bytes as sent on the wire, and what
                               they mean (``expect``)
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[2]


def wire_schemas_dir() -> Path:
    for base in (REPO, *REPO.parents):
        candidate = base / ".." / "shared" / "wire-schemas"
        if candidate.is_dir():
            return candidate.resolve()
    raise FileNotFoundError(
        f"no shared/wire-schemas beside {REPO} or any parent: the schemas live in ../shared"
    )


@functools.cache
def _validator(relative: str) -> Draft202012Validator:
    schema = json.loads((wire_schemas_dir() / relative).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _validate(relative: str, body: dict[str, Any]) -> None:
    errors = sorted(_validator(relative).iter_errors(body), key=lambda e: list(e.path))
    if errors:
        where = "; ".join(f"{'/'.join(map(str, e.path)) or '<body>'}: {e.message}" for e in errors)
        raise AssertionError(f"{relative} rejects the body: {where[:2000]}")


def validate_openai(body: dict[str, Any]) -> None:
    _validate("openai/CreateChatCompletionRequest.schema.json", body)


def validate_anthropic(body: dict[str, Any]) -> None:
    _validate("anthropic/MessageCreateParams.schema.json", body)


@dataclass(frozen=True)
class RecordedStream:
    wire: str
    name: str
    data: bytes  # the file's bytes plus the manifest's wire_suffix: what a server sends
    expect: dict[str, Any]


def recorded_streams() -> list[RecordedStream]:
    root = wire_schemas_dir() / "streams"
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    streams = []
    for wire in ("openai", "anthropic"):
        for name, entry in manifest[wire].items():
            data = (root / entry["file"]).read_bytes() + entry["wire_suffix"].encode()
            streams.append(RecordedStream(wire, name, data, entry["expect"]))
    return streams


__all__ = [
    "RecordedStream",
    "recorded_streams",
    "validate_anthropic",
    "validate_openai",
    "wire_schemas_dir",
]
