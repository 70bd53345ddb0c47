"""The bounded context engine (issue 12): every rule of SPEC §3 with its exact texts, the
stable prefix, the two wire forms and the ``assembled`` event."""

from __future__ import annotations

import pytest

from harness.context import BoundedContext, Emission, Form, RunFrame, Wire
from harness.ledger import Cause, Ledger
from harness.types import Role, ToolCall, ToolResult
from tests.support.context_run import FRAME, SYSTEM, Session, grep, having_read


def texts(e: Emission) -> list[str]:
    return e.request.texts()


def entry_texts(e: Emission) -> list[str]:
    return [t for entry in e.entries for t in entry.texts]


def starts_with(prefix: list[str], whole: list[str]) -> bool:
    return whole[: len(prefix)] == prefix


def filler(s: Session, n: int, size: int = 100) -> None:
    """``n`` steps of distinct greps (never superseded), each sent."""
    for _ in range(n):
        s.send()
        s.act(grep(f"filler{s.step}", "f" * size))


# -- stable order (rule 1) ----------------------------------------------------------------


def test_frame_memory_observations_then_the_trailer_last_in_both_forms() -> None:
    for wire in Wire:
        s = Session(wire=wire, memory="## Your notes\n- build: make", files={"a.py": "A"})
        s.send()
        s.act(s.disk.read("a.py"), words="Reading a.py.")
        e = s.send()
        assert texts(e) == [
            SYSTEM,
            FRAME,
            "## Your notes\n- build: make",
            "Reading a.py.",
            '{"path": "a.py"}',
            "[read a.py]\nA",
            s.trailer(2),
        ]
        assert e.request.trailer == s.trailer(2)


def test_the_memory_block_is_chosen_at_the_first_turn_and_kept_until_a_slide() -> None:
    asked: list[int] = []

    def memory() -> str:
        asked.append(1)
        return f"## Your notes\n- version {len(asked)}"

    s = Session(effective=2_000, memory=memory)  # 8,000 chars
    first = s.send()
    assert first.memory == "## Your notes\n- version 1" and first.memory_chosen
    s.act(grep("a", "a" * 1_000))
    second = s.send()
    assert len(asked) == 1 and second.memory == first.memory and not second.memory_chosen
    while not s.sent[-1].breaks:
        s.act(grep(f"p{s.step}", "b" * 1_500))
        s.send()
    slid = s.sent[-1]
    assert len(asked) == 2 and slid.memory_chosen
    assert slid.memory == "## Your notes\n- version 2"
    assert slid.breaks == ("slide", "memory")


def test_a_memory_block_over_a_quarter_of_the_ceiling_is_not_sent() -> None:
    s = Session(effective=2_000, memory="m" * 2_001)  # a quarter of 8,000 chars is 2,000
    assert s.send().memory == ""


# -- rule 2: supersession ------------------------------------------------------------------


def test_an_identical_later_read_stubs_itself_and_the_earlier_stays_whole() -> None:
    s = Session(files={"src/a.py": "alpha\nbeta"})
    filler(s, 2)
    s.send()
    s.act(s.disk.read("src/a.py"))  # step 3
    before = s.send()
    s.act(s.disk.read("src/a.py"))  # step 4
    after = s.send()
    assert entry_texts(after)[-2:] == [
        '{"path": "src/a.py"}',
        "[read src/a.py] (unchanged since the read at step 3, shown above)",
    ]
    assert "[read src/a.py]\nalpha\nbeta" in entry_texts(after)
    assert starts_with(texts(before)[:-1], texts(after)) and after.breaks == ()


def test_the_unchanged_stub_has_one_form_for_every_kind() -> None:
    s = Session()
    filler(s, 2)
    s.send()
    s.act(grep("TODO", "a.py:1: TODO"))
    s.send()
    s.act(grep("TODO", "a.py:1: TODO"))
    assert (
        entry_texts(s.send())[-1] == "[grep TODO] (unchanged since the grep at step 3, shown above)"
    )


