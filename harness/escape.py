"""The one escape function for text that reaches a terminal (§6.7): progress lines, tables,
trace output and approval prompts. The model, a repository or a server chose much of this
text; an escape sequence in it could redraw the screen and disguise what is shown. It also
redacts every registered key first (§6.7): a model that echoes the key, or a command's
output that holds it, never puts it on the screen."""

from __future__ import annotations

from harness.redact import redact

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control or non-printable character escaped (``\\x1b``,
    ``\\u202e``…). With ``keep_newlines`` a newline stays a real line break (for multi-line
    output such as a step's results) while still being the only control character kept."""
    out: list[str] = []
    for c in redact(text):
        if c.isprintable() or (keep_newlines and c == "\n"):
            out.append(c)
        elif c in _NAMED:
            out.append(_NAMED[c])
        else:
            code = ord(c)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


__all__ = ["printable"]
