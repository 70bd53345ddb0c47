"""The revised rules 2, 3 and 5 of SPEC §3 (issue 21), with their exact texts: between
slides nothing already sent changes — a stale read gets a refresh entry appended (its
changed lines as they are now), a differing later result names what it replaces — and a
slide cleans up the stale and superseded copies. Also the ``assembled`` event's ``breaks``
and ``refreshed``, and a capped read through the real ``read_file`` and re-read."""

from __future__ import annotations

from pathlib import Path

from harness.context import BoundedContext, Ceiling, Emission, Form, RunFrame
from harness.ledger import Cause, Ledger
from harness.run.reread import make_refresher
from harness.types import Role, ToolCall, ToolResult, content_hash
from tests.support.context_run import FRAME, SYSTEM, Session, grep, having_read
from tests.support.tool_env import make_tool_env


def texts(e: Emission) -> list[str]:
    return e.request.texts()


def entry_texts(e: Emission) -> list[str]:
    return [t for entry in e.entries for t in entry.texts]


def appended(before: Emission, after: Emission) -> bool:
    """``after`` starts with ``before`` minus its trailer (nothing already sent changed)."""
    kept = texts(before)[:-1]
    return texts(after)[: len(kept)] == kept and after.prefix_chars >= sum(map(len, kept))


def filler(s: Session, n: int, size: int = 100) -> None:
    for _ in range(n):
        s.send()
        s.act(grep(f"filler{s.step}", "f" * size))


def numbered(n: int = 60) -> str:
    return "\n".join(f"line {i}" for i in range(1, n + 1))


def edit(s: Session, path: str, old: str, new: str, cause: Cause = Cause.WRITE) -> None:
    """The model's edit (a result and the change it made), or a change on disk."""
    if cause is Cause.WRITE:
        s.act(ToolResult("edit_file", path, f"[edit {path}] 1 line"))
    s.write(path, s.disk.files[path].replace(old, new), cause)


# -- rule 3: a refresh entry, appended ----------------------------------------------------


def test_an_agent_edit_appends_the_changed_lines_with_two_lines_of_context() -> None:
    s = Session(files={"src/a.py": numbered()})
    filler(s, 2)
    s.send()
    s.act(s.disk.read("src/a.py"))  # step 3
    filler(s, 4)
    before = s.send()  # step 8
    edit(s, "src/a.py", "line 30\n", "line 30 edited\n")
    e = s.send()  # step 9
    refresh = (
        "[read src/a.py] (refreshed at step 9: the write at step 8 changed it since the read at "
        "step 3)\n@@ lines 28–32 now @@\nline 28\nline 29\nline 30 edited\nline 31\nline 32"
    )
    assert entry_texts(e)[-1] == refresh
    assert "[read src/a.py]\n" + numbered() in entry_texts(e), "the stale copy stays as sent"
    assert appended(before, e) and e.breaks == ()
    last = e.request.messages[-1]
    assert last.role is Role.USER and last.parts == (refresh,), "the harness's text, last"
    assert e.request.messages[-2].role is Role.TOOL, "after the turn's tool results"
    assert e.reread == 1 and [ev.kind for ev in e.events] == ["reread"]


def test_an_outside_change_is_named_as_a_change_on_disk() -> None:
    s = having_read("b.py", files={"b.py": numbered(10)})
    s.send()
    s.write("b.py", numbered(10).replace("line 9", "line nine"), Cause.DISK)
    assert entry_texts(s.send())[-1] == (
        "[read b.py] (refreshed at step 3: it changed on disk since the read at step 1)\n"
        "@@ lines 7–10 now @@\nline 7\nline 8\nline nine\nline 10"
    )


def test_deleted_lines_are_named_as_the_model_numbered_them() -> None:
    s = having_read("a.py", files={"a.py": numbered()})
    s.send()
    edit(s, "a.py", "line 44\nline 45\nline 46\n", "")
    assert entry_texts(s.send())[-1] == (
        "[read a.py] (refreshed at step 3: the write at step 2 changed it since the read at "
        "step 1)\n(deleted lines 44–46)"
    )


