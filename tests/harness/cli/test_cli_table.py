"""``harness.cli.table``: tables that fit the width — fixed columns (ids, numbers) whole,
text columns shrunk and cut with ``…``, one line per row (hostile values from hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from harness.cli.table import Column, cut, render

COLUMNS = (
    Column("id", "id"),
    Column("outcome", "fixed"),
    Column("tokens", "number"),
    Column("goal", min_width=10),
    Column("note", min_width=6),
)

text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=200
)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(1, 10**6),
            st.sampled_from(["success", "verification_failed", "running"]),
            st.integers(0, 10**9),
            text,
            text,
        ),
        max_size=8,
    ),
    width=st.integers(30, 200),
)
def test_every_line_fits_and_fixed_cells_are_whole(
    rows: list[tuple[int, str, int, str, str]], width: int
) -> None:
    cells = [[str(i), outcome, f"{n:,}", goal, note] for i, outcome, n, goal, note in rows]
    lines, short = render(COLUMNS, cells, width)
    assert not short
    assert len(lines) == len(rows) + 1
    # The widest fixed cells (7 + 19 + 13), the gaps (4 x 2) and the text minimums (10 + 6):
    # from 63 columns up every line fits; below, only the text columns are squeezed.
    for line, row in zip(lines[1:], cells, strict=True):
        assert width < 63 or cell_len(line.plain) <= width, line.plain
        assert "\n" not in line.plain and "\x1b" not in line.plain
        for value in row[:3]:
            assert value in line.plain, "an id, outcome or number is never cut"


def test_short_text_is_not_cut_and_long_text_ends_in_an_ellipsis() -> None:
    lines, _ = render(COLUMNS, [["7", "success", "1,234", "short goal", "x" * 300]], 80)
    row = lines[1].plain
    assert "short goal" in row and row.endswith("…") and len(row) == 80


def test_short_headers_when_the_full_ones_do_not_leave_room() -> None:
    columns = (
        Column("step", "id"),
        Column("a very long header", "number", short="a"),
        Column("another long header", "number", short="b"),
        Column("text", min_width=20),
    )
    wide, short = render(columns, [["1", "2", "3", "hello"]], 120)
    assert not short and "a very long header" in wide[0].plain
    narrow, short = render(columns, [["1", "2", "3", "hello"]], 40)
    assert short and narrow[0].plain.split() == ["step", "a", "b", "text"]


def test_control_characters_in_a_value_are_escaped() -> None:
    lines, _ = render(COLUMNS, [["1", "success", "0", "evil\x1b[2Jgoal\nnext", ""]], 120)
    assert "\x1b" not in lines[1].plain and "\\x1b[2J" in lines[1].plain


def test_cut() -> None:
    assert cut("abcdef", 10) == "abcdef"
    assert cut("abcdef", 4) == "abc…"
    assert cell_len(cut("日本語のテキスト", 7)) <= 7
