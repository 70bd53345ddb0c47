"""A run's context without the loop: a ledger, a bounded (or naive) assembler, and an
in-memory disk that answers reads and re-reads the way ``read_file`` does (ranged header
``[read PATH:A-B]``, ``ReadSpan.shown_hash`` of the text shown). Used by the context
tests and benchmarks; the assembler under test is the real one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.context import (
    BoundedContext,
    Emission,
    NaiveContext,
    RefreshOutcome,
    RunFrame,
    Wire,
)
from harness.ledger import Cause, Ledger
from harness.types import ReadSpan, ToolCall, ToolResult, content_hash

SYSTEM = "You are a test agent."
FRAME = "# Task\nDo the thing."


def body_of(text: str, offset: int | None, limit: int | None) -> str:
    lines = text.split("\n")
    if offset is None and limit is None:
        return text
    start = (offset or 1) - 1
    end = len(lines) if limit is None else start + limit
    return "\n".join(lines[start:end])


class Disk:
    """Files by path; the refresh callback over them (refusals on demand)."""

    def __init__(self, files: dict[str, str] | None = None) -> None:
        self.files: dict[str, str] = dict(files or {})
        self.refuse: dict[str, str] = {}
        self.calls: list[ReadSpan] = []

    def read(self, path: str, offset: int | None = None, limit: int | None = None) -> ToolResult:
        text = self.files[path]
        body = body_of(text, offset, limit)
        head = f"[read {path}]"
        if offset is not None or limit is not None:
            first = offset or 1
            last = first + body.count("\n")
            head = f"[read {path}:{first}-{last}]"
        span = ReadSpan(
            path, offset, limit, content_hash(text.encode()), content_hash(body.encode())
        )
        return ToolResult("read_file", path, f"{head}\n{body}", read=span)

    def __call__(self, span: ReadSpan) -> RefreshOutcome:
        self.calls.append(span)
        if span.path in self.refuse:
            return RefreshOutcome(
                ok=False, reason=f"the re-read was refused: {self.refuse[span.path]}"
            )
        if span.path not in self.files:
            return RefreshOutcome(ok=False, reason="the file no longer exists")
        text = self.files[span.path]
        body = body_of(text, span.offset, span.limit)
        return RefreshOutcome(
            ok=True,
            text=body,
            content_hash=content_hash(text.encode()),
            shown_hash=content_hash(body.encode()),
        )


def grep(pattern: str, body: str) -> ToolResult:
    return ToolResult("grep", pattern, f"[grep {pattern}]\n{body}")


def arguments_for(result: ToolResult) -> dict[str, Any]:
    if result.read is not None:
        args: dict[str, Any] = {"path": result.read.path}
        if result.read.offset is not None:
            args["offset"] = result.read.offset
        if result.read.limit is not None:
            args["limit"] = result.read.limit
        return args
    return {"pattern": result.target} if result.name == "grep" else {"target": result.target}


class Session:
    """Drive a run: ``send()`` assembles and commits the next request; ``act(...)``
    records the model's turn (its words and one call per result) and the results."""

    def __init__(
        self,
        *,
        effective: int = 24_000,
        low_water: float = 0.6,
        wire: Wire = Wire.TRANSCRIPT,
        memory: str | Callable[[], str] = "",
        files: dict[str, str] | None = None,
        naive: bool = False,
        max_steps: int = 100,
    ) -> None:
        self.ledger = Ledger()
        self.disk = Disk(files)
        frame = RunFrame(SYSTEM, FRAME, wire=wire)
        self.engine: BoundedContext | NaiveContext = (
            NaiveContext(self.ledger, frame)
            if naive
            else BoundedContext(self.ledger, frame, low_water=low_water)
        )
        self.effective = effective
        self.memory = memory
        self.max_steps = max_steps
        self.step = 0
        self.sent: list[Emission] = []

    def trailer(self, step: int) -> str:
        return f"# Step {step} of {self.max_steps} — {step * 1_000:,} tokens spent. Act."

    def send(self, effective: int | None = None, *, cold: bool = False) -> Emission:
        """``cold``: the provider's cache expired since the last request (bounded only)."""
        self.step += 1
        more = {"cold": cold} if cold else {}
        emission = self.engine.assemble(
            step=self.step,
            effective_tokens=effective or self.effective,
            trailer=self.trailer(self.step),
            refresh=self.disk,
            memory=self.memory,
            **more,
        )
        self.engine.commit(emission)
        self.sent.append(emission)
        return emission

    def act(
        self,
        *results: ToolResult,
        words: str = "",
        arguments: list[dict[str, Any]] | None = None,
    ) -> list[ToolCall]:
        calls = [
            ToolCall(
                f"call_{self.step}_{i}",
                r.name,
                arguments[i] if arguments is not None else arguments_for(r),
            )
            for i, r in enumerate(results)
        ]
        self.ledger.add_turn(self.step, words, tuple(calls))
        for call, result in zip(calls, results, strict=True):
            self.ledger.add(self.step, result, call_id=call.id)
        return calls

    def write(self, path: str, text: str, cause: Cause = Cause.WRITE, *, own: bool = False) -> None:
        """A change of ``path``; ``own``: the agent's write, with the hash it replaced (as
        the loop records it), so rule 3 may point at the call."""
        before = self.disk.files.get(path)
        self.disk.files[path] = text
        old = content_hash(before.encode()) if own and before is not None else None
        self.ledger.note_change(path, cause, self.step, content_hash(text.encode()), old)

    def observe(self, result: ToolResult) -> None:
        """A result no call asked for (the verification)."""
        self.ledger.add(self.step, result)


def having_read(rel: str, **options: Any) -> Session:
    """A ``Session(**options)`` whose step 1 was sent and read ``rel`` whole: the next
    ``send`` is step 2's."""
    s = Session(**options)
    s.send()
    s.act(s.disk.read(rel))
    return s
