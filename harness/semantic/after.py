"""Diagnostics after a turn that wrote files (§14): once per model turn, the errors and
warnings the turn's writes introduced — each written file's diagnostics before the turn
(its text before the first write) against after (its text now), the new ones only — as
one appended entry ``[diagnostics] (after the writes at step N)``; nothing when there are
none, when nothing was written, or when ``diagnosticsAfterEdit = "off"``. Also
``diagnostics_now``: the current diagnostics of some files (for a caller that changed
them another way, e.g. an undo)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import ContainmentError
from harness.semantic.format import SHOWN_SEVERITIES, diagnostic_rows
from harness.semantic.model import Diagnostic, SemanticPort, SemanticUnavailable
from harness.types import Act, FileWrite, ToolResult

if TYPE_CHECKING:
    from harness.policy import Gate
    from harness.workspace import Workspace

MAX_FILES = 10
KIND = "diagnostics"


def _key(d: Diagnostic) -> tuple[str, str, str]:
    return (d.severity.value, " ".join(d.message.split()), d.source)


def introduced(before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of ``after`` that ``before`` did not have (compared by severity,
    message and source, not by line: the turn's edits move lines)."""
    left = Counter(_key(d) for d in before)
    new: list[Diagnostic] = []
    for d in after:
        if d.severity not in SHOWN_SEVERITIES:
            continue
        if left[_key(d)] > 0:
            left[_key(d)] -= 1
        else:
            new.append(d)
    return new


def _firsts(writes: Iterable[FileWrite]) -> dict[str, bytes | None]:
    """Each written file's bytes before the turn's first write of it."""
    firsts: dict[str, bytes | None] = {}
    for w in writes:
        firsts.setdefault(w.path, w.before)
    return firsts


def _decode(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def _delta(
    port: SemanticPort, workspace: Workspace, path: str, before: bytes | None, wait_ms: int
) -> list[Diagnostic]:
    """The diagnostics the writes of ``path`` introduced; the before and the after text are
    asked at once (a port that cannot answer both of one file at once queues them)."""
    try:
        now = await asyncio.to_thread(workspace.read_bytes, path)
    except (ContainmentError, OSError):
        return []
    after_text = _decode(now)
    if after_text is None:
        return []
    before_text = _decode(before)
    if before_text is None:
        return introduced((), await port.diagnostics(path, after_text, wait_ms))
    old, new = await asyncio.gather(
        port.diagnostics(path, before_text, wait_ms), port.diagnostics(path, after_text, wait_ms)
    )
    return introduced(old, new)


async def _unless_unavailable(work: Awaitable[list[Diagnostic]]) -> list[Diagnostic]:
    try:
        return await work
    except SemanticUnavailable:
        return []


def _readable(gate: Gate, path: str) -> bool:
    decision = gate.settle(Act.READ, path)
    return decision is not None and decision.allowed


async def diagnostics_now(
    port: SemanticPort, workspace: Workspace, gate: Gate, paths: Iterable[str], wait_ms: int
) -> list[Diagnostic]:
    """The current errors and warnings of ``paths`` (the ones the read policy allows), as
    the servers see the files on disk now — e.g. after an undo changed them."""
    readable = [p for p in dict.fromkeys(paths) if _readable(gate, p)]
    found = await asyncio.gather(*(_now(port, workspace, p, wait_ms) for p in readable))
    return [d for got in found for d in got]


async def _now(
    port: SemanticPort, workspace: Workspace, path: str, wait_ms: int
) -> list[Diagnostic]:
    try:
        text = _decode(await asyncio.to_thread(workspace.read_bytes, path))
        got = await port.diagnostics(path, text, wait_ms) if text is not None else ()
    except (ContainmentError, OSError, SemanticUnavailable):
        return []
    return [d for d in got if d.severity in SHOWN_SEVERITIES]


async def after_turn(
    port: SemanticPort | None,
    workspace: Workspace,
    gate: Gate,
    *,
    writes: Sequence[FileWrite],
    step: int,
    wait_ms: int | None,
) -> ToolResult | None:
    """The turn's entry, or None (nothing written, nothing new, switched off)."""
    if port is None or wait_ms is None or not writes:
        return None
    firsts = [(p, b) for p, b in list(_firsts(writes).items())[:MAX_FILES] if _readable(gate, p)]
    deltas = await asyncio.gather(
        *(_unless_unavailable(_delta(port, workspace, p, b, wait_ms)) for p, b in firsts)
    )
    found = [d for delta in deltas for d in delta]
    if not found:
        return None
    head = f"[{KIND}] (after the writes at step {step})"
    return ToolResult(KIND, "", "\n".join([head, *diagnostic_rows(found)]))


async def diagnostics_introduced(
    port: SemanticPort,
    root: Path,
    before: Mapping[str, bytes | None],
    wait_ms: int,
    others: Sequence[str] = (),
) -> list[Diagnostic] | None:
    """The errors and warnings each of ``before``'s files (workspace-relative, with its
    bytes before a change) has now that it did not have then — e.g. after an undo (issue
    33) — and those the change brought to ``others`` (files it did not change, e.g. the
    rest of the run's files: ``harness.semantic.beside``). Only files the read policy
    allows; None when no server answered for any."""
    from harness.policy import Gate, Policy
    from harness.policy.approval import UnavailableApprover
    from harness.workspace import Workspace

    gate = Gate(Policy.load(root), UnavailableApprover(), run_id=0)
    workspace = Workspace(root)
    found: list[Diagnostic] = []
    answered = False
    for path, old in before.items():
        if not _readable(gate, path):
            continue
        try:
            found += await _delta(port, workspace, path, old, wait_ms)
            answered = True
        except SemanticUnavailable:
            continue
    if answered:
        from harness.semantic.beside import others_then_and_now

        readable = [p for p in others if p not in before and _readable(gate, p)]
        changed = {p: b for p, b in before.items() if _readable(gate, p)}
        pairs = await others_then_and_now(port, workspace, changed, readable, wait_ms)
        found += [d for old, new in pairs for d in introduced(old, new)]
    return found if answered else None


__all__ = ["after_turn", "diagnostics_introduced", "diagnostics_now", "introduced"]
