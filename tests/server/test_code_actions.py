"""Which code actions the server offers (``server.lsp.code_actions``) and the ``harness:``
comment that gives one its goal (``server.lsp.commands.code_action``)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from server.lsp.code_actions import ASK, COMMAND, FIX, offered
from server.lsp.commands.code_action import COMMENT

URI = "file:///ws/src/a.py"


def pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def diagnostic(message: str, line: int = 1) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(start=pos(line, 4), end=pos(line, 9)), message=message, source="lint"
    )


def request(
    start: types.Position,
    end: types.Position,
    diagnostics: list[types.Diagnostic],
    only: list[str] | None = None,
    uri: str = URI,
) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=start, end=end),
        context=types.CodeActionContext(diagnostics=diagnostics, only=only),
    )


def titles(params: types.CodeActionParams) -> list[str]:
    return [a.title for a in offered(params)]


def test_a_diagnostic_under_the_cursor_gets_a_fix_whose_command_carries_it() -> None:
    bug = diagnostic("x is never used")
    (fix,) = offered(request(pos(1, 5), pos(1, 5), [bug]))
    assert fix.title == FIX and fix.kind == types.CodeActionKind.QuickFix
    assert fix.diagnostics == [bug]
    assert fix.command is not None and fix.command.command == COMMAND
    (arguments,) = fix.command.arguments or []
    assert arguments == {
        "kind": "fix",
        "uri": URI,
        "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 9}},
        "diagnostic": {"message": "x is never used", "source": "lint"},
    }


def test_several_diagnostics_get_fixes_that_say_which() -> None:
    found = titles(request(pos(1, 5), pos(1, 5), [diagnostic("first"), diagnostic("second")]))
    assert found == [f"{FIX}: first", f"{FIX}: second"]


def test_a_selection_gets_ask_and_a_cursor_does_not() -> None:
    assert titles(request(pos(0, 0), pos(2, 0), [])) == [ASK]
    assert titles(request(pos(0, 3), pos(0, 3), [])) == []


@pytest.mark.parametrize(
    ("only", "expected"),
    [
        (["source.organizeImports"], []),  # on save: never a run
        (["source"], []),
        (["quickfix"], [FIX]),
        ([""], [ASK]),
        (["refactor"], []),
        (None, [FIX, ASK]),
    ],
)
def test_the_kinds_the_client_asks_for_are_respected(
    only: list[str] | None, expected: list[str]
) -> None:
    assert titles(request(pos(1, 0), pos(2, 0), [diagnostic("bug")], only)) == expected


def test_a_document_that_is_not_a_file_gets_nothing() -> None:
    assert offered(request(pos(0, 0), pos(2, 0), [diagnostic("x")], uri="untitled:1")) == []


@pytest.mark.parametrize(
    ("line", "goal"),
    [
        ("x = 1  # harness: make it a constant", "make it a constant"),
        ("/* harness: use a map here */", "use a map here"),
        ("<!-- harness: translate this -->", "translate this"),
        ("-- harness:   trim the spaces   ", "trim the spaces"),
    ],
)
def test_a_harness_comment_gives_the_goal(line: str, goal: str) -> None:
    found = COMMENT.search(line)
    assert found is not None and found["goal"] == goal


@pytest.mark.parametrize("line", ["url = 'harness://x'", "harness:", "# harnesses: no", "x = 1"])
def test_other_text_is_no_goal(line: str) -> None:
    assert COMMENT.search(line) is None
