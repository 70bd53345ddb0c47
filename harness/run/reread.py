"""Re-reading a stale read at assembly time, through the same containment and policy as
``read_file`` (§3.3), and through the same ``read_span`` with the same cap
(``Ceiling.read_cap``, ``harness.tools.span.read_body_cap``) — the same decoding,
numbering and partial rule — so a refresh shows the very lines the read showed, and its
``shown_hash`` is comparable with the read's. The answer feeds ``harness.context``."""

from __future__ import annotations

from harness.context import Ceiling, Refresher, RefreshOutcome
from harness.errors import ContainmentError
from harness.policy import Gate
from harness.tools.access import display_path, open_error, real_name
from harness.tools.span import SpanError, read_span
from harness.types import Act, ReadSpan
from harness.workspace import Workspace


def make_refresher(workspace: Workspace, gate: Gate, ceiling: Ceiling) -> Refresher:
    """A refresher that never asks: an ``ask`` without a run-wide grant is a refusal."""

    def refresh(span: ReadSpan) -> RefreshOutcome:
        try:
            rel = real_name(workspace, span.path)
        except ContainmentError as exc:
            return RefreshOutcome(ok=False, reason=f"the re-read was refused: {exc}")
        except NotADirectoryError:
            return RefreshOutcome(ok=False, reason="the file no longer exists")
        for name in dict.fromkeys((span.path, rel)):  # through a symlink, the real name too
            decision = gate.check_nowait(Act.READ, name)
            if not decision.allowed:
                return RefreshOutcome(
                    ok=False, reason=f"the re-read was refused: {decision.message}"
                )
        cap = ceiling.read_cap(display_path(span.path))
        try:
            with workspace.open_file(span.path) as f:
                if f.rel != rel:
                    return RefreshOutcome(ok=False, reason="the file changed while it was opened")
                shown = read_span(f, span.offset, span.limit, cap, f"`{span.path}`")
        except SpanError as exc:
            return RefreshOutcome(ok=False, reason=f"it can no longer be read: {exc}")
        except FileNotFoundError:
            return RefreshOutcome(ok=False, reason="the file no longer exists")
        except IsADirectoryError:
            return RefreshOutcome(ok=False, reason="the path is now a directory")
        except (ContainmentError, OSError) as exc:
            reason = f"the re-read failed: {open_error('read_file', span.path, exc)}"
            return RefreshOutcome(ok=False, reason=reason)
        return RefreshOutcome(
            ok=True,
            text=shown.body,
            content_hash=shown.content_hash,
            shown_hash=shown.shown_hash,
        )

    return refresh


__all__ = ["make_refresher"]