def test_a_ranged_read_is_refreshed_with_file_line_numbers_and_its_range() -> None:
    s = Session(files={"src/a.py": numbered()})
    s.send()
    s.act(s.disk.read("src/a.py", 40, 13))  # lines 40-52
    s.send()
    edit(s, "src/a.py", "line 45\n", "line 45 edited\n")
    e = s.send()
    assert entry_texts(e)[-1] == (
        "[read src/a.py:40-52] (refreshed at step 3: the write at step 2 changed it since the "
        "read at step 1)\n@@ lines 43–47 now @@\nline 43\nline 44\nline 45 edited\nline 46\n"
        "line 47"
    )
    s.act(ToolResult("edit_file", "src/a.py", "[edit src/a.py] 1 line"))
    s.write("src/a.py", s.disk.files["src/a.py"].replace("line 58", "line 58 edited"))
    later = s.send()
    assert later.reread == 0 and appended(e, later), "a change outside the range refreshes nothing"


def test_two_distant_changes_are_two_hunks() -> None:
    s = having_read("a.py", files={"a.py": numbered()})
    s.send()
    s.act(ToolResult("edit_file", "a.py", "[edit a.py] 2 lines"))
    s.write("a.py", numbered().replace("line 5\n", "line five\n").replace("line 40\n", ""))
    assert entry_texts(s.send())[-1] == (
        "[read a.py] (refreshed at step 3: the write at step 2 changed it since the read at "
        "step 1)\n@@ lines 3–7 now @@\nline 3\nline 4\nline five\nline 6\nline 7\n"
        "(deleted line 40)"
    )


def test_two_reads_of_one_file_send_one_change_once() -> None:
    """Two carried reads of one file (the whole file, then a range) made stale by one edit:
    each gets its refresh entry, the second points to the first's lines, not a copy."""
    s = having_read("a.py", files={"a.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py", 20, 20))  # lines 20-39, step 2
    s.send()
    edit(s, "a.py", "line 30\n", "line thirty\n")
    e = s.send()  # step 4
    hunk = "@@ lines 28–32 now @@\nline 28\nline 29\nline thirty\nline 31\nline 32"
    assert entry_texts(e)[-2:] == [
        "[read a.py] (refreshed at step 4: the write at step 3 changed it since the read at "
        f"step 1)\n{hunk}",
        "[read a.py:20-39] (refreshed at step 4: the write at step 3 changed it since the "
        "read at step 2)\n(the same lines as the refresh of the read at step 1, above)",
    ]
    assert e.reread == 2, "both reads are refreshed (their hunks recorded in the ledger)"
    s.act(ToolResult("edit_file", "a.py", "[edit a.py] 1 line"))
    s.write("a.py", s.disk.files["a.py"].replace("line 5\n", "line five\n"))
    later = s.send()
    assert later.reread == 1, "the change outside the range refreshes the whole read only"
    assert "(the same lines" not in entry_texts(later)[-1]


def test_a_pointer_only_where_it_is_shorter_than_the_lines() -> None:
    s = having_read("a.py", files={"a.py": "a\nb"})
    s.send()
    s.act(s.disk.read("a.py", 1, 2))
    s.send()
    s.write("a.py", "x\nb")
    assert [t.split("\n", 1)[1] for t in entry_texts(s.send())[-2:]] == ["x\nb", "x\nb"]


def test_the_whole_current_text_when_the_hunks_would_be_longer() -> None:
    s = having_read("a.py", files={"a.py": "a\nb\nc"})
    s.send()
    s.write("a.py", "x\ny\nz")
    assert entry_texts(s.send())[-1] == (
        "[read a.py] (refreshed at step 3: the write at step 2 changed it since the read at "
        "step 1)\nx\ny\nz"
    )


def test_a_second_refresh_shows_what_changed_since_the_first() -> None:
    s = having_read("a.py", files={"a.py": numbered()})
    s.send()
    edit(s, "a.py", "line 10\n", "line ten\n")
    first = s.send()  # step 3
    edit(s, "a.py", "line 50\n", "line fifty\n")
    e = s.send()  # step 4
    assert appended(first, e) and e.breaks == ()
    assert entry_texts(e)[-1] == (
        "[read a.py] (refreshed at step 4: the write at step 3 changed it since the read at "
        "step 1)\n@@ lines 48–52 now @@\nline 48\nline 49\nline fifty\nline 51\nline 52"
    )


