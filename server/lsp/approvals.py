"""Approvals in the editor (§6.3): a policy ``ask`` becomes ``window/showMessageRequest``
with the buttons Allow / Allow for this run / Deny.

The dialog shows the target with control characters escaped and newlines as ``⏎``
(``harness.policy.approval``), up to ``MAX_TARGET_CHARS`` characters; a longer one says
how many characters are hidden and adds a "Show full command" button, which writes the
whole target to a file only the user can read (``0600``, in a private directory next to
the store), opens it with ``window/showDocument`` and asks again. The file is removed
once the question is answered.

A write's dialog shows the diff (``MAX_DIFF_LINES`` lines, each escaped, then how many more:
"Show full …" writes it all to the file); an exec's names the files this run has written,
which the command may run (§6.3).

A client that declares ``experimental.harness.approvals`` in ``initialize`` gets the
request ``harness/approve`` instead (§7, ``server.lsp.inline_approval``) and draws the question
where the conversation is; it answers ``{decision: allow|allowRun|deny}``.

An approval waits until it is answered or the run is cancelled — for as long as the user
takes. A dismissed dialog (the client answers null: a toast closed, "Clear All
Notifications") or an answer that is not one of the options is **not** an answer: the same
question is asked again, ``REASK_INTERVAL_S`` seconds after the previous one was sent at
the earliest (at once if the user took longer than that to dismiss it), so a client that
dismisses everything is not flooded. Cancelling the run cancels the wait (the
``CancelledError`` reaches the ``await`` here) and the client is told to drop the dialog.
A client that cannot show the request (an error answer: Helix's MethodNotFound) makes
the approval **unavailable** (``server.lsp.dialogs``): refused, recorded as ``unavailable``,
the model told, the user warned in one line, and the run goes on; after a MethodNotFound
the client is not asked again on this connection.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol

from harness.types import Approval, ApprovalRequest
from server.lsp.dialogs import Dialogs, Unavailable
from server.lsp.inline_approval import InlineAsk, ask_inline
from server.lsp.wire.rpc import ask_client, wait_to_reask

log = logging.getLogger(__name__)

ALLOW = "Allow"
ALLOW_RUN = "Allow for this run"
DENY = "Deny"
ANSWERS = {ALLOW: Approval.ALLOW_ONCE, ALLOW_RUN: Approval.ALLOW_RUN, DENY: Approval.DENY}
MAX_TARGET_CHARS = 300
MAX_DIFF_LINES = 20
DIFF_LINE_CHARS = 200
MAX_ASKS = 20  # "Show full command" again and again is eventually a Deny
REASK_INTERVAL_S = 2.0  # a dismissed question comes back no sooner after the last was sent
SHOW_DOCUMENT_TIMEOUT_S = 10.0


# harness.policy (pydantic behind it) is imported when a dialog is first needed, not with
# the server: importing the server stays light (initialize is answered fast).


def show_full_title(request: ApprovalRequest) -> str:
    from harness.policy.approval import target_noun

    return f"Show full {target_noun(request)}"


class LspApprover:
    """The ``Approver`` of a run hosted by the server. ``view_dir`` is where a long target
    is written for the user to read (None: a private temporary directory)."""

    def __init__(
        self,
        protocol: JsonRPCProtocol,
        waiting: Callable[[bool], None] | None = None,
        *,
        view_dir: Path | None = None,
        inline: bool = False,
        dialogs: Dialogs | None = None,
        tell: Callable[[str], None] | None = None,
    ) -> None:
        self.protocol = protocol
        self.dialogs = dialogs or Dialogs(protocol)  # the connection's, shared by its runs
        self.tell = tell  # a one-line warning to the user (window/showMessage)
        self.waiting = waiting  # told True while a dialog is open (for harness.status)
        self.view_dir = view_dir
        self.inline = inline  # the client declared experimental.harness.approvals

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self._set_waiting(True)
        try:
            if self.inline:
                where = InlineAsk(self.protocol, REASK_INTERVAL_S)
                return await ask_inline(where, request, MAX_TARGET_CHARS)
            return await self._dialog(request)
        except Unavailable as exc:
            return self._unavailable(request, str(exc))
        finally:
            self._set_waiting(False)

    def _unavailable(self, request: ApprovalRequest, why: str) -> Approval:
        """Nobody can answer: the act is refused (the gate tells the model), the user is
        told in one line leading with what was not done."""
        from harness.policy.approval import preview

        target = preview(request.target, 80)
        more = "…" if target.cut else ""
        log.warning("run %d: approval unavailable (%s)", request.run_id, why)
        if self.tell is not None:
            self.tell(
                f"harness: refused {request.act.value} `{target.text}{more}`: this editor cannot "
                f"answer approvals ({why}); allow it in your policy to let it run"
            )
        return Approval.UNAVAILABLE

    async def _dialog(self, request: ApprovalRequest) -> Approval:
        from harness.policy.approval import preview

        show_full = show_full_title(request)
        cut = preview(request.target, MAX_TARGET_CHARS).cut or _diff_cut(request)
        titles = [*ANSWERS, show_full] if cut else [*ANSWERS]
        written: Path | None = None
        shows = 0
        try:
            while shows < MAX_ASKS:
                sent = time.monotonic()
                title = await self._ask(approval_message(request, written), titles)
                if title is None or title not in titles:  # dismissed: not an answer
                    log.info("run %d: the approval was dismissed; asking again", request.run_id)
                    await wait_to_reask(sent, REASK_INTERVAL_S)
                elif title != show_full:
                    return ANSWERS[title]
                else:
                    shows += 1
                    written = written or write_full_target(request, self._directory())
                    await self._show(written)
            return Approval.DENY
        finally:
            if written is not None:
                written.unlink(missing_ok=True)

    async def _ask(self, message: str, titles: list[str]) -> str | None:
        return await self.dialogs.choose(message, titles, types.MessageType.Warning)

    async def _show(self, path: Path) -> None:
        params = types.ShowDocumentParams(uri=path.as_uri(), take_focus=True)
        try:
            await ask_client(
                self.protocol,
                types.WINDOW_SHOW_DOCUMENT,
                params,
                within_s=SHOW_DOCUMENT_TIMEOUT_S,
            )
        except Exception as exc:  # the next dialog names the file anyway
            log.warning("could not open %s in the editor: %s", path, exc)

    def _directory(self) -> Path:
        if self.view_dir is not None:
            try:
                return private_dir(self.view_dir)
            except OSError as exc:
                log.warning(
                    "cannot use %s for approvals (%s); using a temporary one", self.view_dir, exc
                )
        self.view_dir = Path(tempfile.mkdtemp(prefix="harness-approvals-"))
        return self.view_dir

    def _set_waiting(self, waiting: bool) -> None:
        if self.waiting is not None:
            self.waiting(waiting)


def _diff_cut(request: ApprovalRequest) -> bool:
    from harness.policy.approval import diff_cut

    return request.diff is not None and diff_cut(request.diff, MAX_DIFF_LINES, DIFF_LINE_CHARS)


def _details(request: ApprovalRequest) -> str:
    """The diff of a write, the files an exec may run: lines after the question."""
    from harness.policy.approval import diff_lines, written_names

    out = ""
    if request.diff is not None:
        more = f' — choose "{show_full_title(request)}"'
        lines = diff_lines(request.diff, MAX_DIFF_LINES, DIFF_LINE_CHARS, more)
        out += "\nThe change (control characters escaped):\n" + "\n".join(lines)
    if request.files_written:
        out += (
            "\nFiles this run has written, which the command may run: "
            f"{written_names(request.files_written)}"
        )
    return out


def approval_message(request: ApprovalRequest, written: Path | None = None) -> str:
    """The dialog's text: the target escaped and, past ``MAX_TARGET_CHARS``, cut with a
    count of what is hidden; ``written`` names the file holding all of it. A write's diff
    and an exec's files written follow."""
    from harness.policy.approval import preview, shown, target_noun

    head = preview(request.target, MAX_TARGET_CHARS)
    hidden = (
        f' … ({head.hidden:,} more characters hidden — choose "{show_full_title(request)}")'
        if head.cut
        else ""
    )
    where = (
        f" The whole {target_noun(request)} is in {shown(str(written))}."
        if written is not None
        else ""
    )
    return (
        f"Harness run {request.run_id} wants to {request.act.value} `{head.text}`{hidden} "
        f"({shown(request.reason)}). Allow it?{where}{_details(request)}"
    )


