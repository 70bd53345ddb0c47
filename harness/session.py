"""Starting a run: the one place that turns a host's settings and overrides into a
contract, a provider, a policy gate and a ``Run``, and owns their lifecycles. The CLI, the
language server and the demo all start runs here.

    contract = build_contract(goal, root, settings_layer, arguments_layer)
    session = await open_session(contract, store=..., provider=config, approver=...)
    result = await session.execute()        # the provider is closed, whatever happens

``open_session`` checks everything that can be wrong with the configuration (the policy
files, the API key, the provider) before the run row exists, so a configuration error
leaves no run behind; the resolved key is registered for redaction (§6.7) before anything
can print it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from harness import redact
from harness.assembly import Assembler, BoundedAssembler, NaiveAssembler
from harness.contract import ContractOverrides, TaskContract
from harness.conversation import FollowUp, follow_up, follow_up_text
from harness.errors import ConfigError
from harness.loop import Run
from harness.memory import RunMemory
from harness.policy import Gate, Policy
from harness.pricing import ModelPrices, Pricer, default_prices_file, user_prices
from harness.provider import ProviderConfig, make_provider, resolve_api_key
from harness.report import RunObserver, RunResult, fan_out
from harness.sandbox import sandbox_available, sandbox_status
from harness.store import Store
from harness.toolbox import Toolbox
from harness.tools import all_tools
from harness.tools.exec import exec_environment
from harness.types import Approver, DocumentGuard, ExecConfig, Provider, SandboxMode
from harness.workspace import Workspace

if TYPE_CHECKING:
    from harness.telemetry.export import Telemetry

log = logging.getLogger(__name__)

Assembly = Literal["bounded", "naive"]


def build_contract(goal: str, root: Path | str, *layers: ContractOverrides) -> TaskContract:
    """The contract for ``goal`` in the workspace ``root`` (resolved), with each layer of
    overrides applied in order (``None`` is "not given"; a later given value wins)."""
    if not goal.strip():
        raise ConfigError("the goal is empty")
    path = Path(root).expanduser()
    if not path.is_dir():
        raise ConfigError(f"workspace {path} is not a directory")
    contract = TaskContract.workspace(goal, Workspace(path).root)
    try:
        for layer in layers:
            contract = contract.with_overrides(layer)
    except ValidationError as exc:
        raise ConfigError(_first_problem(exc)) from None
    return contract


@dataclass
class Session:
    """One run and what it owns. ``execute`` runs it and then closes the provider."""

    run: Run
    provider: Provider
    _closed: bool = False

    @property
    def run_id(self) -> int:
        return self.run.run_id

    @property
    def root(self) -> Path:
        return self.run.contract.root

    async def execute(self) -> RunResult:
        try:
            return await self.run.execute()
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Close the provider (once); a session that will not run is closed this way."""
        if self._closed:
            return
        self._closed = True
        try:
            await self.provider.aclose()
        except Exception:
            log.exception("closing the provider of run %d failed", self.run_id)


async def open_session(
    contract: TaskContract,
    *,
    store: Store | Callable[[], Store],
    provider: ProviderConfig | Provider,
    approver: Approver,
    policy: Policy | None = None,
    editor_policy: Mapping[str, Any] | None = None,
    client_trusted: bool | None = None,
    guard: DocumentGuard | None = None,
    observer: RunObserver | None = None,
    memory: bool = True,
    assembly: Assembly = "bounded",
    environ: Mapping[str, str] | None = None,
    prices: Mapping[str, ModelPrices] | None = None,
    conversation_id: int | None = None,
    telemetry: Telemetry | None = None,
) -> Session:
    """A run, ready to execute, its row in ``store`` (or in what ``store()`` opens once the
    configuration is known to be good). ``provider``: a configuration, its key read from
    ``environ``, or a provider already made; the session closes it. ``policy`` defaults to
    the user's config, ``.harness/policy.toml`` and ``editor_policy``; ``client_trusted``:
    the editor's verdict on the folder. ``prices``: per-model price overrides (§11), over
    the user's ``prices.toml``. ``conversation_id``: the run is the next turn of that
    conversation (§11), continuing its context. ``telemetry``: the process's export (§12),
    observing the run beside ``observer``. Raises ``ConfigError`` before the run row exists."""
    env = os.environ if environ is None else environ
    workspace = Workspace(contract.root)
    contract = contract.model_copy(update={"root": workspace.root})
    if policy is None:
        policy = Policy.load(workspace.root, editor=editor_policy, client_trusted=client_trusted)
    warnings = (*policy.warnings, *await asyncio.to_thread(_sandbox_warnings, policy.exec_config))
    model = _provider(provider, env)
    try:
        pricer = await asyncio.to_thread(_pricer, model, prices)  # the table loads in ~0.5 s
        store = store if isinstance(store, Store) else store()
        run_id, previous = _create_run(store, contract, model, conversation_id)
        notes = _run_memory(store, workspace, run_id, contract, policy) if memory else None
        gate = Gate(policy, approver, run_id)
        toolbox = _toolbox(workspace, gate, environ=env, guard=guard, notes=notes, store=store)
        toolbox.warnings = warnings
        assembler = _assembler(assembly, contract, toolbox, previous)
        spans = telemetry.observer(model.name, model.model, pricer) if telemetry else None
        run = Run(
            contract,
            run_id,
            store=store,
            provider=model,
            toolbox=toolbox,
            assembler=assembler,
            observer=fan_out(observer, spans),
            pricer=pricer,
        )
        if previous is not None and previous.snapshot is not None:
            # Files the user (or anything) changed between turns are refreshed (§3 rule 3).
            run.notify_changed(previous.snapshot.ledger.known_paths())
    except BaseException:
        await model.aclose()
        raise
    return Session(run, model)


