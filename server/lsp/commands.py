"""``workspace/executeCommand``: the command table and the one adapter every command uses.

A command is a name, a params model (``server.lsp.params``) and a function ``(host, params)``
taking the narrow ``server.lsp.host.CommandHost`` view of the server,
defined in its feature module's ``COMMANDS``. ``COMMAND_MODULES`` names the module of each
command so the server can advertise every command at ``initialize`` while the feature
modules (and pydantic, the store, the loop behind them) load only when first used — that
keeps the server's start fast.

The adapter takes the raw arguments (pygls would otherwise structure them by annotation and
ignore defaults), validates them, runs the function (a store read in a worker thread,
``OFF_LOOP``) and turns any failure into a JSON-RPC error with a clear message
(``server.lsp.errors``). A command never takes the server down.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from harness.errors import HarnessError
from server.lsp.errors import CommandError, to_jsonrpc

if TYPE_CHECKING:
    from server.lsp.host import CommandHost
    from server.lsp.params import Params

log = logging.getLogger(__name__)

P = TypeVar("P", bound="Params")

COMMAND_MODULES: Mapping[str, str] = {
    "harness.run": "server.lsp.run",
    "harness.cancel": "server.lsp.run",
    "harness.run.steer": "server.lsp.run",
    "harness.codeAction": "server.lsp.code_action",
    "harness.status": "server.lsp.status",
    "harness.memory.list": "server.lsp.memory",
    "harness.memory.get": "server.lsp.memory",
    "harness.memory.delete": "server.lsp.memory",
    "harness.memory.pin": "server.lsp.memory",
    "harness.memory.write": "server.lsp.memory",
    "harness.memory.clear": "server.lsp.memory",
    "harness.conversations": "server.lsp.conversations",
    "harness.conversation.restore": "server.lsp.restore",
    "harness.trace.runs": "server.lsp.trace",
    "harness.trace.run": "server.lsp.trace",
    "harness.trace.step": "server.lsp.trace",
    "harness.run.revert": "server.lsp.revert",
    "harness.run.changes": "server.lsp.revert",
    "harness.run.revertFile": "server.lsp.revert",
    "harness.run.revertHunk": "server.lsp.review",
    "harness.run.keep": "server.lsp.review",
    "harness.run.events": "server.lsp.events",
    "harness.trust": "server.lsp.trust",
    "harness.prompts": "server.lsp.prompts",
}

OFF_LOOP = frozenset(
    {
        "harness.status",
        "harness.conversations",
        "harness.run.events",
        "harness.run.changes",
        "harness.trace.runs",
        "harness.trace.run",
        "harness.trace.step",
        "harness.memory.list",
        "harness.memory.get",
    }
)
"""The commands that only read the store (and notify nobody): run in a worker thread, so a
slow query — a store of a million runs — never holds up the event loop, and with it
approvals, progress and Stop (issue 30)."""


@dataclass(frozen=True)
class Command(Generic[P]):
    name: str
    params: type[P]
    run: Callable[[CommandHost, P], Any]  # returns the result, or an awaitable of it


class _Loader:
    """Loads the feature modules once, in a worker thread, and makes every command wait for
    it. Importing on the event loop while the worker imports could deadlock in CPython's
    import machinery (one thread holds a package's lock while importing a submodule whose
    lock the other took first: `_DeadlockError ... _ModuleLock('harness.store.records')`),
    so nothing is imported lazily on the event loop before the load is done."""

    def __init__(self) -> None:
        self._done: asyncio.Future[None] | None = None

    async def ensure(self) -> None:
        loop = asyncio.get_running_loop()
        if self._done is None or self._done.get_loop() is not loop:
            self._done = loop.create_task(asyncio.to_thread(preload))
        try:
            await asyncio.shield(self._done)
        except asyncio.CancelledError:
            raise
        except Exception:  # the command's own import says what is wrong
            log.exception("loading the harness failed")


LOADER = _Loader()


def command(name: str) -> Command[Any]:
    """The command called ``name``, from its feature module."""
    module = importlib.import_module(COMMAND_MODULES[name])
    found: list[Command[Any]] = [c for c in module.COMMANDS if c.name == name]
    if len(found) != 1:
        raise LookupError(f"{module.__name__} defines {len(found)} commands named {name}")
    return found[0]


def preload() -> None:
    """Import every feature module (run in a thread after ``initialized``)."""
    for module in sorted(set(COMMAND_MODULES.values())):
        importlib.import_module(module)
    importlib.import_module("harness.session")


def register(ls: LanguageServer, names: Iterable[str] = COMMAND_MODULES) -> None:
    for name in names:
        ls.command(name)(_handler(name))


def _handler(name: str) -> Callable[..., Any]:
    # pygls passes the server as ``ls`` and the raw arguments as ``*arguments``; the
    # annotations must resolve in this module (pygls calls get_type_hints on them).
    async def handler(ls: LanguageServer, *arguments: Any) -> Any:
        return await execute(cast("CommandHost", ls), name, arguments)

    return handler


async def execute(host: CommandHost, name: str, arguments: tuple[Any, ...]) -> Any:
    from server.lsp.params import parse_params

    await LOADER.ensure()
    try:
        cmd = command(name)
        params = parse_params(cmd.params, arguments)
        if name in OFF_LOOP:
            result = await asyncio.to_thread(cmd.run, host, params)
        else:
            result = cmd.run(host, params)
        if inspect.isawaitable(result):
            result = await result
        return result
    except (CommandError, HarnessError, JsonRpcException) as exc:
        log.info("%s refused: %s", name, exc)
        raise to_jsonrpc(name, exc) from None
    except Exception as exc:
        log.exception("%s failed", name)
        raise to_jsonrpc(name, exc) from None


__all__ = ["COMMAND_MODULES", "LOADER", "Command", "command", "execute", "preload", "register"]
