"""The agent loop (§8): ask the model, run the tools it calls, observe, commit the step,
stop on an outcome. One ``Run`` per task; the CLI and the language server both drive it.

A step commits in one transaction (``Store.commit_step``), so a crash leaves whole steps.
``Run.cancel`` stops at the next safe point: an in-flight model call, approval or command
is interrupted; a step whose tools already ran is committed with what they did.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.context import Assembly, assemble, assemble_naive
from harness.contract import TaskContract, effective_tokens, entry_cap_chars
from harness.errors import ContextOverflowError, ProviderError
from harness.ledger import Cause, Ledger
from harness.policy import Gate, Policy
from harness.prompts import SYSTEM_PROMPT, frame, observations_heading
from harness.report import RunObserver, RunResult, StepSummary
from harness.reread import make_refresher
from harness.store import ObservationRecord, StepRecord, Store
from harness.store.base import now_iso
from harness.tokens import estimate_tokens
from harness.tools import all_tools, dispatch, tool_schemas
from harness.tools.base import LABELS, Tool, ToolContext, header
from harness.tools.exec import exec_environment
from harness.types import (
    Act,
    Approver,
    DocumentGuard,
    Outcome,
    Provider,
    Reply,
    Request,
    ToolCall,
    ToolResult,
    TraceEvent,
)
from harness.workspace import Workspace

log = logging.getLogger(__name__)

MAX_CALLS_PER_TURN = 32  # §6.1: the rest of a turn's calls are answered "not run"


@dataclass
class _Turn:
    """One assembled request and what it is made of."""

    request: Request
    assembly: Assembly | None
    effective: int
    est_tokens: int
    recalled: tuple[tuple[str, str], ...]
    events: list[TraceEvent]
    memory_text: str = ""
    prefix_chars: int = 0


class _Cancelled(Exception):
    """Raised inside a step when ``Run.cancel`` interrupted it."""


class Run:
    """One task over one workspace. Create it (the run row exists at once), then
    ``await run.execute()``."""

    def __init__(
        self,
        contract: TaskContract,
        *,
        store: Store,
        provider: Provider,
        approver: Approver,
        policy: Policy | None = None,
        guard: DocumentGuard | None = None,
        observer: RunObserver | None = None,
        memory: bool = True,
        naive_context: bool = False,
        env: Mapping[str, str] | None = None,
        tools: Mapping[str, Tool] | None = None,
    ) -> None:
        self.workspace = Workspace(contract.root)
        self.contract = contract.model_copy(update={"root": self.workspace.root})
        self.store = store
        self.provider = provider
        self.policy = policy if policy is not None else Policy.load(self.workspace.root)
        self.guard = guard
        self.observer = observer or RunObserver()
        self.naive_context = naive_context
        self.env = dict(env) if env is not None else exec_environment()
        self.tools = dict(tools) if tools is not None else all_tools()
        self.schemas = tool_schemas(self.tools)
        self._schema_chars = len(json.dumps([s.parameters for s in self.schemas]))
        self.run_id = store.create_run(
            goal=contract.goal,
            workspace=str(self.workspace.root),
            provider=provider.name,
            model=provider.model,
            contract=self.contract.model_dump_json(),
        )
        self.gate = Gate(self.policy, approver, self.run_id)
        self.ledger = Ledger()
        self.memory: Any = None
        if memory:
            from harness.memory import RunMemory

            self.memory = RunMemory(store, self.workspace.root, self.run_id, contract.memory_limits)
        self.step = 0
        self.spent = 0
        self.last_summary: StepSummary | None = None
        self.result: RunResult | None = None
        self._frame = frame(self.contract)
        self._cancel_requested = False
        self._task: asyncio.Task[Any] | None = None
        self._pending_events: list[TraceEvent] = []
        self._verify_failed = False
        self._overflow_cap: int | None = None
        self._sent: _Turn | None = None  # the last request the provider answered
        self._last_words: str | None = None
        self._files_changed: dict[str, None] = {}  # an ordered set

    # -- control -------------------------------------------------------------------------

    def cancel(self) -> None:
        """Stop at the next safe point; the outcome is ``cancelled``."""
        self._cancel_requested = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel_requested

    def notify_changed(self, paths: Iterable[str | Path], cause: str = "disk") -> int:
        """Files changed outside the agent (editor save, formatter, git). Returns how many
        changes could invalidate something the model saw. Safe to call from any thread."""
        count = 0
        for raw in paths:
            rel = self._relative(raw)
            if rel is None:
                continue
            new_hash = self.workspace.hash_of(rel)
            if self.ledger.note_change(rel, Cause(cause), self.step, new_hash):
                count += 1
                self._pending_events.append(
                    TraceEvent("changed", {"path": rel, "cause": cause, "hash": new_hash})
                )
        return count

    def _relative(self, raw: str | Path) -> str | None:
        path = Path(raw)
        if path.is_absolute():
            try:
                return self.workspace.relative(path)
            except ValueError:
                return None
        return str(raw)

    # -- the loop ------------------------------------------------------------------------

    async def execute(self) -> RunResult:
        self._task = asyncio.current_task()
        outcome: Outcome | None = None
        error: str | None = None
        try:
            while outcome is None:
                outcome = self._limit_reached()
                if outcome is None:
                    outcome = await self._step()
        except _Cancelled:
            outcome = Outcome.CANCELLED
        except asyncio.CancelledError:
            # Not ours (the host is shutting down): record, then let it propagate.
            self._finish(Outcome.CANCELLED, "the host stopped the run")
            raise
        except ContextOverflowError as exc:
            outcome, error = Outcome.CONTEXT_OVERFLOW, str(exc)
        except ProviderError as exc:
            outcome, error = Outcome.PROVIDER_ERROR, f"{exc.kind.value}: {exc}"
        return self._finish(outcome, error)

    def _limit_reached(self) -> Outcome | None:
        if self._cancel_requested:
            return Outcome.CANCELLED
        if self.step >= self.contract.max_steps:
            return Outcome.VERIFICATION_FAILED if self._verify_failed else Outcome.STEP_CAP_REACHED
        if self.spent >= self.contract.token_budget:
            return Outcome.BUDGET_EXHAUSTED
        return None

    def _finish(self, outcome: Outcome, error: str | None) -> RunResult:
        self.store.finish_run(
            self.run_id,
            outcome=outcome.value,
            steps=self.step,
            spent_tokens=self.spent,
            error=error,
        )
        self.result = RunResult(
            self.run_id,
            outcome,
            self.step,
            self.spent,
            error,
            summary=self._last_words,
            files_changed=tuple(self._files_changed),
        )
        self.observer.run_finished(self, self.result)
        return self.result

    async def _step(self) -> Outcome | None:
        step = self.step + 1
        started = now_iso()
        self.observer.step_started(self, step)
        turn, reply = await self._ask(step)
        self._sent = turn
        self.step = step
        self.spent += _total_tokens(reply, turn.request)
        for refresh in turn.assembly.refreshes if turn.assembly else ():
            self.ledger.apply_refresh(refresh)
        ctx = self._tool_context(step, turn.effective)
        results: list[ToolResult] = []
        end: Outcome | None = None
        interrupted = False
        try:
            if reply.tool_calls:
                await self._run_calls(step, reply.tool_calls, ctx, results)
            elif self.contract.verification.enabled:
                end = await self._verify(step, ctx, results)
            else:
                end = Outcome.FINISHED
        except asyncio.CancelledError:
            if not self._cancel_requested:
                raise
            self._uncancel()
            interrupted = True
        self._commit(step, started, turn, reply, results)
        if interrupted:
            raise _Cancelled
        return end

    async def _ask(self, step: int) -> tuple[_Turn, Reply]:
        """Assemble and send. A context-length rejection is never retried identically: the
        step is retried once with half the effective budget, which also becomes the run's
        ceiling from then on (the model's window is what it is)."""
        effective = effective_tokens(
            self.contract.context_budget, self.contract.token_budget, self.spent
        )
        if self._overflow_cap is not None:
            effective = min(effective, self._overflow_cap)
        turn = self._assemble(step, effective)
        try:
            return turn, await self._call_provider(step, turn)
        except ContextOverflowError as exc:
            smaller = max(1, effective // 2)
            self._overflow_cap = smaller
            self.store.add_events(
                self.run_id,
                step,
                [
                    TraceEvent(
                        "context_overflow",
                        {"effective": effective, "retryWith": smaller, "error": str(exc)},
                    )
                ],
            )
            retry = self._assemble(step, smaller)
            if retry.request == turn.request:
                raise  # nothing to shrink: the same request would be rejected the same way
            retry.events[:0] = turn.events  # both assemblies are in the trace
            return retry, await self._call_provider(step, retry)

    async def _call_provider(self, step: int, turn: _Turn) -> Reply:
        try:
            return await self.provider.complete(
                turn.request, lambda attempt: self.store.record_attempt(self.run_id, step, attempt)
            )
        except asyncio.CancelledError:
            if not self._cancel_requested:
                raise
            self._uncancel()
            raise _Cancelled from None

    def _uncancel(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()

    def _assemble(self, step: int, effective: int) -> _Turn:
        events: list[TraceEvent] = []
        block_text, recalled = "", ()
        if self.memory is not None:
            block = self.memory.block(
                max_chars=effective,
                goal=self.contract.goal,
                touched=self.ledger.touched(),
                step=step,
            )
            block_text, recalled = block.text, tuple(block.recalled)
            events += block.events
        heading = observations_heading(
            step, self.contract.max_steps, self.spent, self.contract.token_budget
        )
        assembly: Assembly | None = None
        if self.naive_context:
            section = assemble_naive(self.ledger, block_text, heading)
        else:
            assembly = assemble(
                self.ledger,
                step=step,
                effective_tokens=effective,
                entry_cap_chars=entry_cap_chars(effective),
                memory_block=block_text,
                refresh=make_refresher(self.workspace, self.gate, entry_cap_chars(effective)),
                heading=heading,
            )
            section = assembly.section
            events += assembly.events
        request = Request.flat(SYSTEM_PROMPT, (self._frame, section), tools=self.schemas)
        est = estimate_tokens(request.chars + self._schema_chars)
        previous = self._sent
        prefix = shared_prefix_chars(previous.request, request) if previous else 0
        breaks = ["memory"] if previous and previous.memory_text != block_text else []
        events.append(_assembled_event(assembly, len(self.ledger), est, effective, recalled))
        events[-1] = TraceEvent(
            "assembled", {**events[-1].detail, "prefixChars": prefix, "breaks": breaks}
        )
        return _Turn(request, assembly, effective, est, recalled, events, block_text, prefix)

    def _tool_context(self, step: int, effective: int) -> ToolContext:
        return ToolContext(
            workspace=self.workspace,
            gate=self.gate,
            run_id=self.run_id,
            step=step,
            read_limit_chars=entry_cap_chars(effective),
            guard=self.guard,
            memory=self.memory,
            env=self.env,
        )

    async def _run_calls(
        self, step: int, calls: Sequence[ToolCall], ctx: ToolContext, results: list[ToolResult]
    ) -> None:
        for call in calls[:MAX_CALLS_PER_TURN]:
            if self._cancel_requested:
                raise asyncio.CancelledError
            self.observer.tool_started(self, step, call, _label(call))
            before = self.ledger.known_paths() if call.name == "exec" else None
            result = await dispatch(call, self.tools, ctx)
            self._observe(step, result)
            results.append(result)
            if before is not None:
                self._detect_exec_changes(step, before)
        for call in calls[MAX_CALLS_PER_TURN:]:
            result = not_run(call, len(calls))
            self._observe(step, result)
            results.append(result)

    def _observe(self, step: int, result: ToolResult) -> None:
        self.ledger.add(step, result)
        for write in result.writes:
            self._files_changed.setdefault(write.path)
            self.ledger.note_change(write.path, Cause.WRITE, step, write.after_hash)
            self.observer.file_written(self, self.workspace.root / write.path)
        for notice in result.notices:
            self.observer.user_warning(self, notice.message)

    def _detect_exec_changes(self, step: int, before: Mapping[str, str | None]) -> None:
        for path, old in before.items():
            new = self.workspace.hash_of(path)
            if new != old:
                self.ledger.note_change(path, Cause.EXEC, step, new)

    async def _verify(
        self, step: int, ctx: ToolContext, results: list[ToolResult]
    ) -> Outcome | None:
        verification = self.contract.verification
        assert verification.argv is not None
        argv = list(verification.argv)
        command = shlex.join(argv)
        # The operator named this command: it needs no approval, but a deny rule still holds.
        self.gate.grant_run(Act.EXEC, command)
        before = self.ledger.known_paths()
        ran = await dispatch(
            ToolCall(id=f"verify_{step}", name="exec", arguments={"argv": argv}), self.tools, ctx
        )
        self._detect_exec_changes(step, before)
        passed = ran.ok and ran.exit_code == verification.expect_exit
        verdict = "passed" if passed else "failed"
        body = ran.text.split("\n", 1)[1] if "\n" in ran.text else ran.text
        result = ToolResult(
            name="verify",
            target=command,
            text=f"{header('verify', command)} {verdict} (expected exit {verification.expect_exit})"
            f"\n{body}",
            ok=passed,
            policy=ran.policy,
        )
        self._observe(step, result)
        results.append(result)
        self._verify_failed = not passed
        return Outcome.SUCCESS if passed else None

    def _commit(
        self, step: int, started: str, turn: _Turn, reply: Reply, results: list[ToolResult]
    ) -> None:
        assembly = turn.assembly
        observations = self.ledger.observations()[-len(results) :] if results else []
        pending, self._pending_events = self._pending_events, []
        record = StepRecord(
            run_id=self.run_id,
            step=step,
            decision=_decision(reply, results),
            content=reply.content,
            prompt=turn.request.messages_json(),
            tool_calls=[{"name": c.name, "arguments": dict(c.arguments)} for c in reply.tool_calls],
            result="\n\n".join(r.text for r in results),
            effective_tokens=turn.effective,
            est_tokens=turn.est_tokens,
            reported_prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            total_tokens=reply.usage.total_tokens,
            started_at=started,
            spent_tokens=self.spent,
            carried=assembly.carried if assembly else len(self.ledger) - len(results),
            stubbed=assembly.stubbed if assembly else 0,
            reread=assembly.reread if assembly else 0,
            recalled=len(turn.recalled),
            observations=[
                ObservationRecord(
                    o.seq, o.kind, o.target, o.ok, o.text, o.read.content_hash if o.read else None
                )
                for o in observations
            ],
            events=[*pending, *turn.events, *(e for r in results for e in r.events)],
            policy=[p for r in results for p in r.policy],
            edits=[w for r in results for w in r.writes],
            recalls=turn.recalled,
        )
        self.store.commit_step(record)
        self._last_words = reply.content if reply.content.strip() else None
        self.last_summary = StepSummary(
            run_id=self.run_id,
            step=step,
            max_steps=self.contract.max_steps,
            spent_tokens=self.spent,
            token_budget=self.contract.token_budget,
            request_tokens=turn.est_tokens,
            context_ceiling=turn.effective,
            reported_prompt_tokens=reply.usage.prompt_tokens,
            carried=record.carried,
            stubbed=record.stubbed,
            reread=record.reread,
            cached_prompt_tokens=reply.usage.cache_read_tokens,
            prefix_chars=turn.prefix_chars,
        )
        self.observer.step_finished(self, self.last_summary)


def _total_tokens(reply: Reply, request: Request) -> int:
    if reply.usage.total_tokens is not None:
        return reply.usage.total_tokens
    return estimate_tokens(request.chars) + estimate_tokens(len(reply.content))


def _label(call: ToolCall) -> str:
    """``read src/a.py``: what a call is about, in the words of the result headers."""
    args = call.arguments
    verb = LABELS.get(call.name, call.name)
    for key in ("path", "pattern", "name_glob", "key"):
        if isinstance(args.get(key), str):
            return f"{verb} {args[key]}"[:200]
    if call.name == "exec" and isinstance(args.get("argv"), list):
        return f"exec {shlex.join(str(a) for a in args['argv'])}"[:200]
    return verb


def _decision(reply: Reply, results: list[ToolResult]) -> str:
    if reply.tool_calls:
        ran = "; ".join(_label(c) for c in reply.tool_calls[:MAX_CALLS_PER_TURN])
        skipped = len(reply.tool_calls) - MAX_CALLS_PER_TURN
        return f"{ran}; (+{skipped:,} not run)" if skipped > 0 else ran
    verdicts = [r for r in results if r.name == "verify"]
    if verdicts:
        return f"stop → verify {'passed' if verdicts[-1].ok else 'failed'}"
    return "stop"


def _assembled_event(
    assembly: Assembly | None,
    observations: int,
    est: int,
    effective: int,
    recalled: tuple[tuple[str, str], ...],
) -> TraceEvent:
    return TraceEvent(
        "assembled",
        {
            "carried": assembly.carried if assembly else observations,
            "stubbed": assembly.stubbed if assembly else 0,
            "reread": assembly.reread if assembly else 0,
            "collapsed": assembly.collapsed if assembly else 0,
            "recalled": len(recalled),
            "estTokens": est,
            "effective": effective,
            "naive": assembly is None,
        },
    )


def not_run(call: ToolCall, made: int) -> ToolResult:
    """The answer to a call past the per-turn limit: not run, and why (§6.1)."""
    target = _label(call).removeprefix(LABELS.get(call.name, call.name)).strip()[:200]
    return ToolResult(
        name=call.name,
        target=target,
        text=(
            f"{header(call.name, target)}\nerror: not run: this turn made {made:,} tool calls "
            f"and at most {MAX_CALLS_PER_TURN} run per turn; call it again in a later turn "
            "if you still need it"
        ),
        ok=False,
    )


def shared_prefix_chars(previous: Request, request: Request) -> int:
    """The characters of ``request.texts()``, in order, that ``request`` shares from the
    start with ``previous``: whole texts while they are equal, then the common start of the
    first pair that differs (a text boundary is a message or block boundary on the wire)."""
    shared = 0
    for old, new in zip(previous.texts(), request.texts(), strict=False):
        if old == new:
            shared += len(new)
            continue
        shared += common_start(old, new)
        break
    return shared


def common_start(a: str, b: str) -> int:
    """Length of the common start of ``a`` and ``b`` (binary search over slice compares, so
    long texts cost C comparisons, not a Python loop per character)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low