def _create_run(
    store: Store, contract: TaskContract, model: Provider, conversation_id: int | None
) -> tuple[int, FollowUp | None]:
    """The run row, the next turn of ``conversation_id`` when given (checked first)."""
    previous = None
    if conversation_id is not None:
        previous = follow_up(store, conversation_id, contract.root)
    run_id = store.create_run(
        goal=contract.goal,
        workspace=str(contract.root),
        provider=model.name,
        model=model.model,
        contract=contract.model_dump_json(),
        conversation_id=conversation_id,
    )
    return run_id, previous


def _continue(assembler: Assembler, previous: FollowUp, goal: str) -> None:
    """The run continues its conversation's context: the follow-up's goal a new user turn."""
    if not isinstance(assembler, BoundedAssembler):
        raise ConfigError("a follow-up needs the bounded assembly")
    assembler.turn = previous.turn
    if previous.snapshot is not None:
        text = follow_up_text(goal, previous.turn)
        assembler.continue_from(previous.snapshot, previous.turn, text)


def _pricer(model: Provider, prices: Mapping[str, ModelPrices] | None) -> Pricer:
    """The model's prices: ``prices`` over the user's ``prices.toml`` over the table."""
    return Pricer(model.name, model.model, {**user_prices(default_prices_file()), **(prices or {})})


def _run_memory(
    store: Store, workspace: Workspace, run_id: int, contract: TaskContract, policy: Policy
) -> RunMemory:
    """The run's durable memory; global notes only from a folder the user trusts (§4)."""
    limits = contract.memory_limits
    return RunMemory(store, workspace.root, run_id, limits, trusted=policy.trusted)


def _toolbox(
    workspace: Workspace,
    gate: Gate,
    *,
    environ: Mapping[str, str],
    guard: DocumentGuard | None,
    notes: RunMemory | None,
    store: Store,
) -> Toolbox:
    """The run's tools, with the policy's ``[exec]`` table and writes announced to the store
    before they touch the disk (§5)."""
    return Toolbox(
        workspace,
        gate,
        all_tools(),
        exec_environment(environ),
        guard,
        notes,
        exec_config=gate.policy.exec_config,
        announce=store.announce_write,
    )


def _sandbox_warnings(config: ExecConfig) -> tuple[str, ...]:
    """What the user is told once per run about commands and the sandbox (§6.6)."""
    if config.sandbox is SandboxMode.OFF:
        return ('commands run without a sandbox: `[exec] sandbox = "off"` in your policy',)
    if sandbox_available(network=config.network):
        return ()
    status = sandbox_status(network=config.network)
    if config.sandbox is SandboxMode.REQUIRED:
        return (f'{status}; `[exec] sandbox = "required"`, so every command is refused',)
    return (status,)


def _provider(provider: ProviderConfig | Provider, environ: Mapping[str, str]) -> Provider:
    if not isinstance(provider, ProviderConfig):
        return provider
    key = resolve_api_key(provider, environ)
    redact.register(key)  # before any error, log or message could carry it
    return make_provider(provider, key)


def _assembler(
    assembly: Assembly, contract: TaskContract, toolbox: Toolbox, previous: FollowUp | None
) -> Assembler:
    """The run's assembler; a follow-up's continues ``previous`` (its conversation so far)."""
    if assembly == "naive":
        assembler: Assembler = NaiveAssembler(contract, toolbox.schemas, memory=toolbox.memory)
    else:
        assembler = BoundedAssembler(
            contract,
            toolbox.schemas,
            memory=toolbox.memory,
            workspace=toolbox.workspace,
            gate=toolbox.gate,
        )
    if previous is not None:
        _continue(assembler, previous, contract.goal)
    return assembler


def _first_problem(exc: ValidationError) -> str:
    err = exc.errors(include_url=False, include_input=False)[0]
    field = ".".join(str(p) for p in err["loc"]) or "contract"
    return f"`{field}`: {err['msg']}"


__all__ = ["Assembly", "Session", "build_contract", "open_session"]
