"""The server's protocol, declared once (§7, §11): every command (``commands``), every
notification and server→client request, the §11 event kinds, the tool-call statuses, the
run outcomes and approval decisions with their user words, the JSON-RPC errors with their
structured ``data`` (``messages``), and the editor settings (``settings``).

Standard library only: the server reads it before ``initialize``. ``make protocol``
(``python -m server.protocol.gen``) writes from it the command manifest
(``server.protocol.manifest``), the TypeScript declarations
(editors/vscode/src/protocolDecl.ts, re-exported by protocol.ts), the Lua ones
(editors/nvim/lua/harness/protocol.lua) and the generated tables of the docs; ``make lint``
fails when one of them differs from what the declaration gives.
"""

from server.protocol.commands import COMMANDS
from server.protocol.messages import (
    APPROVE,
    BUDGET,
    CALL_STATUSES,
    DECISIONS,
    DID_WRITE,
    ERROR_DATA,
    ERRORS,
    EVENT_KINDS,
    NOTIFICATIONS,
    OUTCOMES,
    REQUESTS,
    RUN_EVENT,
    RUN_FINISHED,
    VERIFY_CALL,
)
from server.protocol.settings import SETTINGS

__all__ = [
    "APPROVE",
    "BUDGET",
    "CALL_STATUSES",
    "COMMANDS",
    "DECISIONS",
    "DID_WRITE",
    "ERRORS",
    "ERROR_DATA",
    "EVENT_KINDS",
    "NOTIFICATIONS",
    "OUTCOMES",
    "REQUESTS",
    "RUN_EVENT",
    "RUN_FINISHED",
    "SETTINGS",
    "VERIFY_CALL",
]
