"""The §3 rules the per-turn assembly of issue 3 pinned, moved onto the bounded engine with
their exact texts: subjects of supersession, content hashes, caps and markers (issue 21:
a later result names what it replaces; a stale read gets a refresh entry)."""

from __future__ import annotations

from harness.context import Form, cap_entry, truncation_marker
from harness.ledger import Cause
from harness.types import ToolResult, content_hash
from tests.support.context_run import Session, grep, having_read


def entry_texts(s: Session) -> list[str]:
    return [t for entry in s.sent[-1].entries for t in entry.texts]


def results(s: Session) -> list[str]:
    """The result texts of the last request (not the model's turns)."""
    return [e.text for e in s.sent[-1].entries if not e.is_turn]


def test_dot_slash_and_plain_path_are_one_subject() -> None:
    s = Session(files={"./a.py": "x", "a.py": "y"})
    s.send()
    s.act(s.disk.read("./a.py"))
    s.send()
    s.act(s.disk.read("a.py"))
    s.send()
    assert results(s) == [
        "[read ./a.py]\nx",
        "[read a.py] (replaces the read at step 1)\ny",
    ]


def test_grep_is_superseded_by_the_same_pattern_over_the_same_glob_only() -> None:
    s = Session()
    s.send()
    s.act(grep("TODO in *.py", "a.py:1: TODO"))
    s.send()
    s.act(grep("TODO in *.md", "b.md:1: TODO"))
    s.send()
    s.act(grep("TODO in *.py", "a.py:1: TODO x"))
    s.send()
    assert results(s) == [
        "[grep TODO in *.py]\na.py:1: TODO",
        "[grep TODO in *.md]\nb.md:1: TODO",
        "[grep TODO in *.py] (replaces the grep at step 1)\na.py:1: TODO x",
    ]


def test_a_whole_read_is_not_superseded_by_a_range() -> None:
    s = having_read("a.py", files={"a.py": "one\ntwo\nthree"})
    s.send()
    s.act(s.disk.read("a.py", 2, 1))
    s.send()
    assert results(s) == ["[read a.py]\none\ntwo\nthree", "[read a.py:2-2]\ntwo"]


def test_a_change_to_the_same_bytes_invalidates_nothing() -> None:
    s = having_read("a.py", files={"a.py": "same"})
    before = s.send()
    assert not s.ledger.note_change("a.py", Cause.DISK, 2, content_hash(b"same"))
    after = s.send()
    assert s.disk.calls == [] and after.reread == 0 and after.breaks == ()
    assert after.request.texts()[:-1] == before.request.texts()[:-1]


def test_a_write_that_restores_the_bytes_the_model_saw_invalidates_nothing() -> None:
    s = having_read("a.py", files={"a.py": "v1"})
    s.send()
    s.write("a.py", "v2")
    s.write("a.py", "v1")  # written back before the next request
    e = s.send()
    assert e.refreshes == () and e.breaks == () and results(s) == ["[read a.py]\nv1"]


def test_truncation_marker_uses_comma_grouped_counts() -> None:
    assert truncation_marker(41_220, 53_220) == (
        "…[truncated: elided 41,220 of 53,220 chars — re-read or narrow the query if you need "
        "the rest]"
    )
    text = "x" * 53_220
    assert cap_entry(text, 12_000) == "x" * 12_000 + "\n" + truncation_marker(41_220, 53_220)
    assert cap_entry("short", 12_000) == "short"


def test_an_observation_larger_than_the_whole_budget_is_capped_and_carried() -> None:
    s = Session(effective=24_000)  # 96,000 chars; the entry cap is 12,000
    s.send()
    s.act(grep("x", "y" * 500_000))
    e = s.send()
    [result] = [x for x in e.entries if not x.is_turn]
    assert result.form is Form.WHOLE and e.carried == 1
    assert result.text == "[grep x]\n" + "y" * 11_991 + "\n" + truncation_marker(488_009, 500_009)
    assert e.section_chars <= 96_000


def test_the_memory_block_comes_first_and_shrinks_the_observation_budget() -> None:
    s = Session(effective=2_000, memory="## Memory\n- k: v")  # 8,000 chars
    s.send()
    s.act(grep("a", "a" * 100))
    e = s.send()
    assert e.request.messages[0].parts[1] == "## Memory\n- k: v"
    while "slide" not in s.sent[-1].breaks:
        s.act(grep(f"p{s.step}", "b" * 1_500))
        s.send()
    e = s.sent[-1]
    budget = 8_000 - (len("## Memory\n- k: v") + 2) - (len(e.trailer) + 2)
    carried = sum(x.cost for x in e.entries if x.form is Form.WHOLE)
    assert carried <= 0.6 * budget < sum(x.cost for x in s.sent[-2].entries)


def test_a_write_by_exec_is_named_as_the_exec() -> None:
    s = having_read("a.py", files={"a.py": "x = 1"})
    s.send()
    s.act(ToolResult("exec", "black a.py", "[exec black a.py]\nexit 0"))
    s.write("a.py", "x = 1  # formatted", Cause.EXEC)
    s.send()
    assert results(s)[-1] == (
        "[read a.py] (refreshed at step 3: the exec at step 2 changed it since the read at "
        "step 1)\nx = 1  # formatted"
    )
