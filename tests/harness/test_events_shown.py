"""What a ``toolResult`` event shows beyond its line (issue 38): a command's output, its head
and tail when long; the rows of references and diagnostics as locations; a failed call's
whole reason; nothing more for a plain success."""

from __future__ import annotations

from harness.run.events import MAX_LOCATIONS, OUTPUT_EDGE_CHARS, shown_result
from harness.types import FileWrite, ToolResult


def test_a_commands_output_is_its_head_and_tail() -> None:
    short = ToolResult("exec", "echo hi", "[exec echo hi]\nexit code: 0\nhi\n", exit_code=0)
    assert shown_result("exec", short) == {"output": short.text}
    body = "h" * OUTPUT_EDGE_CHARS + "x" * 5000 + "t" * OUTPUT_EDGE_CHARS
    long = ToolResult("exec", "make", body, ok=False, exit_code=2)
    output = shown_result("exec", long)["output"]
    head, cut, tail = output.split("\n")
    assert head == "h" * OUTPUT_EDGE_CHARS and tail == "t" * OUTPUT_EDGE_CHARS
    assert cut == "… (5,000 characters left out) …"
    denied = ToolResult("exec", "rm", "[exec rm]\nerror: denied by you", ok=False)
    assert shown_result("exec", denied) == {"reason": "denied by you"}
    clock = ToolResult("mcp__clock__now", "clock/now", '[mcp clock/now]\n{"datetime": "x"}')
    assert shown_result("mcp__clock__now", clock) == {"output": clock.text}


def test_references_and_diagnostics_rows_are_locations() -> None:
    text = "[references add (a.py)]\na.py:1: def add(a, b):  (definition)\nsrc/b.py:12: add(1, 2)\n"
    assert shown_result("references", ToolResult("references", "add", text)) == {
        "locations": [{"path": "a.py", "line": 1}, {"path": "src/b.py", "line": 12}]
    }
    rows = "\n".join(f"a.py:{n}:1 error pyright: bad" for n in range(1, 80))
    found = shown_result("diagnostics", ToolResult("diagnostics", "a.py", "[diagnostics]\n" + rows))
    assert len(found["locations"]) == MAX_LOCATIONS
    assert shown_result("read_file", ToolResult("read_file", "a.py", "[read a.py]\nx\n")) == {}


def test_a_writes_paths_are_named_each() -> None:
    writes = (FileWrite("src/a.py", b"a", b"b"), FileWrite("src/b.py", None, b"c"))
    renamed = ToolResult("rename_symbol", "add", "[renamed add → plus] 2 places", writes=writes)
    assert shown_result("rename_symbol", renamed) == {"wrote": ["src/a.py", "src/b.py"]}
