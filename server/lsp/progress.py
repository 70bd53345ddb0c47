"""Work-done progress for one run: begin, "step 3/50 · read src/a.py" reports, end.

Server-initiated (``window/workDoneProgress/create``), and only when the client says it
supports work-done progress. The progress is cancellable: the client's cancel button sends
``window/workDoneProgress/cancel`` with the token, which the run manager maps to the run.
A client that does not answer the create request within a few seconds gets no progress —
the run does not wait for it.
"""

from __future__ import annotations

import logging
import uuid
from concurrent.futures import Future

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from server.lsp.wire.rpc import ask_client, notify

log = logging.getLogger(__name__)

CREATE_TIMEOUT_S = 5.0


def supports_progress(ls: LanguageServer) -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


class RunProgress:
    def __init__(self, ls: LanguageServer) -> None:
        self.ls = ls
        self.token = f"harness-run-{uuid.uuid4()}"
        self.active = False
        self._ended = False

    async def begin(self, title: str, message: str) -> None:
        if not supports_progress(self.ls):
            return
        create = types.WorkDoneProgressCreateParams(token=self.token)
        try:
            await ask_client(
                self.ls.protocol,
                types.WINDOW_WORK_DONE_PROGRESS_CREATE,
                create,
                within_s=CREATE_TIMEOUT_S,
            )
        except Exception as exc:  # refused, timed out, or the client is gone
            log.info("no progress for this run: %s", exc or type(exc).__name__)
            return
        if self._ended:
            return
        self.active = True
        self._send(
            types.WorkDoneProgressBegin(
                title=title, message=message, percentage=0, cancellable=True
            )
        )

    def report(self, message: str, percentage: int | None = None) -> None:
        if self.active:
            self._send(types.WorkDoneProgressReport(message=message, percentage=percentage))

    def end(self, message: str) -> None:
        """Idempotent: the first call ends the progress."""
        if self._ended:
            return
        self._ended = True
        if self.active:
            self.active = False
            self._send(types.WorkDoneProgressEnd(message=message))
        self.ls.work_done_progress.tokens.pop(self.token, None)

    def _send(
        self,
        value: types.WorkDoneProgressBegin
        | types.WorkDoneProgressReport
        | types.WorkDoneProgressEnd,
    ) -> None:
        if isinstance(value, types.WorkDoneProgressBegin):
            # Registers the token so pygls' own cancel handler knows it.
            self.ls.work_done_progress.tokens.setdefault(self.token, Future())
        notify(
            self.ls.protocol, types.PROGRESS, types.ProgressParams(token=self.token, value=value)
        )


__all__ = ["RunProgress", "supports_progress"]
