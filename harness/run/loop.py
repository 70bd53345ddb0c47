"""The agent loop (§8): ask the model, run the tools it calls, observe, commit the step,
stop on an outcome. One ``Run`` per task, built by ``harness.run.session``.

A step commits in one transaction (``Store.commit_step``), so a crash leaves whole steps.
``Run.cancel`` stops at the next safe point: an in-flight model call, approval or command
is interrupted; a step whose tools already ran is committed with what they did. Whatever
goes wrong inside the loop ends the run with a recorded outcome and error: ``execute``
returns a result (only a cancellation by the host itself propagates, after recording).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.context.ceiling import Ceiling
from harness.contract import TaskContract
from harness.errors import ContextOverflowError, StoreError
from harness.ledger import Cause, Observation
from harness.pricing import Pricer, RunCost
from harness.report import CallCounts, RunInfo, RunObserver, RunResult, StepSummary
from harness.run.assembly import AskState, Assembled, Assembler
from harness.run.steering import Steering
from harness.run.steps import StepDone, step_record, step_summary
from harness.run.stops import stopped_by
from harness.run.toolbox import MAX_CALLS_PER_TURN, Toolbox, label, not_run
from harness.run.verify import verify
from harness.semantic.stale import ReferenceWatch, turn_end
from harness.store import Store
from harness.store.base import now_iso
from harness.tokens import estimate_tokens
from harness.tools.base import ToolContext
from harness.types import (
    Attempt,
    Outcome,
    Provider,
    Reply,
    RunEnd,
    ToolCall,
    ToolResult,
    TraceEvent,
    content_hash,
)

log = logging.getLogger(__name__)


class _Cancelled(Exception):
    """Raised inside a step when ``Run.cancel`` interrupted it."""


class Run:
    """One task over one workspace whose run row ``run_id`` exists: ``await run.execute()``."""

    def __init__(
        self,
        contract: TaskContract,
        run_id: int,
        *,
        store: Store,
        provider: Provider,
        toolbox: Toolbox,
        assembler: Assembler,
        observer: RunObserver | None = None,
        pricer: Pricer | None = None,
        conversation: tuple[int, int] | None = None,
    ) -> None:
        """``conversation``: (its id, this run's turn) for a follow-up (§11)."""
        self.contract, self.run_id = contract, run_id
        self.info = RunInfo.of(run_id, contract, *(conversation or (run_id, 1)))
        self.store, self.provider, self.toolbox = store, provider, toolbox
        self.assembler = assembler
        self.observer = observer or RunObserver()
        self.ledger = assembler.ledger  # what the run observed; the assembler reads it
        self.step = self.spent = 0  # steps committed, tokens spent
        self.last_summary: StepSummary | None = None
        self.result: RunResult | None = None
        self._last_words: str | None = None
        self._written: dict[str, None] = {}  # files the run wrote, an ordered set
        self.cost = RunCost(pricer)  # the run's dollars so far (§11)
        self.calls = CallCounts()  # the model's calls refused, denied, failed
        self._pending: list[TraceEvent] = []  # changes noted between steps
        self._overflow_cap: int | None = None
        self.verify_failed = False  # the last verification failed
        self.cancel_requested = False  # set by cancel(); read at each safe point
        self._task: asyncio.Task[Any] | None = None
        self.steering = Steering()  # the user's words while it goes on; a step ending heeds them
        self.references = ReferenceWatch()  # its references answers that may go stale (§14)

    def cancel(self) -> None:
        """Stop at the next safe point; the outcome is ``cancelled``."""
        self.cancel_requested = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def notify_changed(self, paths: Iterable[str | Path], cause: str = "disk") -> int:
        """Files changed outside the agent (editor save, formatter, git). Returns how many
        changes could invalidate something the model saw. Safe to call from any thread."""
        count = 0
        for rel in filter(None, map(self.toolbox.relative, paths)):
            new_hash = self.toolbox.workspace.hash_of(rel)
            if self.ledger.note_change(rel, Cause(cause), self.step, new_hash):
                count += 1
                detail = {"path": rel, "cause": cause, "hash": new_hash}
                self._pending.append(TraceEvent("changed", detail))
        return count

    async def execute(self) -> RunResult:
        self._task = asyncio.current_task()
        outcome: Outcome | None = None
        error: str | None = None
        try:
            self.observer.run_started(self.info)
            for message in self.toolbox.warnings:
                self.observer.user_warning(self.info, message)
            while outcome is None:
                outcome = _limit_reached(self) or await self._step(self.step + 1)
        except _Cancelled:
            outcome = Outcome.CANCELLED
        except asyncio.CancelledError:
            # Not ours (the host is shutting down): record, then let it propagate.
            self._finish(Outcome.CANCELLED, "the host stopped the run")
            raise
        except Exception as exc:  # recorded as the run's end, not raised (harness.run.stops)
            outcome, error = stopped_by(self.run_id, exc)
        return self._finish(outcome, error)

    def _finish(self, outcome: Outcome, error: str | None) -> RunResult:
        end = RunEnd(outcome, self.step, self.spent, error)
        self.result = _result(self, end)
        _record_end(self.store, self.observer, self.info, self.result)
        return self.result

    async def _step(self, step: int) -> Outcome | None:
        started = now_iso()
        self.observer.step_started(self.info, step)
        turn, reply = await self._ask(step)
        self.observer.model_replied(self.info, step, reply)
        self.spent += _total_tokens(reply, turn)
        self.cost.add(reply.usage)
        self.ledger.add_turn(step, reply.content, reply.tool_calls[:MAX_CALLS_PER_TURN])
        ceiling = Ceiling(turn.effective)
        ctx = self.toolbox.context(self.run_id, step, ceiling.entry_cap)
        taken = _Taken()
        end: Outcome | None = None
        verified: bool | None = None
        try:
            with _interruptible(self):
                if reply.tool_calls:
                    await self._run_calls(reply.tool_calls, ctx, taken, ceiling)
                elif self.contract.verification.enabled:
                    verified = await self._verify(ctx, taken)
                    end = Outcome.SUCCESS if verified else None
                else:
                    end = Outcome.FINISHED
        except _Cancelled:  # commit what ran, then stop
            end = Outcome.CANCELLED
        if self.steering.pending and end in (None, Outcome.FINISHED, Outcome.SUCCESS):
            self.steering.deliver(step, self.ledger, self.observer, self.info)
            end = None  # the model hears the words before the run ends
        results, observed = (*taken.results,), (*taken.observed,)
        done = StepDone(step, started, turn, reply, results, observed, verified, self.spent)
        self._commit(done)
        if end is Outcome.CANCELLED:
            raise _Cancelled
        return end

    async def _verify(self, ctx: ToolContext, taken: _Taken) -> bool:
        argv = self.contract.verification.argv or ()
        self.observer.verification_started(self.info, ctx.step, shlex.join(argv))
        verdict = await verify(self.contract.verification, self.toolbox, ctx, self.ledger)
        taken.add(verdict.result, self._observe(ctx.step, verdict.result))
        self.observer.verification_finished(self.info, ctx.step, verdict.result)
        self.verify_failed = not verdict.passed
        return verdict.passed

    async def _ask(self, step: int) -> tuple[Assembled, Reply]:
        """Assemble and send; the assembler commits once the provider accepted the request.
        A context-length rejection is never retried identically: the step is assembled again
        with half the effective budget, the run's ceiling from then on (the model's window)."""
        effective = Ceiling.of(self.contract, self.spent, cap=self._overflow_cap).effective
        state = AskState(step, effective, self.spent)
        turn = self.assembler.assemble(state)
        try:
            reply = await self._call_provider(step, turn)
        except ContextOverflowError as exc:
            smaller = self._overflow_cap = max(1, effective // 2)
            detail = {"effective": effective, "retryWith": smaller, "error": str(exc)}
            self.store.add_events(self.run_id, step, [TraceEvent("context_overflow", detail)])
            retry = self.assembler.assemble(replace(state, effective=smaller))
            if retry.request == turn.request:
                raise  # nothing to shrink: the same request would be rejected the same way
            reply = await self._call_provider(step, retry)
            turn = replace(retry, events=(*turn.events, *retry.events))  # both in the trace
            self.assembler.commit(retry)
            return turn, reply
        self.assembler.commit(turn)
        return turn, reply

    async def _call_provider(self, step: int, turn: Assembled) -> Reply:
        self.observer.model_asked(self.info, step, turn.request)
        _tell_refreshed(self.observer, self.info, step, turn)
        with _interruptible(self):
            return await self.provider.complete(turn.request, _ModelCall(self, step))

    async def _run_calls(
        self, calls: Sequence[ToolCall], ctx: ToolContext, taken: _Taken, ceiling: Ceiling
    ) -> None:
        for call in calls[:MAX_CALLS_PER_TURN]:
            if self.cancel_requested:
                raise asyncio.CancelledError
            self.observer.tool_started(self.info, ctx.step, call, label(call))
            result = await self.toolbox.call(call, ctx, self.ledger)
            taken.add(result, self._observe(ctx.step, result, call.id))
            self.calls = self.calls.counted(result)
            self.observer.tool_finished(self.info, ctx.step, call, result)
        await _folder_instructions(self, calls[:MAX_CALLS_PER_TURN], ctx, taken, ceiling)
        await _diagnostics_after(self, ctx, taken)
        if len(calls) > MAX_CALLS_PER_TURN:  # each answered in the store, once to the model
            for call in calls[MAX_CALLS_PER_TURN:]:
                taken.results.append(skipped := not_run(call, len(calls)))
                self.calls = self.calls.counted(skipped)
                self.observer.tool_finished(self.info, ctx.step, call, skipped)
            note = _not_run_note(calls[MAX_CALLS_PER_TURN:], len(calls))
            taken.observed.append(self._observe(ctx.step, note))

    def _observe(self, step: int, result: ToolResult, call_id: str | None = None) -> Observation:
        observation = self.ledger.add(step, result, call_id)
        for write in result.writes:
            self._written.setdefault(write.path)
            before = content_hash(write.before) if write.before is not None else None
            self.ledger.note_change(write.path, Cause.WRITE, step, write.after_hash, before)
            self.observer.file_written(self.info, self.toolbox.workspace.root / write.path)
        for notice in result.notices:
            self.observer.user_warning(self.info, notice.message)
        return observation

    def _commit(self, done: StepDone) -> None:
        pending, self._pending = self._pending, []
        context = self.assembler.snapshot()
        self.store.commit_step(step_record(self.run_id, done, pending, context))
        self.step = done.step  # whole steps only: what the store holds is what the run did
        # The run's summary: the model's last words, the observation its last turn left.
        self._last_words = done.reply.content if done.reply.content.strip() else None
        summary, usd, cached = step_summary(self.info, done), self.cost.usd, self.cost.cached_usd
        vs = self.assembler.vs_append
        self.last_summary = replace(
            summary, cost_usd=usd, cached_cost_usd=cached, context_vs_append=vs
        )
        self.observer.step_finished(self.info, self.last_summary)


def _result(run: Run, end: RunEnd) -> RunResult:
    info = run.info
    return RunResult(
        run.run_id,
        end,
        run.cost.usd,
        run._last_words,
        (*run._written,),
        run.calls,
        conversation_id=info.conversation_id,
        turn=info.turn,
    )


class _ModelCall:
    """The sink of one step's model call (a ``ReplySink``): each attempt to the store and
    the observer; the model's words, as they arrive, to the observer."""

    def __init__(self, run: Run, step: int) -> None:
        self.run, self.step = run, step

    def __call__(self, attempt: Attempt) -> None:
        self.run.store.record_attempt(self.run.run_id, self.step, attempt)
        self.run.observer.attempt_made(self.run.info, self.step, attempt)

    def text(self, delta: str) -> None:
        self.run.observer.text_delta(self.run.info, self.step, delta)


def _tell_refreshed(observer: RunObserver, info: RunInfo, step: int, turn: Assembled) -> None:
    """The files whose changes this turn's request carries (§3 rule 3 ``reread`` events)."""
    for event in turn.events:
        if event.kind == "reread":
            path, read_step, cause = (
                event.detail[k] for k in ("path", "readStep", "invalidatedBy")
            )
            observer.file_refreshed(info, step, str(path), int(read_step), str(cause))


@dataclass
class _Taken:
    """What a step's calls returned (for the store) and what the ledger recorded of it."""

    results: list[ToolResult] = field(default_factory=list)
    observed: list[Observation] = field(default_factory=list)

    def add(self, result: ToolResult, observation: Observation) -> None:
        self.results.append(result)
        self.observed.append(observation)


async def _diagnostics_after(run: Run, ctx: ToolContext, taken: _Taken) -> None:
    """After a turn: stale references answers asked again, what its writes broke (§14)."""
    for entry in await turn_end(run.references, run.toolbox, ctx, run.ledger, taken.results):
        taken.observed.append(run._observe(ctx.step, entry))


async def _folder_instructions(
    run: Run, calls: Sequence[ToolCall], ctx: ToolContext, taken: _Taken, ceiling: Ceiling
) -> None:
    """The instructions files (``AGENTS.md``) of the folders these calls first worked in,
    appended after the turn's tool results as reads of their own (§12)."""
    folders = run.toolbox.instructions
    if folders is None:
        return
    results = list(taken.results)
    found = await asyncio.to_thread(folders.after, list(calls), results, ceiling)
    for result in found:
        taken.add(result, run._observe(ctx.step, result))


def _limit_reached(run: Run) -> Outcome | None:
    """The outcome that ends ``run`` before its next step, if one does."""
    if run.cancel_requested:
        return Outcome.CANCELLED
    if run.step >= run.contract.max_steps:
        return Outcome.VERIFICATION_FAILED if run.verify_failed else Outcome.STEP_CAP_REACHED
    if run.spent >= run.contract.token_budget:
        return Outcome.BUDGET_EXHAUSTED
    return None


@contextlib.contextmanager
def _interruptible(run: Run) -> Iterator[None]:
    """A cancellation ``run.cancel`` asked for becomes ``_Cancelled`` (the task is
    uncancelled: the loop goes on to record it); the host's own propagates as it is."""
    try:
        yield
    except asyncio.CancelledError:
        if not run.cancel_requested:
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        raise _Cancelled from None


def _record_end(store: Store, observer: RunObserver, info: RunInfo, result: RunResult) -> None:
    """The run row and the observer learn the result; neither failing hides it."""
    try:
        store.finish_run(info.run_id, result.end)
    except StoreError as exc:
        log.error("could not record the end of run %d: %s", info.run_id, exc)
    except Exception:
        log.exception("could not record the end of run %d", info.run_id)
    try:
        observer.run_finished(info, result)
    except Exception:
        log.exception("the observer of run %d failed at its end", info.run_id)


def _not_run_note(calls: Sequence[ToolCall], made: int) -> ToolResult:
    """What the model is told of the calls past the per-turn limit, once (they are not in
    its turn as sent: a call on the wire needs its answer)."""
    names = ", ".join(label(c) for c in calls[:3]) + (", …" if len(calls) > 3 else "")
    return ToolResult(
        "not_run",
        "",
        f"[not run] error: not run: this turn made {made:,} tool calls and at most "
        f"{MAX_CALLS_PER_TURN} run per turn; the other {len(calls):,} ({names}) did not run. "
        "Call them again in a later turn if you still need them.",
        ok=False,
    )


def _total_tokens(reply: Reply, turn: Assembled) -> int:
    if reply.usage.total_tokens is not None:
        return reply.usage.total_tokens
    return estimate_tokens(turn.request.chars) + estimate_tokens(len(reply.content))


__all__ = ["Run"]
