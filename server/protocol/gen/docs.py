"""The generated regions of the docs: Markdown tables of the declaration, by region name
(``commands``, ``settings``, ``notifications``, ``requests``, ``events``, ``statuses``,
``outcomes``, ``decisions``, ``errors``, ``error-data``)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence

from server.protocol import (
    CALL_STATUSES,
    COMMANDS,
    DECISIONS,
    ERROR_DATA,
    ERRORS,
    EVENT_KINDS,
    NOTIFICATIONS,
    OUTCOMES,
    REQUESTS,
    SETTINGS,
)
from server.protocol.messages import LSP_NOTIFICATIONS
from server.protocol.model import Command, Word


def table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; a ``|`` inside a cell is escaped."""
    lines = [_row(head), "|" + "---|" * len(head)]
    lines += [_row(row) for row in rows]
    return "\n".join(lines)


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _code(text: str) -> str:
    return f"`{text}`"


def _words(values: Sequence[Word], head: str) -> str:
    return table((head, "words", "meaning"), ((_code(w.value), w.words, w.meaning) for w in values))


def commands_table(commands: Sequence[Command]) -> str:
    return table(
        ("command", "arguments", "result"),
        ((_code(c.name), c.arguments, c.result) for c in commands),
    )


def command_names(commands: Sequence[Command]) -> str:
    """The commands' names as one wrapped paragraph (the README's short form of the table)."""
    names = ", ".join(_code(c.name) for c in commands) + "."
    return textwrap.fill(names, width=92, break_on_hyphens=False) + "\n"


def regions(commands: Sequence[Command] = COMMANDS) -> dict[str, str]:
    """Each region's content."""
    messages = (*LSP_NOTIFICATIONS, *NOTIFICATIONS)
    return {
        "commands": commands_table(commands),
        "command-names": command_names(commands),
        "settings": table(
            ("setting", "type", "default", "meaning"),
            ((_code(s.key), s.type, s.default, s.meaning) for s in SETTINGS),
        ),
        "notifications": table(
            ("method", "params", "when"), ((_code(m.method), m.params, m.when) for m in messages)
        ),
        "requests": table(
            ("method", "params", "answer", "when"),
            ((_code(m.method), m.params, m.answer, m.when) for m in REQUESTS),
        ),
        "events": table(("kind", "fields"), ((_code(k.value), k.meaning) for k in EVENT_KINDS)),
        "statuses": _words(CALL_STATUSES, "status"),
        "outcomes": _words(OUTCOMES, "outcome"),
        "decisions": _words(DECISIONS, "decision"),
        "errors": table(
            ("code", "`data.kind`", "meaning", "example message"),
            ((str(e.code), _code(e.kind), e.meaning, e.example) for e in ERRORS),
        ),
        "error-data": table(
            ("field of `data`", "type", "meaning"),
            ((_code(d.name), d.type, d.meaning) for d in ERROR_DATA),
        ),
    }


__all__ = ["commands_table", "regions", "table"]
