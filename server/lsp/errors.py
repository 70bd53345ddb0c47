"""How a command fails on the wire: JSON-RPC error codes and the exceptions commands raise.

    CommandError               a command cannot do what was asked; ``code`` goes on the wire
    ├── InvalidParams          -32602: a missing, unknown or ill-typed argument (names it)
    ├── NotFound               -32004: no such run, step or note
    └── Conflict               -32009: a run is already active in that folder, or still active

Harness errors (``ConfigError``, ``StoreError``, ``ContainmentError``) become code -32001 with
their own message. The server never dies of any of them: ``to_jsonrpc`` converts whatever a
command raised into the error the client receives.
"""

from __future__ import annotations

from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from harness.errors import HarnessError

INVALID_PARAMS = JsonRpcInvalidParams.CODE  # -32602
HARNESS_ERROR = -32001
NOT_FOUND = -32004
CONFLICT = -32009


class CommandError(Exception):
    """A command failed for a reason the user can act on; the message says which."""

    code = HARNESS_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidParams(CommandError):
    code = INVALID_PARAMS


class NotFound(CommandError):
    code = NOT_FOUND


class Conflict(CommandError):
    code = CONFLICT


def to_jsonrpc(command: str, exc: Exception) -> JsonRpcException:
    """The JSON-RPC error for an exception a command raised."""
    if isinstance(exc, JsonRpcException):
        return exc
    if isinstance(exc, CommandError):
        return JsonRpcException(f"{command}: {exc.message}", code=exc.code)
    if isinstance(exc, HarnessError):
        return JsonRpcException(f"{command}: {exc}", code=HARNESS_ERROR)
    return JsonRpcInternalError(f"{command} failed unexpectedly: {type(exc).__name__}: {exc}")


__all__ = [
    "CONFLICT",
    "HARNESS_ERROR",
    "INVALID_PARAMS",
    "NOT_FOUND",
    "CommandError",
    "Conflict",
    "InvalidParams",
    "NotFound",
    "to_jsonrpc",
]
