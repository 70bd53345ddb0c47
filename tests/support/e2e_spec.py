"""The shapes SPEC.md itself lists, read from it (never a copy that could drift): the fields
of a server notification, as §7 writes them, ``harness/budget`` after every step
``{runId, step, …}``."""

from __future__ import annotations

import functools
import re

from tests.support.wire_schemas import wire_schemas_dir


@functools.cache
def spec_text() -> str:
    return (wire_schemas_dir().parent / "SPEC.md").read_text(encoding="utf-8")


def notification_fields(method: str) -> frozenset[str]:
    """The fields SPEC.md lists for the notification ``method``: the first ``{…}`` that
    follows a mention of it closely (``harness/budget`` after every step ``{runId, …}``)."""
    for mention in re.finditer(rf"`{re.escape(method)}\b", spec_text()):
        near = re.match(r"[^{}]{0,40}\{([^}]*)\}", spec_text()[mention.end() :])
        if near is not None:
            return frozenset(re.findall(r"\w+", near.group(1)))
    raise LookupError(f"SPEC.md lists no fields for {method}")
