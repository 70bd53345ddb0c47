"""Rule 3's own-edit pointers, what they cost (issue 34, third pass): the reads of one file
that one call made stale share one line naming them all, one turn's pointers are one text,
a call's region is named as one span, and lines an insertion pushed out of a ranged read
are not named as changed. Each still points at the call, and nothing already sent changes."""

from __future__ import annotations

from harness.context import Form
from harness.types import ToolResult
from tests.harness.test_context_rules import appended, entry_texts, numbered, own_edit
from tests.support.context_run import Session


def test_two_reads_of_one_file_staled_by_one_edit_share_one_line() -> None:
    s = Session(files={"src/a.py": numbered()})
    s.send()
    s.act(s.disk.read("src/a.py", 21, 20))  # step 1: lines 21-40
    s.send()
    s.act(s.disk.read("src/a.py", 26, 10))  # step 2: lines 26-35
    before = s.send()
    own_edit(s, "src/a.py", "line 30\n", "line 30 edited\n")  # step 3
    after = s.send()  # step 4
    assert appended(before, after)
    pointers = [e for e in after.entries if e.form is Form.REFRESH]
    assert len(pointers) == 2, "each stale read has its refresh entry"
    assert [e.text for e in pointers] == [
        "[read src/a.py:21-40, 26-35] (refreshed at step 4: your edit at step 3 changed line 30)",
        "",
    ]
    assert entry_texts(after)[-1] == pointers[0].text, "the text the model sees, once"
    assert [r.chars for r in after.refreshed] == [len(pointers[0].text), 0]


def test_one_turns_pointers_for_two_files_are_one_text() -> None:
    s = Session(files={"a.py": numbered(), "b.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py"), s.disk.read("b.py"))  # step 1
    s.send()
    s.act(
        ToolResult("edit_file", "a.py", "[edit a.py] 1 line"),
        ToolResult("edit_file", "b.py", "[edit b.py] 1 line"),
        arguments=[
            {"path": "a.py", "old": "line 3\n", "new": "line 3 edited\n"},
            {"path": "b.py", "old": "line 9\n", "new": "line 9 edited\n"},
        ],
    )  # step 2
    s.write("a.py", s.disk.files["a.py"].replace("line 3\n", "line 3 edited\n"), own=True)
    s.write("b.py", s.disk.files["b.py"].replace("line 9\n", "line 9 edited\n"), own=True)
    got = s.send()
    assert entry_texts(got)[-1] == (
        "[read a.py] (refreshed at step 3: your edit at step 2 changed line 3)\n"
        "[read b.py] (refreshed at step 3: your edit at step 2 changed line 9)"
    )
    assert sum(1 for e in got.entries if e.form is Form.REFRESH and e.text) == 1


def test_an_edit_of_nearby_lines_is_named_as_one_span() -> None:
    s = Session(files={"a.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py"))
    s.send()
    old, new = "line 10\nline 11\nline 12\n", "line 10 x\nline 11\nline 12 x\n"
    own_edit(s, "a.py", old, new)
    assert entry_texts(s.send())[-1] == (
        "[read a.py] (refreshed at step 3: your edit at step 2 changed lines 10–12)"
    )


def test_lines_an_insertion_pushed_out_of_a_ranged_read_are_not_named() -> None:
    s = Session(files={"a.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py", 21, 20))  # lines 21-40
    s.send()
    own_edit(s, "a.py", "line 30\n", "# a comment\nline 30\n")  # line 40 leaves the range
    got = entry_texts(s.send())[-1]
    assert got == "[read a.py:21-40] (refreshed at step 3: your edit at step 2 changed line 30)"


def test_a_pointer_then_a_formatter_in_the_same_turn_keeps_the_hunks_apart() -> None:
    s = Session(files={"a.py": numbered(), "b.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py"), s.disk.read("b.py"))
    s.send()
    own_edit(s, "a.py", "line 3\n", "line 3 edited\n")  # step 2
    s.write("b.py", s.disk.files["b.py"].replace("line 9\n", "line 9 fmt\n"), own=False)
    refreshes = [e.text for e in s.send().entries if e.form is Form.REFRESH]
    assert refreshes[0] == "[read a.py] (refreshed at step 3: your edit at step 2 changed line 3)"
    assert refreshes[1].startswith("[read b.py] (refreshed at step 3: the write at step 2")
    assert "@@ lines 7–11 now @@" in refreshes[1]
