"""The kinds of thing the protocol declares (``server.protocol``): plain frozen dataclasses,
standard library only, so the server can read the declaration before ``initialize`` without
loading pydantic or the harness."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """A ``workspace/executeCommand`` command.

    ``key`` is its name in the clients' tables (``Cmd.memoryList`` in TypeScript,
    ``commands.memoryList`` in Lua); ``params`` the pydantic model of its one argument
    (``Class`` of ``server.lsp.params``, or ``module:Class``); ``arguments`` and ``result``
    the words of docs/server.md's table; ``result_type`` the TypeScript type of the result
    (an interface of editors/vscode/src/protocol.ts, or ``unknown``); ``reads_store``: it
    only reads the store and notifies nobody, so it runs in a worker thread."""

    name: str
    key: str
    params: str
    arguments: str
    result: str
    result_type: str = "unknown"
    reads_store: bool = False


@dataclass(frozen=True)
class Message:
    """A notification or request between server and client: ``key`` is its constant's name
    in the clients (``RUN_EVENT``), ``direction`` ``"server→client"`` here."""

    method: str
    key: str
    params: str
    when: str
    answer: str = ""  # a request's result


@dataclass(frozen=True)
class Word:
    """A value the protocol carries (an outcome, a decision, an event kind) and the words a
    client shows for it."""

    value: str
    words: str
    meaning: str = ""


@dataclass(frozen=True)
class ErrorCode:
    """A JSON-RPC error code the server answers with, and the ``data.kind`` it carries."""

    code: int
    kind: str
    meaning: str
    example: str


@dataclass(frozen=True)
class ErrorData:
    """A field of a JSON-RPC error's structured ``data`` (and of a ``window/showMessage``'s
    ``data``): the facts a client words a failure from, never parsing the message."""

    name: str
    type: str
    meaning: str


@dataclass(frozen=True)
class Setting:
    """An editor setting (``initializationOptions`` / ``didChangeConfiguration``), with the
    command-line flag that does the same (a harness error names the flag; the editor server
    says the setting instead)."""

    key: str
    type: str
    default: str
    meaning: str
    flag: str = ""


__all__ = ["Command", "ErrorCode", "ErrorData", "Message", "Setting", "Word"]