def test_a_differing_later_read_supersedes_the_earlier_one() -> None:
    s = Session(files={"src/a.py": "v1"})
    filler(s, 2)
    s.send()
    s.act(s.disk.read("src/a.py"))  # step 3
    filler(s, 3)
    s.disk.files["src/a.py"] = "v2"  # changed by nobody the ledger knows of
    before = s.send()
    s.act(s.disk.read("src/a.py"))  # step 7
    after = s.send()
    stub = "[read src/a.py] (elided: superseded by the read at step 7)"
    assert stub in entry_texts(after)
    assert entry_texts(after)[-1] == "[read src/a.py]\nv2"
    assert after.breaks == ("superseded",)
    index = texts(after).index(stub)
    assert texts(after)[:index] == texts(before)[:index]
    assert after.prefix_chars == sum(len(t) for t in texts(before)[:index]) + len("[read src/a.py]")


def test_when_the_earlier_copy_left_the_window_the_later_is_carried_whole() -> None:
    s = having_read("a.py", effective=2_000, files={"a.py": "A" * 1_500})
    while s.sent[-1].breaks != ("slide",):
        s.act(grep(f"p{s.step}", "g" * 1_500))
        s.send()
    assert "[read a.py] (elided: 1,512 chars, older than the current context window — re-read" in (
        "\n".join(entry_texts(s.sent[-1]))
    )
    s.act(s.disk.read("a.py"))
    assert entry_texts(s.send())[-1] == "[read a.py]\n" + "A" * 1_500


