"""The six rules of §3, pinned with exact texts, and properties over random ledgers."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.context import (
    Assembly,
    RefreshOutcome,
    assemble,
    cap_entry,
    truncation_marker,
)
from harness.contract import entry_cap_chars
from harness.ledger import Cause, Ledger
from harness.types import ReadSpan, ToolResult, content_hash
from harness.types import ReadSpan as Span


def read(
    path: str,
    body: str,
    offset: int | None = None,
    limit: int | None = None,
    whole: str | None = None,
) -> ToolResult:
    file_text = body if whole is None else whole
    return ToolResult(
        name="read_file",
        target=path,
        text=f"[read {path}]\n{body}",
        read=ReadSpan(path, offset, limit, content_hash(file_text.encode())),
    )


def grep(pattern: str, body: str, glob: str | None = None) -> ToolResult:
    target = pattern if glob is None else f"{pattern} in {glob}"
    return ToolResult(name="grep", target=target, text=f"[grep {target}]\n{body}")


class Disk:
    """A refresh callback over an in-memory file map (the interface, not our component)."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.calls: list[str] = []
        self.refuse: dict[str, str] = {}

    def __call__(self, span: Span) -> RefreshOutcome:
        self.calls.append(span.path)
        if span.path in self.refuse:
            return RefreshOutcome(
                ok=False, reason=f"the re-read was refused: {self.refuse[span.path]}"
            )
        if span.path not in self.files:
            return RefreshOutcome(ok=False, reason="the file no longer exists")
        text = self.files[span.path]
        return RefreshOutcome(ok=True, text=text, content_hash=content_hash(text.encode()))


def run(
    ledger: Ledger,
    disk: Disk | None = None,
    *,
    step: int = 9,
    effective: int = 24_000,
    memory: str = "",
) -> Assembly:
    return assemble(
        ledger,
        step=step,
        effective_tokens=effective,
        entry_cap_chars=entry_cap_chars(effective),
        memory_block=memory,
        refresh=disk or Disk({}),
    )


def test_a_later_read_supersedes_an_earlier_one() -> None:
    ledger = Ledger()
    ledger.add(1, read("a.py", "old view"))
    ledger.add(2, read("a.py", "new view"))
    out = run(ledger)
    assert (
        out.section
        == "[read a.py] (elided: superseded by the read at step 2)\n\n[read a.py]\nnew view"
    )
    assert (out.carried, out.stubbed) == (1, 1)


def test_dot_slash_and_plain_path_are_one_subject() -> None:
    ledger = Ledger()
    ledger.add(1, read("./a.py", "x"))
    ledger.add(2, read("a.py", "y"))
    assert dict(run(ledger).kinds)[0] == "superseded"


def test_grep_superseded_by_same_pattern_and_glob_only() -> None:
    ledger = Ledger()
    ledger.add(1, grep("TODO", "a.py:1: TODO", "*.py"))
    ledger.add(2, grep("TODO", "b.md:1: TODO", "*.md"))
    ledger.add(3, grep("TODO", "a.py:1: TODO x", "*.py"))
    kinds = dict(run(ledger).kinds)
    assert kinds == {0: "superseded", 1: "carried", 2: "carried"}
    assert "[grep TODO in *.py] (elided: superseded by the grep at step 3)" in run(ledger).section


def test_ranged_read_is_superseded_only_by_the_same_range_or_a_whole_read() -> None:
    ledger = Ledger()
    ledger.add(1, read("a.py", "lines 1-10", 1, 10, whole="W"))
    ledger.add(2, read("a.py", "lines 20-30", 20, 10, whole="W"))
    assert dict(run(ledger).kinds) == {0: "carried", 1: "carried"}
    ledger.add(3, read("a.py", "lines 1-10 again", 1, 10, whole="W"))
    assert dict(run(ledger).kinds) == {0: "superseded", 1: "carried", 2: "carried"}
    ledger.add(4, read("a.py", "W", whole="W"))
    assert dict(run(ledger).kinds) == {
        0: "superseded",
        1: "superseded",
        2: "superseded",
        3: "carried",
    }


def test_a_whole_read_is_not_superseded_by_a_range() -> None:
    ledger = Ledger()
    ledger.add(1, read("a.py", "W"))
    ledger.add(2, read("a.py", "part", 1, 1, whole="W"))
    assert dict(run(ledger).kinds) == {0: "carried", 1: "carried"}


