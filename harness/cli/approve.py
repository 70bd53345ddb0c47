"""The terminal approver (§6.3, §8): a policy ``ask`` on the command line becomes a prompt
on stderr — Allow once / Allow for this run / Deny / View — read from stdin.

The prompt shows the target whole up to ``PREVIEW_CHARS`` characters, control characters
escaped and newlines as ``⏎`` (``harness.policy.approval``); a longer one says how many
characters are hidden and that ``v`` shows them. ``v`` prints the whole target, one line per
line of the command, then asks again. Deny is the default; a closed stdin means nobody can
answer (``UNAVAILABLE``). ``--yes`` allows every ask; with neither a terminal nor ``--yes``
every ask is refused and the model is told that approval was not available.

A write's prompt shows the diff (up to ``PREVIEW_DIFF_LINES`` lines; ``v`` shows it all); an
exec's prompt names the files this run has written, which the command may run.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Mapping

from harness.policy.approval import (
    UnavailableApprover,
    YesApprover,
    diff_lines,
    full_view,
    preview,
    shown,
    target_noun,
    whole_diff,
    written_names,
)
from harness.types import Act, Approval, ApprovalRequest, Approver

PREVIEW_CHARS = 600
PREVIEW_DIFF_LINES = 40
DIFF_LINE_CHARS = 300
MAX_VIEWS = 20  # a user who keeps asking to view is eventually answered with Deny

PromptFn = Callable[[str], str]

_ANSWERS: Mapping[str, Approval] = {
    "a": Approval.ALLOW_ONCE,
    "allow": Approval.ALLOW_ONCE,
    "y": Approval.ALLOW_ONCE,
    "yes": Approval.ALLOW_ONCE,
    "r": Approval.ALLOW_RUN,
    "run": Approval.ALLOW_RUN,
    "allow for this run": Approval.ALLOW_RUN,
}
_VIEW = frozenset({"v", "view"})


def stderr_prompt(text: str) -> str:
    """Ask on the terminal; stdout is left alone (it may carry ``--json`` output)."""
    sys.stderr.write(text)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError("stdin closed")
    return line


def question(request: ApprovalRequest) -> str:
    """The prompt for one ask: who asks, the target (whole or counted), the answers."""
    noun = target_noun(request)
    head = preview(request.target, PREVIEW_CHARS)
    hidden = (
        f" … ({head.hidden:,} more characters hidden: answer v to view the whole {noun})"
        if head.cut
        else ""
    )
    return (
        f"\nharness run {request.run_id} wants to {request.act.value} "
        f"({shown(request.reason)}):\n"
        f"  {head.text}{hidden}\n"
        f"{_details(request, PREVIEW_DIFF_LINES)}"
        f"[a]llow once, allow for this [r]un, [d]eny, [v]iew the whole {noun} "
        "(default: deny)? "
    )


def _details(request: ApprovalRequest, max_lines: int) -> str:
    """The lines under the target: a write's diff, the files an exec may run."""
    out = ""
    if request.diff is not None:
        more = " (answer v to view it whole)"
        lines = diff_lines(request.diff, max_lines, DIFF_LINE_CHARS, more)
        what = "the call, as plain text" if request.act is Act.MCP else "the change"
        out += f"  {what} (control characters escaped):\n"
        out += "".join(f"    {line}\n" for line in lines)
    if request.files_written:
        out += (
            "  files this run has written, which the command may run: "
            f"{written_names(request.files_written)}\n"
        )
    return out


def whole(request: ApprovalRequest) -> str:
    """What ``v`` prints: the whole target (and diff), escaped, between two marked lines."""
    noun = target_noun(request)
    text = full_view(request.target)
    diff = ""
    if request.diff is not None:
        diff = "\n" + "\n".join(whole_diff(request.diff))
    return (
        f"\n----- the whole {noun}: {len(shown(request.target)):,} characters, control "
        "characters escaped, ⏎ marks a newline -----\n"
        f"{text}{diff}\n----- end of the {noun} -----"
    )


class TerminalApprover:
    """Asks on the terminal, Deny by default.

    ``prompt`` is called in a worker thread so the event loop keeps running; one question is
    asked at a time.
    """

    def __init__(
        self, prompt: PromptFn = stderr_prompt, before_prompt: Callable[[], None] | None = None
    ) -> None:
        self._prompt = prompt
        self._before_prompt = before_prompt  # e.g. stop the progress spinner
        self._lock = asyncio.Lock()

    async def __call__(self, request: ApprovalRequest) -> Approval:
        text = question(request)
        async with self._lock:
            if self._before_prompt is not None:
                self._before_prompt()
            for _ in range(MAX_VIEWS):
                try:
                    reply = await asyncio.to_thread(self._prompt, text)
                except EOFError:
                    return Approval.UNAVAILABLE
                answer = reply.strip().casefold()
                if answer not in _VIEW:
                    return _ANSWERS.get(answer, Approval.DENY)
                text = whole(request) + question(request)
        return Approval.DENY


def default_approver(
    yes: bool,
    interactive: bool,
    before_prompt: Callable[[], None] | None = None,
    prompt: PromptFn = stderr_prompt,
) -> Approver:
    """``--yes`` wins; else a terminal prompt when there is a terminal; else nobody."""
    if yes:
        return YesApprover()
    if interactive:
        return TerminalApprover(prompt, before_prompt=before_prompt)
    return UnavailableApprover()


__all__ = [
    "PREVIEW_CHARS",
    "PromptFn",
    "TerminalApprover",
    "default_approver",
    "question",
    "stderr_prompt",
    "whole",
]
