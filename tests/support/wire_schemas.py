"""The providers' official request schemas and recorded streams, read where they are kept:
``../shared/wire-schemas`` beside the repository (never copied into it). From a git worktree
one level deeper, the nearest ancestor's ``shared/`` is used. A clone without ``../shared``
(anywhere, under ``/tmp`` too: SPEC §1) still collects and passes: every test that needs the
reference files skips, saying so (``SHARED_MISSING``) — a module that reads them at import is
skipped whole, with the same reason.

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

import pytest
from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[2]
SHARED_MISSING = "skipped: the reference files (../shared/wire-schemas, ../shared/SPEC.md) are not"


def find_wire_schemas() -> Path | None:
    """``shared/wire-schemas`` beside the repository or any parent, or None."""
    for base in (REPO, *REPO.parents):
        candidate = base / ".." / "shared" / "wire-schemas"
        if candidate.is_dir():
            return candidate.resolve()
    return None


def wire_schemas_dir() -> Path:
    """The reference files' folder; when absent, the calling test (or module) is skipped,
    saying so."""
    found = find_wire_schemas()
    if found is None:
        pytest.skip(
            f"{SHARED_MISSING} beside {REPO} or any parent (SPEC §1: they are not copied "
            "into the repository)",
            allow_module_level=True,
        )
    return found


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
    "SHARED_MISSING",
    "RecordedStream",
    "find_wire_schemas",
    "recorded_streams",
    "validate_anthropic",
    "validate_openai",
    "wire_schemas_dir",
]
