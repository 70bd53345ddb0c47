"""The checks every path-taking tool makes before it touches a file: containment first, then
the policy; and how file bytes are judged to be text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.errors import ContainmentError
from harness.tools.base import ToolContext, failure
from harness.types import Act, Effect, PolicyEvent, ToolResult, normalize_path

BINARY_SNIFF_BYTES = 8192


@dataclass(frozen=True)
class Access:
    """A path the tool may use: the resolved path, the relative path on disk, and the policy
    events (an ask and its answer) to carry on the result."""

    path: Path
    rel: str
    policy: tuple[PolicyEvent, ...] = ()


def display_path(raw: str) -> str:
    """The subject of a result: the requested path, normalised (``./a.py`` is ``a.py``)."""
    return normalize_path(raw) if "\x00" not in raw else repr(raw)


async def authorize(
    kind: str, raw: str, act: Act, ctx: ToolContext, *, for_write: bool = False
) -> Access | ToolResult:
    """Containment, then the policy for every name the file goes by (the requested path and,
    through a symlink, the real one): a deny of either refuses. Returns the refusal as a
    result so the caller can hand it straight back."""
    target = display_path(raw)
    try:
        path = ctx.workspace.resolve(raw, for_write=for_write)
    except ContainmentError as exc:
        event = PolicyEvent(act, target, Effect.DENY, None, "containment", False, str(exc))
        return failure(kind, target, f"{exc}", policy=(event,))
    rel = ctx.workspace.relative(path)
    events: list[PolicyEvent] = []
    for subject in dict.fromkeys((target, rel)):
        decision = await ctx.gate.check(act, subject)
        if decision.event is not None:
            events.append(decision.event)
        if not decision.allowed:
            return failure(kind, target, decision.message, policy=tuple(events))
    return Access(path, rel, tuple(events))


def is_binary(data: bytes) -> bool:
    """A NUL byte in the first 8 KB, as git and grep decide."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def decode_text(data: bytes) -> str | None:
    """The text of a file, or None when it is binary or not UTF-8."""
    if is_binary(data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def binary_refusal(kind: str, target: str, size: int, what: str) -> ToolResult:
    return failure(
        kind,
        target,
        f"`{target}` is a binary or non-UTF-8 file ({size:,} bytes); {what} works on text "
        "files only",
    )


def split_lines(text: str) -> list[str]:
    """Lines as editors and grep number them: split on ``\\n`` only; no trailing empty line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


__all__ = [
    "Access",
    "authorize",
    "binary_refusal",
    "decode_text",
    "display_path",
    "is_binary",
    "split_lines",
]