def write_full_target(request: ApprovalRequest, directory: Path) -> Path:
    """The whole target, as shown, in a new file of ``directory`` readable by the user only."""
    from harness.policy.approval import full_view, shown, target_noun, whole_diff

    noun = target_noun(request)
    diff = ""
    if request.diff is not None:
        lines = whole_diff(request.diff)
        diff = "\nThe change (control characters escaped):\n" + "\n".join(lines) + "\n"
    fd, name = tempfile.mkstemp(
        dir=directory, prefix=f"run-{request.run_id}-{noun}-", suffix=".txt"
    )
    text = (
        f"Harness run {request.run_id} wants to {request.act.value} this {noun} "
        f"({len(shown(request.target)):,} characters; control characters are escaped and ⏎ "
        "marks a newline). Answer in the dialog.\n\n"
        f"{full_view(request.target)}\n{diff}"
    )
    with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp: mode 0600, O_EXCL
        out.write(text)
    return Path(name)


def private_dir(path: Path) -> Path:
    """``path`` as a directory only this user can enter (created ``0700``); ``OSError`` if
    it is not a directory of this user's."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(f"{path} is not a directory")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise PermissionError(f"{path} belongs to another user")
    if stat.S_IMODE(st.st_mode) & 0o077:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
        if stat.S_IMODE(os.lstat(path).st_mode) & 0o077:
            raise PermissionError(f"{path} is open to other users")
    return path


__all__ = [
    "ALLOW",
    "ALLOW_RUN",
    "ANSWERS",
    "DENY",
    "MAX_TARGET_CHARS",
    "REASK_INTERVAL_S",
    "LspApprover",
    "approval_message",
    "private_dir",
    "write_full_target",
]
