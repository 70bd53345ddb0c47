"""The harness section of what an editor sends as settings, read before anything heavy is
loaded: where the section is, and a key pasted where a variable name belongs.

The protocol looks at every ``initialize``, ``didChangeConfiguration`` and configuration
answer *before* pygls logs or handles it, so a key pasted into ``provider.apiKeyEnv`` is
registered for redaction before any log line could show it (§6.7).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from harness.redact import register

SECTION = "harness"
MAX_ENV_NAME_CHARS = 64
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def settings_section(raw: object) -> object:
    """The harness settings inside what an editor sent: ``{"harness": {...}}`` or the object."""
    if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
        return raw[SECTION]
    return raw


def is_variable_name(value: str) -> bool:
    """``value`` looks like an environment variable's name (and not like a key)."""
    return len(value) <= MAX_ENV_NAME_CHARS and ENV_NAME.fullmatch(value) is not None


def pasted_key(raw: object) -> str | None:
    """The ``provider.apiKeyEnv`` of raw settings when it is no variable name — most likely
    the key itself, pasted into the wrong box."""
    section = settings_section(raw)
    provider = section.get("provider") if isinstance(section, Mapping) else None
    value = provider.get("apiKeyEnv") if isinstance(provider, Mapping) else None
    if isinstance(value, str) and value.strip() and not is_variable_name(value):
        return value.strip()
    return None


def register_pasted_key(raw: object) -> None:
    """Redact a key pasted into ``provider.apiKeyEnv`` from everything from now on."""
    register(pasted_key(raw))


__all__ = [
    "SECTION",
    "is_variable_name",
    "pasted_key",
    "register_pasted_key",
    "settings_section",
]
