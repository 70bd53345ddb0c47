"""What the model does in the Neovim tests, and the statusline's documented number format."""

from __future__ import annotations

from typing import Any

ORIGINAL = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
SUMMARY = "Fixed add(): it subtracted instead of adding."
NOTE_KEY, NOTE_VALUE = "add-bug", "add() used to subtract"
GOAL = "Fix the add function"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def fix_turns() -> list[dict[str, Any]]:
    """Read calc.py; fix it and remember why (step 2); finish with SUMMARY."""
    return [
        {"tool_calls": [call("read_file", path="calc.py")]},
        {
            "tool_calls": [
                call("edit_file", path="calc.py", old="return a - b", new="return a + b"),
                call("remember", key=NOTE_KEY, value=NOTE_VALUE),
            ]
        },
        {"content": SUMMARY},
    ]


def short(n: int) -> str:
    """Token counts as the statusline shows them (:help harness-statusline): 950, 12.4k, 2M."""
    if n < 1000:
        return str(n)
    if n < 999_950:
        return f"{n / 1000:.1f}".removesuffix(".0") + "k"
    return f"{n / 1e6:.1f}".removesuffix(".0") + "M"
