"""The bounded context engine (issue 12): the rules of SPEC §3 that issue 21 left as they
were (order, caps, the window, the wire forms, the baseline). The revised rules 2, 3 and 5
(refresh entries, "replaces" headers, cleanup at slides) and the ``assembled`` event are in
``test_context_rules.py``."""

from __future__ import annotations

import pytest

from harness.context import BoundedContext, Emission, Form, RunFrame, Wire
from harness.ledger import Ledger
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
