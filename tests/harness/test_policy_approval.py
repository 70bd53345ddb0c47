"""What an approver shows: the whole target with control characters escaped and newlines as
``⏎``, a preview that is cut only between escapes and counts what it hides, and the full
view that ends a line after each ``⏎``."""

from __future__ import annotations

import pytest

from harness.policy import NEWLINE_MARK, Preview, full_view, preview, shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("make test", "make test", id="plain"),
        pytest.param("a\nb", "a⏎b", id="newline"),
        pytest.param("a⏎b", "a\\u23ceb", id="a-literal-mark-is-escaped"),
        pytest.param("\x1b[2K\rok", "\\x1b[2K\\rok", id="erase-line"),
        pytest.param("abc\u202edef", "abc\\u202edef", id="bidi-override"),
        pytest.param("\x07\t\x00\x9b", "\\x07\\t\\x00\\x9b", id="c0-and-c1"),
        pytest.param("héllo ✓", "héllo ✓", id="printable-unicode-kept"),
    ],
)
def test_shown(text: str, expected: str):
    assert shown(text) == expected


def test_preview_never_cuts_inside_an_escape():
    text = "ab\x1bcd"  # shown: ab\x1bcd (8 characters)
    assert preview(text, 8) == Preview("ab\\x1bcd", 0)
    assert preview(text, 5) == Preview("ab", 6)  # `\x1b` does not fit whole
    assert preview(text, 6) == Preview("ab\\x1b", 2)


def test_preview_counts_what_it_hides():
    head = preview("x" * 10_000, 300)
    assert head.text == "x" * 300 and head.hidden == 9_700 and head.cut


def test_full_view_ends_a_line_after_each_newline_mark():
    assert full_view("echo a\necho b\x1b") == f"echo a{NEWLINE_MARK}\necho b\\x1b"
