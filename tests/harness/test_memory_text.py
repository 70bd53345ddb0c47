"""The text rules of memory: normalised words, Jaccard, the value cap, key checks, and the
escaping that keeps any note on one line (hypothesis for hostile input)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.errors import HarnessError, MemoryInputError
from harness.memory.block import render_line
from harness.memory.text import (
    GLOBAL,
    TRUNCATION_MARK,
    cap_value,
    check_key,
    clean_value,
    inline,
    jaccard,
    scope_for,
    words,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("Run `make test` first!", {"run", "make", "test", "first"}, id="punctuation"),
        pytest.param("src/harness/memory.py", {"src", "harness", "memory"}, id="path"),
        pytest.param("max_entries is 64", {"max", "entries"}, id="underscore-and-short"),
        pytest.param("Über CAFÉ", {"über", "café"}, id="unicode-letters"),
        pytest.param("a an of to", set(), id="only-short-words"),
    ],
)
def test_words_are_lowercase_alphanumeric_runs_of_three_or_more(
    text: str, expected: set[str]
) -> None:
    assert words(text) == expected


def test_jaccard() -> None:
    a = frozenset({"make", "test", "runs", "suite", "whole"})
    assert jaccard(a, a) == 1.0
    assert jaccard(a, frozenset({"make", "test", "runs"})) == pytest.approx(0.6)
    assert jaccard(a, frozenset()) == 0.0
    assert jaccard(frozenset(), frozenset()) == 0.0


@pytest.mark.parametrize("limit", [16, 100, 2_000])
def test_cap_value_is_exact(limit: int) -> None:
    capped, cut = cap_value("x" * (limit + 1), limit)
    assert cut and len(capped) == limit and capped.endswith(TRUNCATION_MARK)
    same, cut = cap_value("x" * limit, limit)
    assert not cut and same == "x" * limit


def test_check_key_strips_and_validates() -> None:
    assert check_key("  build-command ") == "build-command"
    assert check_key("notes about src/a.py") == "notes about src/a.py"
    for bad in ("", "\t", "a\x00b", "line\nbreak", "zero\u200bwidth", "x" * 101):
        with pytest.raises(MemoryInputError) as raised:
            check_key(bad)
        # In the error tree, not a bare ValueError that any caller might swallow.
        assert isinstance(raised.value, HarnessError)
        assert not isinstance(raised.value, ValueError)


def test_lone_surrogates_become_replacement_characters() -> None:
    assert clean_value("a\ud800b") == "a\ufffdb"
    assert clean_value("ok 🙂") == "ok 🙂"


def test_scope_for() -> None:
    assert scope_for("/w", "workspace") == "/w"
    assert scope_for("/w", "global") == GLOBAL
    with pytest.raises(MemoryInputError, match="scope"):
        scope_for("/w", "everywhere")


def test_inline_escapes_what_could_break_a_line() -> None:
    assert inline("a\nb\r\tc") == "a\\nb\\r\\tc"
    assert inline("bell\x07 esc\x1b[31m") == "bell\\x07 esc\\x1b[31m"
    assert inline("rtl\u202eevil \u2028sep") == "rtl\\u202eevil \\u2028sep"
    assert inline("plain text, ünïcode 🙂") == "plain text, ünïcode 🙂"


@given(st.text(), st.text(min_size=1), st.sampled_from(["fact", "decision"]), st.booleans())
def test_any_note_renders_as_exactly_one_printable_line(
    key: str, value: str, kind: str, pinned: bool
) -> None:
    line = render_line(key, clean_value(value), kind=kind, pinned=pinned)
    assert line.startswith("- ")
    assert len(line.splitlines()) == 1
    assert all(ch.isprintable() or ch == " " for ch in line)
