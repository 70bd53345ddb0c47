"""The §8.1 JSON shape of a memory note, as the store's ``to_json`` and ``harness memory
--json`` must both give it: the fields, in order."""

from __future__ import annotations

NOTE_FIELDS = [
    "key",
    "value",
    "kind",
    "pinned",
    "scope",
    "runId",
    "step",
    "createdAt",
    "updatedAt",
    "recalls",
    "author",
    "authorPath",
]
