"""Rule 3's own-edit pointer across a confirmation (issue 34): a ranged read that an own
edit elsewhere in the file left byte-identical is confirmed, not refreshed; a later own edit
inside its range still gets the one-line pointer — the change already confirmed is not
counted again as a break in the chain of hashes (seen on the agent-like session: 8 of its
25 refresh entries were hunks, "the write at step 11 changed it", for the agent's own
edits)."""

from __future__ import annotations

from harness.ledger import Cause
from tests.harness.test_context_rules import entry_texts, numbered, own_edit
from tests.support.context_run import Session


def test_an_own_edit_after_a_confirmed_own_edit_elsewhere_still_points_at_the_call() -> None:
    s = Session(files={"src/a.py": numbered()})
    s.send()
    s.act(s.disk.read("src/a.py", 21, 20))  # step 1: lines 21-40
    s.send()
    own_edit(s, "src/a.py", "line 5\n", "line 5 edited\n")  # step 2: outside the range
    confirmed = s.send()  # step 3: the range's bytes are as the model holds them
    assert not any("refreshed at step 3" in t for t in entry_texts(confirmed))
    own_edit(s, "src/a.py", "line 30\n", "line 30 edited\n")  # step 3: inside the range
    got = entry_texts(s.send())[-1]  # step 4
    assert got == (
        "[read src/a.py:21-40] (refreshed at step 4: your edit at step 3 changed line 30)"
    ), got


def test_a_command_after_the_confirmed_own_edit_still_gets_the_hunks() -> None:
    s = Session(files={"src/a.py": numbered()})
    s.send()
    s.act(s.disk.read("src/a.py", 21, 20))
    s.send()
    own_edit(s, "src/a.py", "line 5\n", "line 5 edited\n")
    s.send()
    own_edit(s, "src/a.py", "line 30\n", "line 30 edited\n")
    s.write("src/a.py", s.disk.files["src/a.py"].replace("line 31\n", "line 31 fmt\n"), Cause.EXEC)
    got = entry_texts(s.send())[-1]
    assert "changed it since the read at step 1" in got and "@@" in got, got