def test_stubs_are_final_supersession_never_rewrites_one() -> None:
    s = Session(files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py"))  # 1: whole
    s.send()
    s.act(s.disk.read("a.py"))  # 2: unchanged stub
    s.disk.files["a.py"] = "v2"
    s.send()
    s.act(s.disk.read("a.py"))  # 3: differs
    e = s.send()
    assert [x.text for x in e.entries if x.kind == "read_file"] == [
        "[read a.py] (elided: superseded by the read at step 3)",
        "[read a.py] (unchanged since the read at step 1, shown above)",
        "[read a.py]\nv2",
    ]


def test_ranged_reads_are_superseded_by_their_own_range_or_a_whole_read_and_name_it() -> None:
    text = "\n".join(f"line {i}" for i in range(1, 301))
    s = Session(files={"a.py": text})
    s.send()
    s.act(s.disk.read("a.py", 81, 80), s.disk.read("a.py", 161, 80))  # step 1
    s.disk.files["a.py"] = text.replace("line 100", "line one hundred")
    s.send()
    s.act(s.disk.read("a.py", 81, 80))  # step 2: same range, differs
    e = s.send()
    reads = [x.text.split("\n")[0] for x in e.entries if x.kind == "read_file"]
    assert reads == [
        "[read a.py:81-160] (elided: superseded by the read at step 2)",
        "[read a.py:161-240]",
        "[read a.py:81-160]",
    ]
    s.act(s.disk.read("a.py"))  # step 3: the whole file
    reads = [x.text.split("\n")[0] for x in s.send().entries if x.kind == "read_file"]
    assert reads == [
        "[read a.py:81-160] (elided: superseded by the read at step 2)",
        "[read a.py:161-240] (elided: superseded by the read at step 3)",
        "[read a.py:81-160] (elided: superseded by the read at step 3)",
        "[read a.py]",
    ]


def test_a_failed_result_supersedes_nothing() -> None:
    s = having_read("a.py", files={"a.py": "good"})
    failed = ToolResult("read_file", "a.py", "[read a.py]\nerror: gone", ok=False)
    s.send()
    s.act(failed)
    assert [x.form for x in s.send().entries if x.kind == "read_file"] == [Form.WHOLE] * 2


# -- rule 3: staleness by the range's own text --------------------------------------------


def big_file(n: int = 2_000) -> str:
    return "\n".join(f"line {i}" for i in range(1, n + 1))


def test_seen_1_an_edit_elsewhere_does_not_invalidate_a_ranged_read() -> None:
    """Issue 12 seen 1: an edit at line 1,730 re-sent lines 775-780 byte for byte."""
    s = Session(files={"big.py": big_file()})
    s.send()
    s.act(s.disk.read("big.py", 775, 6))
    before = s.send()
    s.write("big.py", s.disk.files["big.py"].replace("line 1730\n", "line 1730 edited\n"))
    s.act(ToolResult("edit_file", "big.py", "[edit big.py] replaced 1 line"))
    after = s.send()
    assert after.refreshes == () and after.reread == 0 and after.breaks == ()
    assert starts_with(texts(before)[:-1], texts(after))
    assert [c.seq for c in after.confirmations] == [1]
    calls = len(s.disk.calls)
    s.send()
    assert len(s.disk.calls) == calls, "a confirmed read is not checked again"


def test_an_edit_inside_the_range_rereads_it_naming_the_range() -> None:
    s = Session(files={"big.py": big_file()})
    filler(s, 2)
    s.send()
    s.act(s.disk.read("big.py", 775, 6))  # step 3
    filler(s, 4)
    s.send()
    s.write("big.py", s.disk.files["big.py"].replace("line 777\n", "line 777 edited\n"))
    s.act(ToolResult("edit_file", "big.py", "[edit big.py] replaced 1 line"))  # step 8
    e = s.send()  # step 9
    assert e.breaks == ("stale",) and e.reread == 1
    assert (
        "[read big.py:775-780] (re-read at step 9; the read at step 3 was invalidated by the "
        "write at step 8)\nline 775\nline 776\nline 777 edited\nline 778\nline 779\nline 780"
    ) in entry_texts(e)
    assert "line 777\nline 778" not in "\n".join(texts(e)), "stale text is never sent"


def test_seen_2_ranged_rereads_and_stubs_name_their_lines() -> None:
    """Issue 12 seen 2: three identical headers held lines 1-80, 81-160 and 161-240."""
    s = Session(files={"b.py": big_file(300)})
    s.send()
    s.act(*(s.disk.read("b.py", start, 80) for start in (1, 81, 161)))
    s.send()
    s.write("b.py", "\n".join(f"new {i}" for i in range(1, 301)))
    s.act(ToolResult("write_file", "b.py", "[write b.py] 300 lines"))
    e = s.send()
    heads = [x.text.split("\n")[0] for x in e.entries if x.kind == "read_file"]
    ranges = ((1, 80), (81, 160), (161, 240))
    assert heads == [
        *(f"[read b.py:{a}-{b}] (elided: superseded by the re-read at step 3)" for a, b in ranges),
        *(
            f"[read b.py:{a}-{b}] (re-read at step 3; the read at step 1 was invalidated by the "
            "write at step 2)"
            for a, b in ranges
        ),
    ]


def test_a_stale_read_is_reread_at_the_end_and_its_copy_becomes_a_stub_in_place() -> None:
    """The re-read happened at step 9: it is sent after everything before it (rule 6), and
    the stale copy is a one-line stub where it was, so the prefix breaks there, once."""
    s = Session(files={"src/a.py": "v1"})
    filler(s, 2)
    s.send()
    s.act(s.disk.read("src/a.py"))  # step 3
    filler(s, 4)
    before = s.send()
    s.write("src/a.py", "v2")
    s.act(ToolResult("write_file", "src/a.py", "[write src/a.py] 1 line"))  # step 8
    e = s.engine.assemble(step=9, effective_tokens=24_000, trailer="t", refresh=s.disk)
    got = entry_texts(e)
    stub = "[read src/a.py] (elided: superseded by the re-read at step 9)"
    reread = (
        "[read src/a.py] (re-read at step 9; the read at step 3 was invalidated by the write at "
        "step 8)\nv2"
    )
    assert got[-1] == reread and stub in got and "[read src/a.py]\nv1" not in got
    assert got.index(stub) < got.index("[write src/a.py] 1 line") < got.index(reread)
    assert e.request.messages[-1].role is Role.USER and e.request.messages[-1].parts == (reread,)
    assert e.breaks == ("stale",) and [ev.kind for ev in e.events] == ["reread"]
    index = texts(e).index(stub)
    assert texts(e)[:index] == texts(before)[:index]
    assert len(s.ledger) == 2 * 8, "nothing is recorded before commit"
    s.engine.commit(e)
    [recorded] = s.ledger.since(16)
    assert (recorded.seq, recorded.step, recorded.reread_of, recorded.text) == (16, 9, 5, reread)
    again = s.engine.assemble(step=10, effective_tokens=24_000, trailer="t", refresh=s.disk)
    assert again.refreshes == () and again.breaks == ()
    assert texts(again)[:-1] == texts(e)[:-1]


def test_the_next_change_to_a_reread_file_breaks_the_prefix_at_the_reread() -> None:
    s = Session(files={"src/a.py": "v1"})
    s.send()
    s.act(s.disk.read("src/a.py"))  # step 1
    filler(s, 5)
    s.send()
    s.write("src/a.py", "v2")
    s.act(ToolResult("edit_file", "src/a.py", "[edit src/a.py] 1 line"))  # step 7
    first = s.send()  # step 8: re-read at the end
    filler(s, 2)
    s.send()
    s.write("src/a.py", "v3")
    s.act(ToolResult("edit_file", "src/a.py", "[edit src/a.py] 1 line"))  # step 11
    before = s.sent[-1]
    e = s.send()  # step 12
    got = entry_texts(e)
    assert got[-1] == (
        "[read src/a.py] (re-read at step 12; the re-read at step 8 was invalidated by the "
        "write at step 11)\nv3"
    )
    assert "[read src/a.py] (elided: superseded by the re-read at step 12)" in got
    assert "[read src/a.py] (elided: superseded by the re-read at step 8)" in got
    old_reread = texts(before).index(entry_texts(first)[-1])
    assert texts(e)[:old_reread] == texts(before)[:old_reread], "the break is at the re-read"
    assert e.prefix_chars > sum(map(len, texts(before)[:old_reread]))


def test_a_read_made_stale_in_its_own_turn_is_reread_after_the_write() -> None:
    s = Session(files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py"), ToolResult("edit_file", "a.py", "[edit a.py] 1 line"))
    s.write("a.py", "v2")  # the same turn: read, then the edit's change
    e = s.send()
    assert entry_texts(e)[-3:] == [
        "[read a.py] (elided: superseded by the re-read at step 2)",
        "[edit a.py] 1 line",
        "[read a.py] (re-read at step 2; the read at step 1 was invalidated by the write at "
        "step 1)\nv2",
    ]
    assert e.breaks == (), "nothing already sent changed"


def test_an_outside_change_is_named_as_such() -> None:
    s = Session(files={"b.py": "before"})
    s.send()
    s.act(s.disk.read("b.py"))
    s.send()
    s.write("b.py", "after", Cause.DISK)
    e = s.send()
    assert entry_texts(e)[-1] == (
        "[read b.py] (re-read at step 3; the read at step 1 was invalidated by a change on disk)"
        "\nafter"
    )


def test_a_refused_reread_becomes_a_stub_saying_why() -> None:
    s = Session(files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py", 1, 1))
    s.send()
    s.write("a.py", "v2")
    s.disk.refuse["a.py"] = "deny read `a.py` (rule `a.py`, layer workspace)"
    e = s.send()
    assert entry_texts(e)[-1] == (
        "[read a.py:1-1] (elided: the read at step 1 was invalidated by the write at step 2, and "
        "the re-read was refused: deny read `a.py` (rule `a.py`, layer workspace))"
    )
    assert [ev.kind for ev in e.events] == ["reread_refused"] and e.breaks == ("stale",)


def test_a_vanished_file_becomes_a_stub_and_stubs_are_not_rechecked() -> None:
    s = Session(files={"gone.py": "v1"})
    s.send()
    s.act(s.disk.read("gone.py"))
    s.send()
    del s.disk.files["gone.py"]
    s.ledger.note_change("gone.py", Cause.DISK, 2, None)
    e = s.send()
    assert entry_texts(e)[-1] == (
        "[read gone.py] (elided: the read at step 1 was invalidated by a change on disk, and the "
        "file no longer exists)"
    )
    calls = len(s.disk.calls)
    s.send()
    assert len(s.disk.calls) == calls


# -- rule 4: caps --------------------------------------------------------------------------


def test_a_long_result_and_long_words_are_capped_with_the_marker() -> None:
    s = Session(effective=4_000)  # cap 2,000 chars
    s.send()
    s.act(grep("x", "y" * 53_211), words="w" * 3_000)
    e = s.send()
    words, _, result = entry_texts(e)
    assert (
        words == "w" * 2_000 + "\n…[truncated: elided 1,000 of 3,000 chars — re-read or narrow"
        " the query if you need the rest]"
    )
    assert result.endswith(
        "…[truncated: elided 51,220 of 53,220 chars — re-read or narrow the query if you need "
        "the rest]"
    )


# -- rule 5: the window slides in steps ----------------------------------------------------


def test_append_only_while_it_fits_then_one_slide_to_the_low_water_mark() -> None:
    s = Session(effective=4_000)  # 16,000 chars
    s.send()
    while True:
        s.act(grep(f"p{s.step}", "g" * 1_500))
        before = s.sent[-1]
        e = s.send()
        if e.breaks:
            break
        assert starts_with(texts(before)[:-1], texts(e)), "nothing already sent changes"
    assert e.breaks == ("slide",)
    budget = 16_000 - len(e.trailer) - 2
    carried = sum(x.cost for x in e.entries if x.form is Form.WHOLE)
    assert carried <= 0.6 * budget
    assert e.section_chars <= 16_000
    assert (
        "[grep p1] (elided: 1,510 chars, older than the current context window — run it again "
        "if you need it)"
    ) in entry_texts(e)
    s.act(grep("next", "n" * 100))
    after = s.send()
    assert after.breaks == () and starts_with(texts(e)[:-1], texts(after))


def test_window_stub_of_a_read_and_of_the_models_words() -> None:
    s = Session(effective=2_000, files={"src/b.py": "b" * 9_104})
    s.send()
    s.act(s.disk.read("src/b.py"), words="m" * 812)
    while not s.sent[-1].breaks:
        s.act(grep(f"p{s.step}", "g" * 1_500))
        s.send()
    got = entry_texts(s.sent[-1])
    assert "[message] (elided: 812 chars, older than the current context window)" in got
    assert (
        "[read src/b.py] (elided: 9,120 chars, older than the current context window — re-read "
        "it with offset and limit if you need it)"
    ) in got


def test_stub_lines_over_an_eighth_collapse_into_one_user_message() -> None:
    s = Session(effective=2_000)
    s.send()
    while len(s.sent) < 40:
        s.act(grep(f"pattern_{s.step}", "z" * 600))
        s.send()
    e = s.sent[-1]
    folded = [x for x in e.entries if x.form is Form.COLLAPSED]
    assert len(folded) == 1 and folded[0].covers > 0
    assert folded[0].text == (
        f"[{folded[0].covers} earlier observations elided: {folded[0].covers} older than the "
        "current context window — run a tool again if you need one of them]"
    )
    messages = e.request.messages
    assert messages[0].role is Role.USER and messages[0].parts == (FRAME, folded[0].text)
    assert_every_call_answered(e)


def assert_every_call_answered(e: Emission) -> None:
    messages = e.request.messages
    for i, m in enumerate(messages):
        if m.role is Role.ASSISTANT and m.tool_calls:
            answers = [x.tool_call_id for x in messages[i + 1 : i + 1 + len(m.tool_calls)]]
            assert answers == [c.id for c in m.tool_calls]
        if m.role is Role.TOOL:
            assert any(c.id == m.tool_call_id for p in messages[:i] for c in p.tool_calls), (
                "every tool message answers a call sent before it"
            )


def test_at_a_slide_long_arguments_before_the_newest_turn_are_elided_and_stay_so() -> None:
    s = Session(effective=16_000)  # 64,000 chars, cap 8,000: the argument enters whole
    s.send()
    content = "c" * 7_120
    write = ToolResult("write_file", "a.py", "[write a.py] 1 line")
    s.act(write, arguments=[{"path": "a.py", "content": content}])
    while not s.sent[-1].breaks:
        s.act(write, arguments=[{"path": "a.py", "content": content}])
        s.send()
    e = s.sent[-1]
    args = [t for x in e.entries if x.is_turn for t in x.texts]
    elided = '{"path": "a.py", "content": "…[elided: 7,120 chars; the trace keeps it]"}'
    assert args[:-1] == [elided] * (len(args) - 1) and len(args) > 1
    assert args[-1] == '{"path": "a.py", "content": "' + content + '"}', "the newest keeps it"
    assert e.section_chars <= 64_000
    s.act(grep("q", "q"))
    later = [t for x in s.send().entries if x.is_turn for t in x.texts]
    assert later[: len(args) - 1] == [elided] * (len(args) - 1)


def test_the_ceiling_holds_when_effective_shrinks_and_after_an_overflow_halving() -> None:
    s = Session(effective=24_000, files={f"m{i}.py": f"{i}" * 3_000 for i in range(30)})
    for i in range(30):
        s.send(effective=24_000 - i * 700)
        s.act(s.disk.read(f"m{i}.py"), words=f"reading m{i}")
    for e in s.sent:
        assert e.section_chars <= e.effective * 4
    first = s.engine.assemble(step=99, effective_tokens=3_000, trailer="t", refresh=s.disk)
    halved = s.engine.assemble(step=99, effective_tokens=1_500, trailer="t", refresh=s.disk)
    assert first.section_chars <= 12_000 and halved.section_chars <= 6_000
    assert halved.breaks == ("slide",)
    assert_every_call_answered(halved)


def test_a_stale_read_in_a_slide_is_reread_if_it_stays_in_the_window() -> None:
    s = Session(effective=2_000, files={"a.py": "v1"})  # 8,000 chars
    for i in range(4):
        s.send()
        s.act(grep(f"old{i}", "o" * 1_500))
    s.send()
    s.act(s.disk.read("a.py"))  # step 5, newest
    s.send()
    s.write("a.py", "v2")
    s.act(grep("big", "g" * 1_900))  # step 6: does not fit any more
    e = s.send()
    assert e.breaks == ("slide", "stale") and e.reread == 1 and len(e.events) == 1
    assert (
        "[read a.py] (re-read at step 7; the read at step 5 was invalidated by the write at "
        "step 6)\nv2"
    ) in entry_texts(e)


def test_a_stale_read_older_than_the_new_window_is_reread_at_the_end() -> None:
    """The oldest read goes stale on the turn the window slides: its re-read is the newest
    item (rule 6) and stays; its stale copy is a stub and goes out with the slide."""
    s = Session(effective=2_000, files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py"))  # step 1, oldest
    for i in range(4):
        s.send()
        s.act(grep(f"old{i}", "o" * 1_500))
    s.send()
    s.write("a.py", "v2")
    s.act(grep("big", "g" * 1_900))
    e = s.send()
    assert e.breaks == ("slide", "stale") and len(e.refreshes) == 1
    assert "[read a.py]\nv1" not in entry_texts(e), "stale text is never sent"
    assert entry_texts(e)[-1] == (
        "[read a.py] (re-read at step 7; the read at step 1 was invalidated by the write at "
        "step 6)\nv2"
    )
    assert e.section_chars <= 8_000


# -- the measured alternative: re-reads in place --------------------------------------------


def test_in_place_a_stale_read_is_reread_where_it_was() -> None:
    s = Session(files={"src/a.py": "v1"}, rereads="in_place")
    filler(s, 2)
    s.send()
    s.act(s.disk.read("src/a.py"))  # step 3
    s.send()
    s.write("src/a.py", "v2")
    s.act(ToolResult("write_file", "src/a.py", "[write src/a.py] 1 line"))  # step 4
    e = s.send()
    got = entry_texts(e)
    reread = (
        "[read src/a.py] (re-read at step 5; the read at step 3 was invalidated by the write at "
        "step 4)\nv2"
    )
    assert got.index(reread) < got.index("[write src/a.py] 1 line") and got[-1] != reread
    assert e.breaks == ("stale",) and e.rereads == ()
    s.act(s.disk.read("src/a.py"))  # step 5: what the re-read shows
    assert entry_texts(s.send())[-1] == (
        "[read src/a.py] (unchanged since the re-read at step 5, shown above)"
    )


# -- rule 6 and the wire forms --------------------------------------------------------------


def look_then_verify(s: Session) -> Emission:
    """Two calls with words, a reply of words alone, a passed verification: the third send."""
    s.send()
    s.act(s.disk.read("a.py"), grep("x", "hit"), words="Look first.")
    s.send()
    s.act(words="Done.")
    s.observe(ToolResult("verify", "make test", "[verify make test] passed (expected exit 0)"))
    return s.send()


def test_transcript_shape_turns_tool_messages_and_user_texts() -> None:
    e = look_then_verify(Session(files={"a.py": "A"}))
    roles = [(m.role, m.parts, m.tool_call_id) for m in e.request.messages]
    assert roles == [
        (Role.USER, (FRAME,), None),
        (Role.ASSISTANT, ("Look first.",), None),
        (Role.TOOL, ("[read a.py]\nA",), "call_1_0"),
        (Role.TOOL, ("[grep x]\nhit",), "call_1_1"),
        (Role.ASSISTANT, ("Done.",), None),
        (Role.USER, ("[verify make test] passed (expected exit 0)",), None),
    ]
    assert [c.id for c in e.request.messages[1].tool_calls] == ["call_1_0", "call_1_1"]
    f = look_then_verify(Session(wire=Wire.FLAT, files={"a.py": "A"}))
    assert [m.role for m in f.request.messages] == [Role.USER]
    assert f.request.texts() == e.request.texts()
    assert f.request.user == e.request.user


def test_a_call_without_a_recorded_answer_is_not_sent() -> None:
    ledger = Ledger()
    engine = BoundedContext(ledger, RunFrame(SYSTEM, FRAME))
    calls = (ToolCall("a", "grep", {"pattern": "x"}), ToolCall("b", "grep", {"pattern": "y"}))
    ledger.add_turn(1, "", calls)
    ledger.add(1, grep("x", "hit"), call_id="a")
    e = engine.assemble(step=2, effective_tokens=24_000, trailer="t", refresh=lambda s: None)  # type: ignore[arg-type,return-value]
    assert [c.id for c in e.request.messages[1].tool_calls] == ["a"]
    assert_every_call_answered(e)


# -- the assembled event -------------------------------------------------------------------


def test_the_assembled_event_reports_prefix_chars_and_breaks() -> None:
    s = having_read("a.py", files={"a.py": "v1"})
    first = s.send()
    s.write("a.py", "v2")
    second = s.send()
    event = second.assembled_event(recalled=2)
    assert event.kind == "assembled"
    assert event.detail == {
        "carried": 1,
        "stubbed": 1,
        "reread": 1,
        "collapsed": 0,
        "recalled": 2,
        "estTokens": second.est_tokens,
        "effective": 24_000,
        "prefixChars": second.prefix_chars,
        "breaks": ["stale"],
        "naive": False,
    }
    shared = texts(first)[:3]  # system, frame, the call's arguments
    assert second.prefix_chars == sum(map(len, shared)) + len("[read a.py]")
    assert second.est_tokens == -(-second.request.chars // 4)


# -- the honest baseline --------------------------------------------------------------------


@pytest.mark.parametrize("wire", list(Wire))
def test_the_naive_baseline_appends_everything_and_changes_nothing(wire: Wire) -> None:
    s = Session(naive=True, wire=wire, memory="notes", files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py"), words="w" * 5_000)
    s.send()
    s.write("a.py", "v2")
    s.act(s.disk.read("a.py"))
    for _ in range(3):
        s.send()
        s.act(grep("p", "g" * 50_000))
    last = s.send()
    for a, b in zip(s.sent, s.sent[1:], strict=False):
        assert starts_with(texts(a)[:-1], texts(b)) and b.breaks == ()
    assert "[read a.py]\nv1" in entry_texts(last), "a conventional agent keeps stale text"
    assert "w" * 5_000 in entry_texts(last) and last.refreshes == ()
    assert texts(last)[-1] == s.trailer(last.step) and last.naive


def test_low_water_sets_how_far_the_window_slides() -> None:
    carried = {}
    for low_water in (0.3, 0.9):
        s = Session(effective=4_000, low_water=low_water)
        s.send()
        while not s.sent[-1].breaks:
            s.act(grep(f"p{s.step}", "g" * 1_000))
            s.send()
        e = s.sent[-1]
        budget = 16_000 - len(e.trailer) - 2
        carried[low_water] = sum(x.cost for x in e.entries if x.form is Form.WHOLE)
        assert carried[low_water] <= low_water * budget
        assert carried[low_water] > low_water * budget - 1_100  # one entry more would not fit
    assert carried[0.3] < carried[0.9]
    with pytest.raises(ValueError, match="low_water"):
        BoundedContext(Ledger(), RunFrame(SYSTEM, FRAME), low_water=0.0)


def test_an_unchanged_stub_whose_original_slid_out_is_carried_whole_again() -> None:
    s = Session(effective=2_000, files={"a.py": "A" * 1_000})  # 8,000 chars
    s.send()
    s.act(s.disk.read("a.py"))  # step 1
    for _ in range(3):
        s.send()
        s.act(grep(f"p{s.step}", "g" * 1_600))
    s.send()
    s.act(s.disk.read("a.py"))  # step 5: unchanged since step 1
    assert entry_texts(s.send())[-1] == (
        "[read a.py] (unchanged since the read at step 1, shown above)"
    )
    s.act(grep("big", "b" * 1_950))
    e = s.send()
    assert e.breaks[0] == "slide"
    reads = [x for x in e.entries if x.kind == "read_file"]
    assert [x.form for x in reads][-1] is Form.WHOLE
    assert reads[-1].text == "[read a.py]\n" + "A" * 1_000
    assert all(x.form is not Form.WHOLE for x in reads[:-1])


def test_a_read_showing_what_a_reread_shows_is_unchanged_since_the_reread() -> None:
    s = Session(files={"a.py": "v1"})
    s.send()
    s.act(s.disk.read("a.py"))  # step 1
    s.send()
    s.write("a.py", "v2")
    s.act(ToolResult("edit_file", "a.py", "[edit a.py] replaced 1 line with 1 line"))  # step 2
    reread = s.send()  # step 3: re-read
    s.act(s.disk.read("a.py"))  # step 3: the model reads it again: v2, as re-read
    e = s.send()
    assert entry_texts(e)[-1] == "[read a.py] (unchanged since the re-read at step 3, shown above)"
    assert e.breaks == () and starts_with(texts(reread)[:-1], texts(e))