def test_a_failed_read_supersedes_nothing() -> None:
    ledger = Ledger()
    ledger.add(1, read("a.py", "good"))
    ledger.add(
        2, ToolResult(name="read_file", target="a.py", text="[read a.py]\nerror: x", ok=False)
    )
    assert dict(run(ledger).kinds) == {0: "carried", 1: "carried"}


def test_a_read_made_stale_by_the_agents_write_is_reread() -> None:
    ledger = Ledger()
    ledger.add(3, read("src/a.py", "v1"))
    ledger.note_change("src/a.py", Cause.WRITE, 5, content_hash(b"v2"))
    disk = Disk({"src/a.py": "v2"})
    out = run(ledger, disk, step=9)
    assert out.section == (
        "[read src/a.py] (re-read at step 9; the read at step 3 was invalidated by the write at "
        "step 5)\nv2"
    )
    assert out.reread == 1 and disk.calls == ["src/a.py"]
    assert [e.kind for e in out.events] == ["reread"]
    for r in out.refreshes:
        ledger.apply_refresh(r)
    again = run(ledger, disk, step=10)
    assert disk.calls == ["src/a.py"], "a refreshed read is not re-read again"
    assert again.section.startswith("[read src/a.py] (re-read at step 9;")
    assert again.reread == 0


def test_an_outside_change_is_named_as_such() -> None:
    ledger = Ledger()
    ledger.add(2, read("b.py", "before"))
    ledger.note_change("b.py", Cause.DISK, 4, content_hash(b"after"))
    out = run(ledger, Disk({"b.py": "after"}), step=6)
    assert out.section == (
        "[read b.py] (re-read at step 6; the read at step 2 was invalidated by a change on disk)"
        "\nafter"
    )


def test_a_change_to_the_same_bytes_invalidates_nothing() -> None:
    ledger = Ledger()
    ledger.add(1, read("a.py", "same"))
    assert not ledger.note_change("a.py", Cause.DISK, 2, content_hash(b"same"))
    disk = Disk({"a.py": "same"})
    out = run(ledger, disk)
    assert disk.calls == [] and out.reread == 0


def test_a_refused_reread_becomes_a_stub_saying_why() -> None:
    ledger = Ledger()
    ledger.add(3, read("a.py", "v1"))
    ledger.note_change("a.py", Cause.WRITE, 5, content_hash(b"v2"))
    disk = Disk({"a.py": "v2"})
    disk.refuse["a.py"] = "deny read `a.py` (rule `a.py`, layer workspace)"
    out = run(ledger, disk)
    assert out.section == (
        "[read a.py] (elided: the read at step 3 was invalidated by the write at step 5, and the "
        "re-read was refused: deny read `a.py` (rule `a.py`, layer workspace))"
    )
    assert [e.kind for e in out.events] == ["reread_refused"]


def test_a_vanished_file_becomes_a_stub() -> None:
    ledger = Ledger()
    ledger.add(3, read("gone.py", "v1"))
    ledger.note_change("gone.py", Cause.DISK, 4, None)
    out = run(ledger, Disk({}))
    assert out.section == (
        "[read gone.py] (elided: the read at step 3 was invalidated by a change on disk, and the "
        "file no longer exists)"
    )


def test_truncation_marker_uses_comma_grouped_counts() -> None:
    assert truncation_marker(41_220, 53_220) == (
        "…[truncated: elided 41,220 of 53,220 chars — re-read or narrow the query if you need "
        "the rest]"
    )
    text = "x" * 53_220
    capped = cap_entry(text, 12_000)
    assert capped == "x" * 12_000 + "\n" + truncation_marker(41_220, 53_220)


def test_an_observation_larger_than_the_whole_budget_is_capped_and_carried() -> None:
    ledger = Ledger()
    ledger.add(1, grep("x", "y" * 500_000))
    out = run(ledger, effective=24_000)
    assert out.carried == 1
    assert out.section.endswith(truncation_marker(500_009 - 12_000, 500_009))
    assert len(out.section) < 24_000 * 4


