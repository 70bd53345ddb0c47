"""Re-reading a stale read at assembly time, through the same containment and policy as
``read_file`` (§3.3), with the same decoding and line numbering. The answer feeds
``harness.context.assemble``."""

from __future__ import annotations

import contextlib

from harness.context import Refresher, RefreshOutcome
from harness.errors import ContainmentError
from harness.policy import Gate
from harness.tools.access import decode_text, split_lines
from harness.types import Act, ReadSpan, content_hash
from harness.workspace import Workspace


def make_refresher(workspace: Workspace, gate: Gate, limit_chars: int) -> Refresher:
    """A refresher that never asks: an ``ask`` without a run-wide grant is a refusal."""

    def refresh(span: ReadSpan) -> RefreshOutcome:
        try:
            path = workspace.resolve(span.path)
        except ContainmentError as exc:
            return RefreshOutcome(ok=False, reason=f"the re-read was refused: {exc}")
        names = {span.path}
        with contextlib.suppress(ValueError):
            names.add(workspace.relative(path))  # through a symlink, the real name too
        for name in sorted(names):
            decision = gate.check_nowait(Act.READ, name)
            if not decision.allowed:
                return RefreshOutcome(
                    ok=False, reason=f"the re-read was refused: {decision.message}"
                )
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return RefreshOutcome(ok=False, reason="the file no longer exists")
        except IsADirectoryError:
            return RefreshOutcome(ok=False, reason="the path is now a directory")
        except OSError as exc:
            return RefreshOutcome(ok=False, reason=f"the re-read failed: {exc.strerror}")
        text = decode_text(data)
        if text is None:
            return RefreshOutcome(
                ok=False, reason=f"it is now a binary or non-UTF-8 file ({len(data):,} bytes)"
            )
        body = _slice(text, span.offset, span.limit)
        if len(body) > limit_chars:
            return RefreshOutcome(
                ok=False,
                reason=(
                    f"it is now {len(body):,} chars, over the {limit_chars:,}-char limit for "
                    "one read; read it in ranges with offset and limit"
                ),
            )
        return RefreshOutcome(ok=True, text=body, content_hash=content_hash(data))

    return refresh


def _slice(text: str, offset: int | None, limit: int | None) -> str:
    """The body ``read_file`` would show for this range (lines split on ``\\n`` only)."""
    if offset is None and limit is None:
        return text
    lines = split_lines(text)
    start = max(0, (offset or 1) - 1)
    end = len(lines) if limit is None else start + limit
    return "\n".join(lines[start:end])
