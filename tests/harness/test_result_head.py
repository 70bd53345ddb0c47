"""The head of a tool result under a row (issue 36): an edit's diff, a command's output
head and tail, a read's first lines, a failure's text."""

from __future__ import annotations

from harness.events import result_body
from harness.result_head import MAX_HEAD_CHARS, result_head
from harness.types import FileWrite, ToolResult


def test_an_edit_shows_its_diff() -> None:
    write = FileWrite(
        "calc.py", b"def add(a, b):\n    return a - b\n", b"def add(a, b):\n    return a + b\n"
    )
    head = result_head(ToolResult("edit_file", "calc.py", "[edited calc.py]\n", writes=(write,)))
    assert "--- a/calc.py" in head
    assert "-    return a - b" in head
    assert "+    return a + b" in head


def test_a_new_file_diffs_from_nothing() -> None:
    write = FileWrite("new.py", None, b"x = 1\n")
    head = result_head(ToolResult("write_file", "new.py", "[wrote new.py]\n", writes=(write,)))
    assert "--- /dev/null" in head
    assert "+x = 1" in head


def test_a_long_output_shows_its_head_and_tail() -> None:
    out = "\n".join(f"line {i}" for i in range(1, 101))
    head = result_head(ToolResult("exec", "seq", f"[exec seq · exit 0]\n{out}\n", exit_code=0))
    lines = head.split("\n")
    assert lines[:2] == ["line 1", "line 2"]
    assert lines[-1] == "line 100"
    assert "… 82 more lines …" in lines
    assert "[exec" not in head  # the header line is the row's, not the head's


def test_a_failure_shows_its_text_and_the_head_is_capped() -> None:
    failed = ToolResult(
        "edit_file", "a.py", "[edit a.py]\n`old` occurs 3 times in `a.py`", ok=False
    )
    assert result_head(failed) == "`old` occurs 3 times in `a.py`"
    huge = ToolResult("read_file", "big.txt", "[read big.txt]\n" + "x" * 10_000)
    assert len(result_head(huge)) == MAX_HEAD_CHARS


def test_the_event_carries_the_head_only_when_there_is_one() -> None:
    body = result_body(
        "c1", ToolResult("exec", "true", "[exec true · exit 0]\n", exit_code=0), "exec true"
    )
    assert "head" not in body
    body = result_body(
        "c2", ToolResult("exec", "echo hi", "[exec echo hi]\nhi\n", exit_code=0), "exec echo hi"
    )
    assert body["head"] == "hi"


def test_a_plan_mode_refusal_says_plan_mode_not_a_policy_default() -> None:
    from harness.marks import refusal_mark
    from harness.types import Act, Effect, PolicyEvent

    event = PolicyEvent(Act.WRITE, "calc.py", Effect.DENY, None, "plan", False, "plan mode")
    assert refusal_mark(event).words == "refused (plan mode: this run only reads)"
