"""How a command fails on the wire: JSON-RPC error codes and the exceptions commands raise.

    CommandError               a command cannot do what was asked; ``code`` goes on the wire
    ├── InvalidParams          -32602: a missing, unknown or ill-typed argument (names it)
    ├── NotFound               -32004: no such run, step or note
    └── Conflict               -32009: a run is already active in that folder, or still active

Harness errors (``ConfigError``, ``StoreError``, ``ContainmentError``) become code -32001 with
their own message, a command-line flag it names said as the setting that does the same
(``--base-url`` → ``the setting provider.baseUrl``). The server never dies of any of them:
``to_jsonrpc`` converts whatever a command raised into the error the client receives, with
structured ``data`` — ``{kind, command, setting?, runId?, field?, …}`` (``server.protocol``'s
``ERRORS``/``ERROR_DATA``) — that clients word it from.
"""

from __future__ import annotations

import re
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from harness.errors import HarnessError, MissingKeyError
from server.protocol.settings import SETTINGS

INVALID_PARAMS = JsonRpcInvalidParams.CODE  # -32602
HARNESS_ERROR = -32001
NOT_FOUND = -32004
CONFLICT = -32009


FLAGS = {s.flag: s.key for s in SETTINGS if s.flag}
_FLAG = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, FLAGS)) + r")(?![\w-])")


class CommandError(Exception):
    """A command failed for a reason the user can act on; the message says which, ``data``
    the same facts as values (``runId=7``, ``setting="provider.baseUrl"``)."""

    code = HARNESS_ERROR
    kind = "harness"

    def __init__(self, message: str, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


class InvalidParams(CommandError):
    code = INVALID_PARAMS
    kind = "invalidParams"


class NotFound(CommandError):
    code = NOT_FOUND
    kind = "notFound"


class Conflict(CommandError):
    code = CONFLICT
    kind = "conflict"


def editor_words(message: str) -> tuple[str, str | None]:
    """A harness message with each command-line flag said as its setting, and the first
    setting named (None when it names none)."""
    named: list[str] = []

    def setting(match: re.Match[str]) -> str:
        named.append(FLAGS[match[1]])
        return f"the setting {FLAGS[match[1]]}"

    return _FLAG.sub(setting, message), (named[0] if named else None)


def to_jsonrpc(command: str, exc: Exception) -> JsonRpcException:
    """The JSON-RPC error for an exception a command raised, with its ``data``."""
    if isinstance(exc, JsonRpcException):
        if exc.data is None:
            exc.data = {"kind": _kind(exc.code), "command": command}
        return exc
    if isinstance(exc, CommandError):
        text, setting = editor_words(exc.message)
        data = {"kind": exc.kind, "command": command, **exc.data}
        if setting is not None:
            data.setdefault("setting", setting)
        return JsonRpcException(f"{command}: {text}", code=exc.code, data=data)
    if isinstance(exc, HarnessError):
        text, setting = editor_words(str(exc))
        data = {"kind": "harness", "command": command}
        if setting is not None:
            data["setting"] = setting
        if isinstance(exc, MissingKeyError):
            data["missing"] = "apiKey"
        return JsonRpcException(f"{command}: {text}", code=HARNESS_ERROR, data=data)
    return JsonRpcInternalError(
        f"{command} failed unexpectedly: {type(exc).__name__}: {exc}",
        data={"kind": "internal", "command": command},
    )


def _kind(code: int) -> str:
    kinds = {INVALID_PARAMS: "invalidParams", NOT_FOUND: "notFound", CONFLICT: "conflict"}
    return kinds.get(code, "harness" if code == HARNESS_ERROR else "internal")


__all__ = [
    "CONFLICT",
    "HARNESS_ERROR",
    "INVALID_PARAMS",
    "NOT_FOUND",
    "CommandError",
    "Conflict",
    "InvalidParams",
    "NotFound",
    "editor_words",
    "to_jsonrpc",
]
