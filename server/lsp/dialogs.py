"""``window/showMessageRequest`` with this client, and whether it works: the approvals'
dialog (``server.lsp.approvals``) and the code actions' question
(``server.lsp.commands.code_action``).

Not every client answers it: Helix replies MethodNotFound (helix#4699), and so may any
plain LSP editor. An error answer makes that question **unavailable** (``Unavailable``,
saying why); MethodNotFound is remembered for the connection, so the next question is not
sent at all. A client that declares no ``window.showMessage`` capability is still asked
once: Emacs' eglot (Emacs 29) declares none and answers it, Helix declares none and answers
MethodNotFound — the answer, not the declaration, tells them apart.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound
from pygls.protocol import JsonRPCProtocol

from server.lsp.wire.rpc import ask_client

log = logging.getLogger(__name__)

DIALOG = types.WINDOW_SHOW_MESSAGE_REQUEST


class Unavailable(Exception):
    """The client cannot answer the question; ``str()`` says why, for the user."""


class Dialogs:
    """``window/showMessageRequest`` for one connection."""

    def __init__(self, protocol: JsonRPCProtocol) -> None:
        self.protocol = protocol
        self.missing: str | None = None  # why the client cannot answer (MethodNotFound)

    async def choose(self, message: str, titles: list[str], kind: types.MessageType) -> str | None:
        """The title the user chose, or None (dismissed, or an answer that is no title);
        ``Unavailable`` when the client cannot show the question."""
        if self.missing is not None:
            raise Unavailable(self.missing)
        params = types.ShowMessageRequestParams(
            type=kind, message=message, actions=[types.MessageActionItem(title=t) for t in titles]
        )
        try:
            answer: Any = await ask_client(self.protocol, DIALOG, params)
        except JsonRpcException as exc:
            why = f"{DIALOG} answered {_error_name(exc)}"
            if isinstance(exc, JsonRpcMethodNotFound):
                self.missing = why
                log.warning(
                    "this client cannot answer %s (%s): approvals are unavailable", DIALOG, why
                )
            raise Unavailable(why) from None
        title = getattr(answer, "title", None)
        return title if isinstance(title, str) else None


def _error_name(exc: JsonRpcException) -> str:
    """The error as a short name (the client's message is not echoed)."""
    if isinstance(exc, JsonRpcMethodNotFound):
        return "MethodNotFound"
    return f"the error {exc.code}"


__all__ = ["DIALOG", "Dialogs", "Unavailable"]