def test_newest_first_fit_turns_older_ones_into_window_stubs() -> None:
    ledger = Ledger()
    ledger.add(1, grep("old", "o" * 9_000))
    ledger.add(2, read("src/b.py", "b" * 9_100))
    ledger.add(3, grep("new", "n" * 7_000))
    out = run(ledger, effective=4_000)  # 16,000 chars; entry cap 2,000 -> everything capped
    assert out.carried == 3
    out = run(ledger, effective=2_000, memory="")  # 8,000 chars budget, cap 2,000 chars
    assert dict(out.kinds) == {0: "carried", 1: "carried", 2: "carried"}
    small = Ledger()
    small.add(1, read("src/b.py", "b" * 9_111))
    small.add(2, grep("new", "n" * 1_990))
    out = assemble(
        small,
        step=3,
        effective_tokens=600,
        entry_cap_chars=2_100,
        memory_block="",
        refresh=Disk({}),
    )
    assert out.section.startswith(
        "[read src/b.py] (elided: 9,127 chars, older than the current context window — re-read "
        "it with offset and limit if you need it)"
    )
    assert dict(out.kinds) == {0: "window", 1: "carried"}


def test_stubs_collapse_into_one_line_past_an_eighth_of_the_budget() -> None:
    ledger = Ledger()
    for i in range(40):
        ledger.add(i + 1, read(f"src/module_{i}.py", "z" * 1_500))
    out = run(ledger, effective=2_000)  # 8,000 chars: ~5 carried, 35 stubs of ~150 chars
    assert out.collapsed == out.stubbed > 0
    first = out.section.split("\n\n")[0]
    assert re.fullmatch(
        r"\[\d+ earlier observations elided: \d+ older than the current context window — run a "
        r"tool again if you need one of them\]",
        first,
    )
    assert out.section.count("(elided:") == 0


def test_memory_block_comes_first_and_shrinks_the_observation_budget() -> None:
    ledger = Ledger()
    ledger.add(1, grep("a", "a" * 100))
    out = run(ledger, memory="## Your notes\n- k: v")
    assert out.section.startswith("## Your notes\n- k: v\n\n[grep a]")


# -- properties -------------------------------------------------------------------------

op = st.one_of(
    st.tuples(st.just("read"), st.integers(0, 4), st.integers(0, 20_000)),
    st.tuples(st.just("range"), st.integers(0, 4), st.integers(0, 3_000)),
    st.tuples(st.just("grep"), st.integers(0, 3), st.integers(0, 20_000)),
    st.tuples(st.just("write"), st.integers(0, 4), st.integers(0, 100)),
)


def build(ops: list[tuple[str, int, int]]) -> tuple[Ledger, Disk]:
    ledger, files = Ledger(), {f"f{i}.py": f"content {i}" for i in range(5)}
    for n, (kind, which, size) in enumerate(ops):
        step = n + 1
        marker = f"<obs{n}>"
        path = f"f{which}.py"
        if kind == "read":
            ledger.add(step, read(path, marker + "r" * size, whole=files[path]))
        elif kind == "range":
            ledger.add(step, read(path, marker + "r" * size, 1 + which, 10, whole=files[path]))
        elif kind == "grep":
            ledger.add(step, grep(f"p{which}", marker + "g" * size))
        else:
            files[path] = f"content {which} v{n}" + "w" * size
            ledger.note_change(path, Cause.WRITE, step, content_hash(files[path].encode()))
    return ledger, Disk(files)


@settings(max_examples=300, deadline=None)
@given(st.lists(op, max_size=40), st.integers(2_000, 30_000))
def test_properties_over_random_ledgers(ops: list[tuple[str, int, int]], effective: int) -> None:
    ledger, disk = build(ops)
    out = run(ledger, disk, step=len(ops) + 1, effective=effective)
    budget = effective * 4
    # 1. never more than an eighth over the budget
    assert len(out.section) <= budget + budget // 8
    kinds = dict(out.kinds)
    observations = ledger.observations()
    # 2. a superseded entry is never carried whole
    from harness.context.legacy import _superseders

    for seq in _superseders(observations):
        assert kinds[seq] == "superseded"
    # 3. the newest observation that fits is carried whole
    live = [o for o in observations if kinds[o.seq] != "superseded"]
    if live:
        newest = live[-1]
        cap = entry_cap_chars(effective)
        stale = ledger.stale_reason(newest)
        if stale is None and len(cap_entry(newest.text, cap)) + 2 <= budget:
            assert kinds[newest.seq] == "carried"
            assert cap_entry(newest.text, cap) in out.section
    # 4. chronological: carried markers appear in ledger order
    positions = [
        out.section.find(f"<obs{o.seq}>")
        for o in observations
        if kinds[o.seq] == "carried" and o.step == o.seq + 1
    ]
    positions = [p for p in positions if p >= 0]
    assert positions == sorted(positions)
