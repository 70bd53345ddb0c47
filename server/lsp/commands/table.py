"""``workspace/executeCommand``: the command table and the one adapter every command uses.

A command is declared in ``server.protocol.commands`` (its name, params model, result,
words) and implemented by a function ``(host, params)`` taking the narrow
``server.lsp.host.CommandHost`` view of the server, decorated ``@handles(name)`` in its
feature module. ``COMMAND_MODULES`` (the generated ``server.protocol.manifest``) names the
module of each command so the server can advertise every command at ``initialize`` while the
feature modules (and pydantic, the store, the loop behind them) load only when first used —
that keeps the server's start fast.

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
from server.protocol.commands import COMMANDS as DECLARED_COMMANDS
from server.protocol.manifest import HANDLERS
from server.protocol.model import Command as Declared

if TYPE_CHECKING:
    from server.lsp.host import CommandHost
    from server.lsp.params import Params

log = logging.getLogger(__name__)

P = TypeVar("P", bound="Params")

DECLARED: Mapping[str, Declared] = {c.name: c for c in DECLARED_COMMANDS}
COMMAND_MODULES: Mapping[str, str] = HANDLERS
"""Each command's feature module (``server.protocol.manifest``, generated from the
``@handles`` functions by ``make protocol``): the server advertises every command at
``initialize`` and loads a module when first used."""

OFF_LOOP = frozenset(c.name for c in DECLARED_COMMANDS if c.reads_store)
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


_HANDLERS: dict[str, Command[Any]] = {}

F = TypeVar("F", bound=Callable[..., Any])


def handles(name: str) -> Callable[[F], F]:
    """Registers the decorated ``(host, params)`` function as the command ``name`` of the
    declaration (``server.protocol.commands``), with the params model declared for it."""
    declared = DECLARED.get(name)
    if declared is None:
        raise LookupError(f"{name} is not declared in server.protocol.commands")

    def register_handler(run: F) -> F:
        annotations = list(run.__annotations__.values())
        wanted = declared.params.rpartition(":")[2]
        given = annotations[1] if len(annotations) > 1 else ""
        given = given if isinstance(given, str) else getattr(given, "__name__", "")
        if given.rpartition(".")[2] != wanted:
            raise TypeError(f"{run.__qualname__} must take `params: {wanted}` ({name})")
        if name in _HANDLERS:
            raise LookupError(f"{name} has two handlers")
        _HANDLERS[name] = Command(name, params_model(declared.params), run)
        return run

    return register_handler


def params_model(spec: str) -> type[Params]:
    """The class a declaration names: ``Class`` of ``server.lsp.params``, or
    ``module:Class``."""
    module_name, _, class_name = spec.rpartition(":")
    module = importlib.import_module(module_name or "server.lsp.params")
    model: type[Params] = getattr(module, class_name)
    return model


def command(name: str) -> Command[Any]:
    """The command called ``name``, from its feature module."""
    importlib.import_module(COMMAND_MODULES[name])
    found = _HANDLERS.get(name)
    if found is None:
        raise LookupError(f"{COMMAND_MODULES[name]} has no @handles({name!r}) function")
    return found


def preload() -> None:
    """Import every feature module (run in a thread after ``initialized``)."""
    for module in sorted(set(COMMAND_MODULES.values())):
        importlib.import_module(module)
    importlib.import_module("harness.run.session")


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


__all__ = [
    "COMMAND_MODULES",
    "DECLARED",
    "LOADER",
    "OFF_LOOP",
    "Command",
    "command",
    "execute",
    "handles",
    "preload",
    "register",
]
