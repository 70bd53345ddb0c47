"""``harness.memory.*``: the operator's view of what the agent remembers (§4, §7).

Results are exactly what ``harness memory … --json`` prints for the same store (§8.1):
a note, an array of notes, a write result, ``{"deleted", "note"}`` and ``{"deleted",
"pinned"}`` (``harness.memory.clear``; ``keepPinned`` as ``--keep-pinned``).
``scope`` is ``workspace`` (the default: the workspace folder's canonical path, or
``workspaceFolder``'s) or ``global``. A missing note is a NotFound error, as the CLI's exit 1.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from harness.errors import MemoryInputError
from harness.memory.text import GLOBAL, check_key
from server.lsp.commands.table import handles
from server.lsp.errors import InvalidParams, NotFound
from server.lsp.params import ClearParams, KeyParams, PinParams, ScopeParams, WriteParams

if TYPE_CHECKING:
    from harness.store import Store
    from server.lsp.host import CommandHost

Scope = str | Path

T = TypeVar("T")


def scope_of(host: CommandHost, params: ScopeParams) -> Scope:
    if params.scope == "global":
        return GLOBAL
    return host.folder(params.workspace_folder)


def label(scope: str | Path) -> str:
    return "global memory" if scope == GLOBAL else f"workspace {scope}"


def _checked(field: str, fn: Callable[[], T]) -> T:
    """Run a store call whose ``MemoryInputError`` means a bad argument (an empty key, a bad
    kind)."""
    try:
        return fn()
    except MemoryInputError as exc:
        raise InvalidParams(f"`{field}`: {exc}") from None


def _missing(params: KeyParams, scope: str | Path) -> NotFound:
    return NotFound(f"no note `{params.key.strip()[:100]}` in {label(scope)}")


@handles("harness.memory.list")
def memory_list(host: CommandHost, params: ScopeParams) -> list[dict[str, Any]]:
    scope = scope_of(host, params)
    return [note.to_json() for note in host.store().memory_list(scope)]


def _found(host: CommandHost, params: KeyParams, act: Callable[[Store, Scope], T | None]) -> T:
    """What ``act`` did to the note ``params.key``; NotFound when there is no such note."""
    scope = scope_of(host, params)
    store = host.store()
    done = _checked("key", lambda: act(store, scope))
    if done is None:
        raise _missing(params, scope)
    return done


@handles("harness.memory.get")
def memory_get(host: CommandHost, params: KeyParams) -> dict[str, Any]:
    return _found(host, params, lambda store, scope: store.memory_get(scope, params.key)).to_json()


@handles("harness.memory.delete")
def memory_delete(host: CommandHost, params: KeyParams) -> dict[str, Any]:
    note = _found(host, params, lambda store, scope: store.memory_delete(scope, params.key))
    return {"deleted": 1, "note": note.to_json()}


@handles("harness.memory.pin")
def memory_pin(host: CommandHost, params: PinParams) -> dict[str, Any]:
    pinned = params.pinned
    note = _found(host, params, lambda store, scope: store.memory_pin(scope, params.key, pinned))
    return note.to_json()


@handles("harness.memory.write")
def memory_write(host: CommandHost, params: WriteParams) -> dict[str, Any]:
    scope = scope_of(host, params)
    store = host.store()
    _checked("key", lambda: check_key(params.key))
    result = _checked(
        "value",
        lambda: store.memory_write(
            scope, params.key, params.value, None, None, params.kind, pinned=params.pinned
        ),
    )
    return result.to_json()


@handles("harness.memory.clear")
def memory_clear(host: CommandHost, params: ClearParams) -> dict[str, Any]:
    """``{deleted, pinned}`` as ``harness memory clear --yes [--keep-pinned] --json``:
    ``pinned`` counts the pinned notes among the deleted (0 with ``keepPinned``)."""
    scope = scope_of(host, params)
    store = host.store()
    if params.keep_pinned:
        doomed = [n.key for n in store.memory_list(scope) if not n.pinned]
        deleted = sum(1 for key in doomed if store.memory_delete(scope, key) is not None)
        return {"deleted": deleted, "pinned": 0}
    pinned = sum(1 for n in store.memory_list(scope) if n.pinned)
    return {"deleted": store.memory_clear(scope), "pinned": pinned}


__all__ = ["label", "scope_of"]
