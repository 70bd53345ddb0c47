"""Starting a run: the one place that turns a host's settings and overrides into a
contract, a provider, a policy gate and a ``Run``, and owns their lifecycles. The CLI, the
language server and the demo all start runs here.

    contract = build_contract(goal, root, settings_layer, arguments_layer)
    backend = Backend(store=opener, provider=config)  # what the front shares (harness.run.backend)
    session = await open_session(contract, backend, RunRequest(approver=ask))
    result = await session.execute()        # the provider is closed, whatever happens

``open_session`` checks everything that can be wrong with the configuration (the policy
files, the API key, the provider) before the run row exists, so a configuration error
leaves no run behind; the resolved key is registered for redaction (§6.7) before anything
can print it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import redact
from harness.context.ceiling import Ceiling
from harness.contract import TaskContract, build_contract
from harness.errors import ConfigError
from harness.memory import RunMemory
from harness.policy import Gate, Policy
from harness.pricing import ModelPrices, Pricer, default_prices_file, user_prices
from harness.prompts import criterion
from harness.provider import ProviderConfig, make_provider, resolve_api_key
from harness.report import RunObserver, RunResult, fan_out
from harness.run.assembly import Assembler, BoundedAssembler, NaiveAssembler
from harness.run.backend import Assembly, Backend, RunRequest
from harness.run.conversation import Attachment, FollowUp, attached_text, follow_up, follow_up_text
from harness.run.events import RunEvents
from harness.run.instructions import (
    NAMES,
    FolderInstructions,
    frame_read,
    frame_section,
    read_instructions,
)
from harness.run.loop import Run
from harness.run.observers import WatchedApprover
from harness.run.toolbox import Toolbox
from harness.sandbox import run_warnings
from harness.store import Store
from harness.tools import all_tools, tool_schemas
from harness.tools.exec import exec_environment
from harness.types import (
    DocumentGuard,
    Provider,
    ToolCall,
    ToolResult,
)
from harness.workspace import Workspace

if TYPE_CHECKING:
    from harness.contract import RunMode
    from harness.mcp.config import ServerConfig
    from harness.mcp.runtime import McpRun
    from harness.types import Approver

log = logging.getLogger(__name__)


@dataclass
class Session:
    """One run and what it owns. ``execute`` runs it and then closes the provider."""

    run: Run
    provider: Provider
    events: RunEvents | None = None  # the run's §11 events: ``subscribe`` a sink to them
    mcp: McpRun | None = None  # the run's MCP servers (§15), stopped with it
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
        if self.mcp is not None:
            await self.mcp.aclose()


async def open_session(contract: TaskContract, backend: Backend, front: RunRequest) -> Session:
    """A run of ``contract``, ready to execute, its row in the backend's store (§2, §6.3,
    §11, §12, §14, §15); ``front``: what only the front starting it has. Raises
    ``ConfigError`` before the run row (and before the store is opened)."""
    env = os.environ if backend.environ is None else backend.environ
    workspace, contract, policy = _placed(contract, front)
    warnings = (*policy.warnings, *await asyncio.to_thread(run_warnings, policy.exec_config))
    model = _provider(backend.provider, env)
    mcp: McpRun | None = None
    try:
        pricer = await asyncio.to_thread(_pricer, model, backend.prices)  # the table: ~0.5 s
        store = backend.opened_store()
        run_id, previous = _create_run(store, contract, model, front.conversation_id)
        notes = _run_memory(store, workspace, run_id, contract, policy) if backend.memory else None
        telemetry = backend.telemetry
        spans = telemetry.observer(model.name, model.model, pricer) if telemetry else None
        ids = (run_id, previous.conversation_id if previous else run_id)
        watched, events, observers = _observers(store, ids, front, spans)
        events.attached = [item.arguments(contract.root) for item in front.context]
        gate = Gate(policy, watched, run_id)
        toolbox = _toolbox(
            workspace, gate, environ=env, guard=front.guard, notes=notes, store=store
        )
        semantic = backend.semantic(contract.root) if backend.semantic else None
        toolbox = dataclasses.replace(
            toolbox.with_semantic(semantic), warnings=warnings, writer=front.writer
        )
        mcp = await _mcp_tools(toolbox, contract.mode, env, front.approver, front.mcp_servers)
        assembler = _context(backend.assembly, contract, toolbox, previous, front.context, mcp=mcp)
        assembler.cache_of(model.name)
        run = Run(
            contract, run_id, store=store, provider=model, toolbox=toolbox, assembler=assembler,
            observer=observers, pricer=pricer,
            conversation=(previous.conversation_id, previous.turn) if previous else None,
        )  # fmt: skip
        await _begin(run, previous, front.context)
    except BaseException:
        await model.aclose()
        await mcp.aclose() if mcp else None
        raise
    return Session(run, model, events, mcp)


async def _mcp_tools(toolbox: Toolbox, mode: RunMode, *args: Any) -> McpRun | None:
    """The run's MCP servers, their tools added (§15; None, and no SDK loaded, if none),
    then the tools of ``mode`` offered (plan mode: the read tools only)."""
    mcp = await _mcp_servers(toolbox, *args)
    toolbox.offer(mode)
    return mcp


async def _mcp_servers(
    toolbox: Toolbox,
    environ: Mapping[str, str],
    approver: Approver,
    client: Sequence[ServerConfig] = (),
) -> McpRun | None:
    """Start the run's servers and add their tools (sorted, after the harness's own) and
    warnings to ``toolbox``; None when no server is configured."""
    from harness.mcp.runtime import Where, open_mcp

    policy = toolbox.gate.policy
    where = Where(toolbox.workspace.root, policy.trusted, policy.user_config, policy.exec_config)
    run = await open_mcp(
        where, environ, approver=approver, run_id=toolbox.gate.run_id, client=client
    )
    if run is not None:
        toolbox.tools = {**toolbox.tools, **run.tools}
        toolbox.schemas = tool_schemas(toolbox.tools)
        toolbox.warnings = (*toolbox.warnings, *run.warnings)
    return run


def _placed(contract: TaskContract, front: RunRequest) -> tuple[Workspace, TaskContract, Policy]:
    """The workspace, the contract rooted at its canonical path, and the policy (the
    front's, or the user's config, the workspace's and the editor's, §6.3)."""
    workspace = Workspace(contract.root)
    contract = contract.rooted(workspace.root)
    policy = front.policy
    if policy is None:
        editor, trusted = front.editor_policy, front.client_trusted
        policy = Policy.load(workspace.root, editor=editor, client_trusted=trusted)
    return workspace, contract, policy


def _observers(
    store: Store, ids: tuple[int, int], front: RunRequest, spans: RunObserver | None
) -> tuple[WatchedApprover, RunEvents, RunObserver]:
    """The run's approver, watched; its events (``harness.run.events``) for run and
    conversation ``ids``; and all its observers: the approver's watch, the events, the
    front's own and the telemetry's (``spans``)."""
    watched = WatchedApprover(front.approver)
    events = RunEvents(store, *ids, [front.on_event] if front.on_event else [])
    watched.report_to = fan_out(events, front.observer, spans)
    return watched, events, fan_out(watched, events, front.observer, spans)


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
        mode=contract.mode,
    )
    return run_id, previous


async def _begin(run: Run, previous: FollowUp | None, context: Sequence[Attachment]) -> None:
    """Before the first step: what changed since the previous turn, what the user attached."""
    _changed_between_turns(run, previous)
    await _attach(run, context)


def _changed_between_turns(run: Run, previous: FollowUp | None) -> None:
    """Files the user (or anything) changed since the previous turn's reads are refreshed
    (§3 rule 3), naming the read of the earlier turn."""
    if previous is not None and previous.snapshot is not None:
        run.notify_changed(previous.snapshot.ledger.known_paths())


def _context(
    assembly: Assembly,
    contract: TaskContract,
    toolbox: Toolbox,
    previous: FollowUp | None,
    context: Sequence[Attachment],
    *,
    mcp: McpRun | None = None,
) -> Assembler:
    """The run's assembler: a new context (the frame says what the user attached and holds
    the repository's instructions), or the conversation's continued, the follow-up's goal
    (and attachments) a new user turn (the instructions are in the conversation's frame)."""
    attached = attached_text(context, contract.root)
    text, read = _instructions(toolbox, contract, trusted=toolbox.gate.policy.trusted)
    text = "\n\n".join(filter(None, [text, mcp.frame_text() if mcp else ""]))
    if previous is None or previous.snapshot is None:
        assembler = _assembler(
            assembly, contract, toolbox, attached, instructions=text, instructions_read=read
        )
        if previous is not None:
            assembler.turn = previous.turn  # type: ignore[attr-defined]
        return assembler
    assembler = _assembler(assembly, contract, toolbox)
    if not isinstance(assembler, BoundedAssembler):
        raise ConfigError("a follow-up needs the bounded assembly")
    said = criterion(contract)
    text = follow_up_text(
        contract.goal, previous.turn, said, previous.snapshot, attached, mode=contract.mode
    )
    assembler.continue_from(previous.snapshot, previous.turn, text)
    return assembler


async def _attach(run: Run, context: Sequence[Attachment]) -> None:
    """What the user attached, read at step 0 through the policy and containment like any
    read (a path outside the workspace is refused, and the model is told so)."""
    contract = run.contract
    ctx = run.toolbox.context(run.run_id, 0, Ceiling.of(contract).entry_cap)
    for i, item in enumerate(context):
        call = ToolCall(f"attached-{i}", "read_file", item.arguments(contract.root))
        result = await run.toolbox.call(call, ctx, run.ledger)
        run.ledger.add(0, result)  # the user's, not the answer to a call of the model's


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
    environ: Mapping[str, str],
    *,
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


def _provider(provider: ProviderConfig | Provider, environ: Mapping[str, str]) -> Provider:
    if not isinstance(provider, ProviderConfig):
        return provider
    key = resolve_api_key(provider, environ)
    redact.register(key)  # before any error, log or message could carry it
    return make_provider(provider, key)


def _instructions(
    toolbox: Toolbox, contract: TaskContract, *, trusted: bool
) -> tuple[str, ToolResult | None]:
    """The repository's instructions (§12): the frame's section for the root's
    ``AGENTS.md`` (or ``CLAUDE.md``, capped as a first read is) and its step-0 read; the
    folders' files are the toolbox's to append as the agent reaches them."""
    workspace, gate = toolbox.workspace, toolbox.gate
    toolbox.instructions = FolderInstructions(workspace, gate, trusted)
    cap = Ceiling.of(contract).read_cap(NAMES[0])
    found = read_instructions(workspace, gate, "", cap)
    if found is None:
        return "", None
    return frame_section(found, trusted=trusted), frame_read(found)


def _assembler(
    assembly: Assembly,
    contract: TaskContract,
    toolbox: Toolbox,
    attached: str = "",
    *,
    instructions: str = "",
    instructions_read: ToolResult | None = None,
) -> Assembler:
    """The run's assembler; the root's ``AGENTS.md`` in its frame and, as a read at step 0,
    in its ledger (a change to the file is refreshed like any read, §3 rule 3)."""
    assembler: Assembler
    if assembly == "naive":
        assembler = NaiveAssembler(
            contract, toolbox.schemas, memory=toolbox.memory, instructions=instructions
        )
    else:
        assembler = BoundedAssembler(
            contract,
            toolbox.schemas,
            attached=attached,
            instructions=instructions,
            memory=toolbox.memory,
            workspace=toolbox.workspace,
            gate=toolbox.gate,
        )
    if instructions_read is not None:
        assembler.ledger.add(0, instructions_read)
    return assembler


__all__ = ["Assembly", "Backend", "RunRequest", "Session", "build_contract", "open_session"]
