"""The required-literal fast path finds exactly what the plain regex scan finds."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.tools.grep_engine import compile_pattern, required_literal, search


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        pytest.param(r"\bcount\b.*\berror\b", "count", id="boundaries"),
        pytest.param("handle_[a-z]+_request", None, id="literal-prefix-is-re-s-own-fast-path"),
        pytest.param("[hH]andle_[a-z]+_request", "_request", id="longest-run"),
        pytest.param("(import|from) (os|sys)", None, id="group"),
        pytest.param("(?i)todo", None, id="ignorecase"),
        pytest.param("a|b", None, id="alternation"),
        pytest.param(r"\sfoo\.bar", "foo.bar", id="escaped-dot"),
        pytest.param(r"\bab", None, id="too-short"),
        pytest.param(r"\bx\nyz", None, id="newline"),
    ],
)
def test_required_literal(pattern: str, literal: str | None) -> None:
    assert required_literal(pattern) == literal


LINES = [
    "count = 1  # error here",
    "the count of errors",
    "counter error",
    "no match at all",
    "recount error_code",
    "count\terror",
    "café count error",
    "",
    "handle_get_request(count)",
    "import os",
    "import sys, error count",
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(LINES), min_size=0, max_size=30),
    st.sampled_from(
        [
            r"\bcount\b.*\berror\b",
            "count.*error",
            r"^count",
            r"error$",
            "handle_[a-z]+_request",
            "import (os|sys)",
            r"count\b",
            "café count",
        ]
    ),
)
def test_fast_path_agrees_with_the_plain_scan(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], pattern: str
) -> None:
    root = tmp_path_factory.mktemp("g")
    Path(root / "f.txt").write_text("\n".join(lines))
    fast = compile_pattern(pattern)
    plain = dataclasses.replace(fast, literal=None)
    a = search(root, ["f.txt"], fast, keep=100)
    b = search(root, ["f.txt"], plain, keep=100)
    assert [(h.line_no, h.text, h.column) for h in a.hits] == [
        (h.line_no, h.text, h.column) for h in b.hits
    ]
    assert (a.total_lines, a.files_with_hits) == (b.total_lines, b.files_with_hits)
