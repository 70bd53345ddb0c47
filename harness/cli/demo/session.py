"""The scripted agent session the demo replays: rename ``parse_expr`` to
``parse_expression`` across the generated project, run the tests, then keep reviewing
modules (read, edit, test, grep) until the requested number of steps.

Most turns make two tool calls, as models with parallel tool calls do. The user's edit to
``lexer.py`` mid-run is applied by the demo driver (see ``DISK_EDIT_TURN``)."""

from __future__ import annotations

from typing import Any

from harness.cli.demo.workspace import MODULES

TEST_ARGV = ["python3", "-m", "unittest", "discover", "-s", "tests"]
DISK_EDIT_TURN = 8  # while the model thinks about turn 9, "the user" saves lexer.py
DISK_EDIT_PATH = "src/calc/lexer.py"
GOAL = "Rename parse_expr to parse_expression everywhere and keep the tests passing."


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def rename_calls() -> list[dict[str, Any]]:
    """The rename's two edits: the definition in the parser and its call in the test."""
    return [
        _call(
            "edit_file",
            path=_mod("parser"),
            old="def parse_expr(text: str) -> list[str]:",
            new="def parse_expression(text: str) -> list[str]:",
        ),
        _call(
            "edit_file",
            path="tests/test_calc.py",
            old="parser.parse_expr('(1 + 2)')",
            new="parser.parse_expression('(1 + 2)')",
        ),
    ]


def _mod(name: str) -> str:
    return f"src/calc/{name}.py"


PREFIX: list[list[dict[str, Any]]] = [
    [_call("grep", pattern="parse_expr"), _call("find", name_glob="*.py")],
    [_call("read_file", path=_mod("parser")), _call("read_file", path=_mod("evaluator"))],
    [
        _call("read_file", path=_mod("lexer")),
        _call("read_file", path=_mod("ast")),
        _call("read_file", path="tests/test_calc.py", offset=1, limit=20),
    ],
    [
        *rename_calls(),
        _call("exec", argv=TEST_ARGV),
    ],
    [
        _call("remember", key="test-command", value="python3 -m unittest discover -s tests"),
        _call("read_file", path=_mod("parser")),
        _call("grep", pattern="parse_expr"),
    ],
    [
        _call(
            "edit_file",
            path="README.md",
            old="`parse_expr` is the entry point",
            new="`parse_expression` is the entry point",
        ),
        _call(
            "remember",
            key="layout",
            value="calc sources live in src/calc; tests in tests/ import them via sys.path",
        ),
        _call("exec", argv=TEST_ARGV),
    ],
]


def _cycle(j: int) -> list[list[dict[str, Any]]]:
    """Three turns reviewing the modules. Like agents that check their work, every turn
    reads two of the four modules (whole) besides editing, testing or searching."""
    a, b, c, d = (MODULES[(j + k) % len(MODULES)] for k in range(4))
    section = j // len(MODULES) + 1  # a module's k-th review marks its k-th section
    return [
        [
            _call("read_file", path=_mod(a)),
            _call("read_file", path=_mod(b)),
            _call(
                "edit_file",
                path=_mod(a),
                old=f"# section {section}\n",
                new=f"# section {section} (reviewed)\n",
            ),
        ],
        [
            _call("read_file", path=_mod(c)),
            _call("read_file", path=_mod(d)),
            _call("exec", argv=TEST_ARGV),
        ],
        [
            _call("read_file", path=_mod(a)),
            _call("read_file", path="tests/test_calc.py", offset=1 + 3 * j, limit=30),
            _call("grep", pattern="reviewed", path_glob="*.py"),
        ],
    ]


def build_turns(steps: int) -> list[dict[str, Any]]:
    """``steps`` turns: tool-calling turns, then a final answer without tools."""
    if steps < 2:
        raise ValueError("the demo session needs at least 2 steps")
    calls: list[list[dict[str, Any]]] = list(PREFIX)
    j = 0
    while len(calls) < steps - 1:
        calls += _cycle(j)
        j += 1
    turns: list[dict[str, Any]] = [{"tool_calls": c} for c in calls[: steps - 1]]
    turns.append({"content": "Renamed parse_expr to parse_expression; the tests pass."})
    return turns


def user_edit(text: str) -> str:
    """What "the user" does to lexer.py in their editor mid-run."""
    return "# NOTE (user): tokens are plain strings for now.\n" + text.replace(
        "variant 0.", "variant 0 (checked by the user)."
    )