def test_a_read_made_stale_in_its_own_turn_is_refreshed_after_the_write() -> None:
    s = Session(files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py"), ToolResult("edit_file", "a.py", "[edit a.py] 1 line"))
    s.write("a.py", "v2")
    assert entry_texts(s.send())[-3:] == [
        "[read a.py]\nv1",
        "[edit a.py] 1 line",
        "[read a.py] (refreshed at step 2: the write at step 1 changed it since the read at "
        "step 1)\nv2",
    ]


def test_a_refused_refresh_says_so_and_becomes_a_stub_at_the_next_slide() -> None:
    s = Session(effective=2_000, files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py", 1, 1))
    before = s.send()
    s.write("a.py", "v2")
    s.disk.refuse["a.py"] = "deny read `a.py` (rule `a.py`, layer workspace)"
    e = s.send()
    refused = (
        "[read a.py:1-1] (not refreshed at step 3: the write at step 2 changed it since the read "
        "at step 1, and the re-read was refused: deny read `a.py` (rule `a.py`, layer workspace))"
    )
    assert entry_texts(e)[-1] == refused and appended(before, e)
    assert [ev.kind for ev in e.events] == ["reread_refused"] and e.breaks == ()
    calls = len(s.disk.calls)
    while "slide" not in s.sent[-1].breaks:
        s.act(grep(f"p{s.step}", "g" * 1_500))
        s.send()
    assert len(s.disk.calls) == calls, "the model was told: it is not re-read again"
    got = entry_texts(s.sent[-1])
    assert refused not in got and "[read a.py:1-1]\nv1" not in got


def test_a_vanished_file_is_said_gone() -> None:
    s = having_read("gone.py", files={"gone.py": "v1"})
    s.send()
    del s.disk.files["gone.py"]
    s.ledger.note_change("gone.py", Cause.DISK, 2, None)
    assert entry_texts(s.send())[-1] == (
        "[read gone.py] (not refreshed at step 3: it changed on disk since the read at step 1, "
        "and the file no longer exists)"
    )


# -- rule 3 through the real read_file and re-read: one cap, the shown lines' hash ---------


async def test_a_capped_read_whose_shown_lines_did_not_change_refreshes_nothing(
    tmp_path: Path,
) -> None:
    ceiling = Ceiling(4_000)  # the entry cap: 2,000 chars
    env = make_tool_env(tmp_path, read_limit=ceiling.entry_cap)
    text = "\n".join(f"line {i:04d} of the long module" for i in range(1, 401))
    env.write("big.py", text)
    read = await env.call("read_file", path="big.py")
    assert read.read is not None and read.read.limit is not None, "the cap cut it"
    shown = read.read.limit
    assert read.text.split("\n")[-1].startswith(f"…[lines 1–{shown} of 400 shown;")
    refresher = make_refresher(env.workspace, env.ctx.gate, ceiling)
    again = refresher(read.read)
    assert again.shown_hash == read.read.shown_hash, "the same lines, by one cap"
    ledger = Ledger()
    engine = BoundedContext(ledger, RunFrame(SYSTEM, FRAME))

    def send(step: int) -> Emission:
        e = engine.assemble(step=step, effective_tokens=4_000, trailer="t", refresh=refresher)
        engine.commit(e)
        return e

    send(1)
    ledger.add_turn(1, "", (ToolCall("c1", "read_file", {"path": "big.py"}),))
    ledger.add(1, read, call_id="c1")
    first = send(2)
    grown = text + "\nline 0401 appended"
    env.write("big.py", grown)  # beyond the lines shown: the marker's "of 400" is stale
    ledger.note_change("big.py", Cause.WRITE, 2, content_hash(grown.encode()))
    second = send(3)
    assert second.reread == 0 and second.refreshed == () and appended(first, second)
    changed = grown.replace("line 0002 of", "line 0002 changed of")
    env.write("big.py", changed)
    ledger.note_change("big.py", Cause.WRITE, 3, content_hash(changed.encode()))
    third = send(4)
    assert entry_texts(third)[-1] == (
        f"[read big.py:1-{shown}] (refreshed at step 4: the write at step 3 changed it since "
        "the read at step 1)\n@@ lines 1–4 now @@\nline 0001 of the long module\n"
        "line 0002 changed of the long module\nline 0003 of the long module\n"
        "line 0004 of the long module"
    )


# -- rule 2: a later result names what it replaces ----------------------------------------


def test_a_differing_later_read_names_what_it_replaces_and_nothing_sent_changes() -> None:
    s = Session(files={"src/a.py": "v1"})
    filler(s, 2)
    s.send()
    s.act(s.disk.read("src/a.py"))  # step 3
    filler(s, 3)
    s.disk.files["src/a.py"] = "v2"  # changed by nobody the ledger knows of
    before = s.send()
    s.act(s.disk.read("src/a.py"))  # step 7
    after = s.send()
    assert entry_texts(after)[-1] == "[read src/a.py] (replaces the read at step 3)\nv2"
    assert "[read src/a.py]\nv1" in entry_texts(after)
    assert appended(before, after) and after.breaks == ()


def test_ranged_reads_are_replaced_by_their_own_range_or_a_whole_read() -> None:
    text = numbered(300)
    s = Session(files={"a.py": text})
    s.send()
    s.act(s.disk.read("a.py", 81, 80), s.disk.read("a.py", 161, 80))  # step 1
    s.disk.files["a.py"] = text.replace("line 100\n", "line one hundred\n")
    s.send()
    s.act(s.disk.read("a.py", 81, 80))  # step 2: the same range, differs
    heads = [x.text.split("\n")[0] for x in s.send().entries if x.kind == "read_file"]
    assert heads == [
        "[read a.py:81-160]",
        "[read a.py:161-240]",
        "[read a.py:81-160] (replaces the read at step 1)",
    ]
    s.act(s.disk.read("a.py"))  # step 3: the whole file
    heads = [x.text.split("\n")[0] for x in s.send().entries if x.kind == "read_file"]
    assert heads[-1] == "[read a.py] (replaces the reads at steps 1, 2)"


def test_stubs_are_final_supersession_never_rewrites_one() -> None:
    s = Session(files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py"))  # 1: whole
    s.send()
    s.act(s.disk.read("a.py"))  # 2: unchanged stub
    s.disk.files["a.py"] = "v2"
    s.send()
    s.act(s.disk.read("a.py"))  # 3: differs
    assert [x.text for x in s.send().entries if x.kind == "read_file"] == [
        "[read a.py]\nv1",
        "[read a.py] (unchanged since the read at step 1, shown above)",
        "[read a.py] (replaces the read at step 1)\nv2",
    ]


def test_a_later_read_of_a_refreshed_copy_points_at_it_as_refreshed() -> None:
    s = having_read("a.py", files={"a.py": "v1"})
    s.send()
    edit(s, "a.py", "v1", "v2")
    s.send()  # step 3: the refresh
    s.act(s.disk.read("a.py"))  # step 3: v2, as refreshed
    assert entry_texts(s.send())[-1] == (
        "[read a.py] (unchanged since the read at step 1 as refreshed at step 3, shown above)"
    )


def test_a_ranged_re_read_whose_lines_did_not_change_while_others_did_is_the_pointer() -> None:
    """Issue 34: the identity test holds when the file changed elsewhere since the read
    and since its refresh."""
    s = Session(files={"a.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py", 1, 10))  # step 1
    s.send()
    edit(s, "a.py", "line 4\n", "line 4 edited\n")  # step 2: inside the range
    s.send()  # step 3: the refresh entry
    edit(s, "a.py", "line 40\n", "line 40 edited\n")  # step 3: elsewhere in the file
    s.send()
    s.act(s.disk.read("a.py", 1, 10))  # step 4: lines 1-10 as refreshed at step 3
    before = s.sent[-1]
    after = s.send()
    assert entry_texts(after)[-1] == (
        "[read a.py:1-10] (unchanged since the read at step 1 as refreshed at step 3, shown above)"
    )
    assert appended(before, after)
    edit(s, "a.py", "line 50\n", "line 50 edited\n")  # step 5: elsewhere again
    s.send()
    s.act(s.disk.read("a.py", 1, 10))
    assert entry_texts(s.send())[-1].startswith("[read a.py:1-10] (unchanged since the read at")


# -- rule 5: the next slide cleans up -------------------------------------------------------


def slide_now(s: Session, size: int = 1_500) -> Emission:
    while "slide" not in s.sent[-1].breaks:
        s.act(grep(f"p{s.step}", "g" * size))
        s.send()
    return s.sent[-1]


def test_at_a_slide_stale_copies_become_current_and_superseded_ones_stubs() -> None:
    s = Session(effective=2_500, files={"a.py": "a1", "b.py": numbered(5)})  # 10,000 chars
    filler(s, 5, 1_500)
    s.send()
    s.act(s.disk.read("a.py"), s.disk.read("b.py"))  # step 6
    s.send()
    s.disk.files["a.py"] = "a2"
    s.act(s.disk.read("a.py"))  # step 7: replaces the read at step 6
    s.send()
    edit(s, "b.py", "line 3", "line three")  # step 8
    stale = s.send()  # step 9: b.py refreshed
    assert "[read b.py]\n" + numbered(5) in entry_texts(stale)
    assert stale.breaks == ()
    s.act(grep("big", "g" * 2_500))
    e = s.send()
    assert e.breaks == ("slide",) and e.section_chars <= 10_000
    got = entry_texts(e)
    assert "[read a.py] (elided: superseded by the read at step 7)" in got
    assert "[read a.py]\na1" not in got and "[read b.py]\n" + numbered(5) not in got
    current = [x for x in e.entries if x.form is Form.CURRENT]
    assert [x.text for x in current] == [
        "[read b.py] (refreshed at step 9)\n" + numbered(5).replace("line 3", "line three")
    ]
    assert got.index(current[0].text) < got.index("[read a.py] (replaces the read at step 6)\na2")
    assert not [x for x in e.entries if x.form is Form.REFRESH], "the refresh is folded in"
    assert "[grep filler1] (elided: 1,515 chars, older than the current context window" in (
        "\n".join(got)
    )


def test_a_stale_copy_that_does_not_fit_the_new_window_is_a_stub() -> None:
    s = Session(effective=2_000, files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py"))  # step 1, oldest
    s.send()
    edit(s, "a.py", "v1", "v2")
    s.send()
    e = slide_now(s)
    got = entry_texts(e)
    assert "[read a.py]\nv1" not in got and not any("refreshed at" in t for t in got)
    assert (
        "[read a.py] (elided: 14 chars, older than the current context window — re-read it "
        "with offset and limit if you need it)"
    ) in got


# -- the assembled event ------------------------------------------------------------------


def test_the_assembled_event_reports_breaks_and_refreshed() -> None:
    s = having_read("a.py", files={"a.py": "v1"})
    first = s.send()
    s.write("a.py", "v2")
    second = s.send()
    event = second.assembled_event(recalled=2)
    refresh = entry_texts(second)[-1]
    assert event.kind == "assembled"
    assert event.detail == {
        "carried": 1,
        "stubbed": 0,
        "reread": 1,
        "collapsed": 0,
        "recalled": 2,
        "estTokens": second.est_tokens,
        "effective": 24_000,
        "prefixChars": second.prefix_chars,
        "breaks": [],
        "refreshed": [{"path": "a.py", "readStep": 1, "chars": len(refresh), "ok": True}],
        "naive": False,
        "freeSlide": False,
    }
    assert appended(first, second)
    assert second.est_tokens == -(-second.request.chars // 4)


def newest_contiguous(e: Emission) -> bool:
    """No window stub after the first result the window carries (rule 5): the window is the
    newest entries, contiguous."""
    forms = [x.form for x in e.entries if x.kind != "message"]
    first = next((i for i, f in enumerate(forms) if f in (Form.WHOLE, Form.CURRENT)), len(forms))
    return Form.WINDOW not in forms[first:]


def test_after_a_slide_the_carried_entries_are_the_newest_contiguous() -> None:
    """Issue 34: an unchanged stub whose original slid out, its file changed since, was a
    window stub inside the window; it is carried as the current text instead."""
    s = Session(effective=2_000, files={"a.py": "x" + "A" * 999})  # 8,000 chars
    s.send()
    s.act(s.disk.read("a.py"))  # step 1
    for _ in range(3):
        s.send()
        s.act(grep(f"p{s.step}", "g" * 1_600))
    s.send()
    s.act(s.disk.read("a.py"))  # step 5: unchanged since step 1
    s.send()
    edit(s, "a.py", "x", "y")  # step 6: both copies stale
    s.send()  # step 7: the refresh of the read at step 1
    s.act(grep("big", "b" * 1_500))
    e = s.send()
    assert "slide" in e.breaks and e.section_chars <= 8_000
    assert newest_contiguous(e)
    reads = [x for x in e.entries if x.kind == "read_file" and x.form is not Form.MERGED]
    assert [x.form for x in reads] == [Form.WINDOW, Form.CURRENT]
    assert reads[-1].text == "[read a.py] (refreshed at step 8)\n" + "y" + "A" * 999


# -- rule 3, revised: the agent's own edit points at the call (issue 34) --------------------


def own_edit(s: Session, path: str, old: str, new: str) -> None:
    """The model's ``edit_file`` call, its result and the change it made (the loop records
    the hash it replaced)."""
    s.act(
        ToolResult("edit_file", path, f"[edit {path}] 1 line"),
        arguments=[{"path": path, "old": old, "new": new}],
    )
    s.write(path, s.disk.files[path].replace(old, new), own=True)


def test_an_own_edit_gets_one_line_pointing_at_the_call_and_a_later_read_the_pointer() -> None:
    s = Session(files={"src/a.py": numbered()})
    s.send()
    s.act(s.disk.read("src/a.py", 21, 20))  # step 1: lines 21-40
    s.send()
    own_edit(s, "src/a.py", "line 30\n", "line 30 edited\n")  # step 2
    before = s.send()  # step 3
    assert entry_texts(before)[-1] == (
        "[read src/a.py:21-40] (refreshed at step 3: your edit at step 2 changed line 30)"
    )
    s.act(s.disk.read("src/a.py", 21, 20))  # step 3: the lines again, as the edit left them
    after = s.send()
    assert entry_texts(after)[-1] == (
        "[read src/a.py:21-40] (unchanged since the read at step 1 as refreshed at step 3, "
        "shown above)"
    )
    assert appended(before, after) and not any("@@" in t for t in entry_texts(after))


def test_two_own_edits_in_one_turn_are_named_with_their_lines() -> None:
    s = Session(files={"a.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py"))  # step 1
    s.send()
    edits = [("line 3\n", "line 3 edited\n"), ("line 50\n", "line 49b\nline 50\n")]
    s.act(
        *(ToolResult("edit_file", "a.py", "[edit a.py] 1 line") for _ in edits),
        arguments=[{"path": "a.py", "old": old, "new": new} for old, new in edits],
    )  # step 2
    for old, new in edits:
        s.write("a.py", s.disk.files["a.py"].replace(old, new), own=True)
    assert entry_texts(s.send())[-1] == (
        "[read a.py] (refreshed at step 3: your edits at step 2 changed lines 3, 50)"
    )


def test_an_own_edit_then_a_formatter_gets_the_hunks() -> None:
    s = Session(files={"a.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py"))  # step 1
    s.send()
    own_edit(s, "a.py", "line 30\n", "line 30 edited\n")  # step 2
    s.write("a.py", s.disk.files["a.py"].replace("line 10\n", "line 10 formatted\n"), Cause.EXEC)
    got = entry_texts(s.send())[-1]
    assert got.startswith(
        "[read a.py] (refreshed at step 3: the write at step 2 changed it since the read at step 1)"
    )
    assert "@@ lines 8–12 now @@\nline 8\nline 9\nline 10 formatted" in got
    assert "line 30 edited" in got and "your edit" not in got


def test_an_own_edit_on_top_of_an_unseen_outside_change_gets_the_hunks() -> None:
    """The chain of hashes breaks: the edit replaced bytes the model never saw."""
    s = Session(files={"a.py": numbered()})
    s.send()
    s.act(s.disk.read("a.py"))  # step 1
    s.disk.files["a.py"] = s.disk.files["a.py"].replace("line 5\n", "line five\n")  # unreported
    s.send()
    own_edit(s, "a.py", "line 30\n", "line 30 edited\n")  # step 2
    got = entry_texts(s.send())[-1]
    assert "your edit" not in got and "line five" in got and "line 30 edited" in got
