"""References answers that went stale (§14, §3 rules 2–3): a ``references`` answer is an
observation about every file it lists; once one of them changes (a write of the run, an
edit on disk) the line numbers the model holds are wrong. After each turn the run's live
answers are checked against the files as they are now; a stale one is asked again — the
same query — and the new answer appended, its head naming the answer it replaces and what
changed (it supersedes the old one by target, so the old copy becomes a pointer). An
answer whose files did not change is left alone; an unchanged re-query by the model is
already a pointer (supersession). A re-query that fails says why, once, and the answer is
no longer watched. After the agent's own ``rename_symbol`` of the watched symbol the query is
asked by the new name; when the places are the answer's, only renamed, the refresh is one
line pointing at that answer (rule 3's own-edit pointer, for references)."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from harness.errors import ContainmentError
from harness.semantic.after import after_turn
from harness.semantic.text import listed_hash, word
from harness.types import ToolCall, ToolResult

if TYPE_CHECKING:
    from harness.ledger import Ledger
    from harness.policy import Gate
    from harness.semantic.model import SemanticPort
    from harness.tools.base import ToolContext
    from harness.workspace import Workspace

KIND = "references"
MAX_WATCHED = 20  # the latest answers (older ones are far back in the context anyway)

Ask = Callable[[ToolCall], Awaitable[ToolResult]]


class Calls(Protocol):
    """What a turn's end asks of the run's calls (the run's ``Toolbox``): its language
    servers, its workspace and gate, and a call run as the model's are."""

    @property
    def semantic(self) -> SemanticPort | None: ...

    @property
    def workspace(self) -> Workspace: ...

    @property
    def gate(self) -> Gate: ...

    async def call(self, call: ToolCall, ctx: ToolContext, ledger: Ledger) -> ToolResult: ...


@dataclass(frozen=True)
class Answered:
    """A live answer: the query that got it, when, and its listed files' hashes then."""

    query: Mapping[str, Any]
    step: int
    listed: Mapping[str, str]
    body: str = ""  # the answer's rows (after its head line)


@dataclass(frozen=True)
class Renamed:
    """The agent's own rename of a symbol: its new name and the step."""

    new_name: str
    step: int


def _answered(result: ToolResult, step: int) -> Answered | None:
    for event in result.events:
        detail = event.detail
        if event.kind == "semantic" and "query" in detail and "listed" in detail:
            body = result.text.partition("\n")[2]
            return Answered(dict(detail["query"]), step, dict(detail["listed"]), body)
    return None


def renames(results: Iterable[ToolResult], step: int) -> dict[str, Renamed]:
    """The successful ``rename_symbol`` calls among ``results``, by the old name."""
    out: dict[str, Renamed] = {}
    for result in results:
        for event in result.events if result.name == "rename_symbol" and result.ok else ():
            got = event.detail.get("renamed") if event.kind == "semantic" else None
            if isinstance(got, Mapping):
                out[str(got["symbol"])] = Renamed(str(got["new_name"]), step)
    return out


class ReferenceWatch:
    """The references answers of one run that may still go stale, by target."""

    def __init__(self) -> None:
        self._live: dict[str, Answered] = {}

    def note(self, results: Iterable[ToolResult], step: int) -> None:
        """Watch the references answers among ``results`` (the latest per target)."""
        for result in results:
            found = _answered(result, step) if result.name == KIND and result.ok else None
            if found is not None:
                self._live.pop(result.target, None)
                self._live[result.target] = found
        while len(self._live) > MAX_WATCHED:
            self._live.pop(next(iter(self._live)))

    async def refresh(
        self,
        workspace: Workspace,
        ask: Ask,
        step: int,
        renamed: Mapping[str, Renamed] | None = None,
    ) -> list[ToolResult]:
        """The stale answers asked again (one appended result each); ``renamed``: the
        turn's own renames, by old name (such an answer is asked by its new name)."""
        out: list[ToolResult] = []
        for target, answered in list(self._live.items()):
            changed = await asyncio.to_thread(_changed, workspace, answered.listed)
            if not changed:
                continue
            rename = (renamed or {}).get(str(answered.query.get("symbol")))
            call = ToolCall(f"refresh-{step}-{len(out)}", KIND, _query(answered.query, rename))
            got = await ask(call)
            if rename is None:
                result = _headed(got, step, answered.step, changed)
            else:
                result = _after_rename(got, step, answered, rename)
            self._live.pop(target, None)
            self.note([result], step)  # watched again with its new hashes (if it answered)
            out.append(result)
        return out


async def turn_end(
    watch: ReferenceWatch,
    box: Calls,
    ctx: ToolContext,
    ledger: Ledger,
    results: Sequence[ToolResult],
) -> list[ToolResult]:
    """What the loop appends after a turn's calls: the stale references answers asked
    again, then the diagnostics the turn's writes introduced (``after.after_turn``)."""
    port = box.semantic
    if port is None:
        return []
    watch.note(results, ctx.step)
    ask: Ask = lambda call: box.call(call, ctx, ledger)  # noqa: E731
    entries = await watch.refresh(box.workspace, ask, ctx.step, renames(results, ctx.step))
    writes = [w for r in results for w in r.writes]
    found = await after_turn(
        port,
        box.workspace,
        box.gate,
        writes=writes,
        step=ctx.step,
        wait_ms=port.after_edit_wait_ms(),
    )
    return entries if found is None else [*entries, found]


def _changed(workspace: Workspace, listed: Mapping[str, str]) -> list[str]:
    out = []
    for path, was in listed.items():
        try:
            now = listed_hash(workspace.read_bytes(path).decode("utf-8"))
        except (ContainmentError, OSError, UnicodeDecodeError):
            now = None
        if now != was:
            out.append(path)
    return out


def _headed(result: ToolResult, step: int, answered: int, changed: list[str]) -> ToolResult:
    """``result`` with its head naming the answer it replaces and why (rule 3's wording)."""
    files = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
    why = f"(refreshed at step {step}: {files} changed since the answer at step {answered})"
    head, sep, rest = result.text.partition("\n")
    return dataclasses.replace(result, text=f"{head} {why}{sep}{rest}")


def _query(query: Mapping[str, Any], rename: Renamed | None) -> dict[str, Any]:
    """The watched query, asked by the new name after the agent renamed its symbol."""
    if rename is None:
        return dict(query)
    quoted = word(str(query["symbol"])).sub(rename.new_name, str(query["line_content"]))
    return {**query, "symbol": rename.new_name, "line_content": quoted}


ROW = re.compile(r"^(\S.*?:\d+): ")  # "path:line: text" (``reference_rows``)


def _places(body: str) -> list[str]:
    """An answer's places: ``path:line`` per row, other lines whole."""
    return [m.group(1) if (m := ROW.match(line)) else line for line in body.splitlines()]


def _after_rename(result: ToolResult, step: int, answered: Answered, rename: Renamed) -> ToolResult:
    """The answer asked by the new name after the agent's own rename: one line when its
    places are the old answer's with the name replaced, else the new answer, headed."""
    old = str(answered.query["symbol"])
    why = f"(refreshed at step {step}: your rename at step {rename.step} renamed {old} to it"
    head, sep, rest = result.text.partition("\n")
    if result.ok and _places(rest) == _places(word(old).sub(rename.new_name, answered.body)):
        text = f"{head} {why}; the same places as listed at step {answered.step})"
        return dataclasses.replace(result, text=text)
    text = f"{head} {why}; the answer at step {answered.step} is out of date){sep}{rest}"
    return dataclasses.replace(result, text=text)


__all__ = ["Answered", "ReferenceWatch", "Renamed", "renames", "turn_end"]
