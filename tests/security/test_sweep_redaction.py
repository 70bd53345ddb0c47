"""Sweep: ``harness.redact`` against what a cut upstream leaves of a key (issue 9, seen 6:
"26 of 55 characters of a key … land in runs.error"). Whatever cut a text went through
before it reached redaction — its head kept, its tail kept, both, around any text — no
piece of the key of 12 characters or more survives; a text holding no piece of the key is
left exactly as it was."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.redact import MIN_PIECE_CHARS, REDACTED, clip, redact, register, registered
from tests.support.planted import Planted

PLANTED = Planted.new("redsweep")
KEY = PLANTED.key


@pytest.fixture(scope="module", autouse=True)
def _registered() -> None:
    register(KEY)


around = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
head = st.integers(MIN_PIECE_CHARS, len(KEY)).map(lambda n: KEY[:n])
tail = st.integers(MIN_PIECE_CHARS, len(KEY)).map(lambda n: KEY[-n:])
piece = head | tail | st.just(KEY)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(around, piece), min_size=1, max_size=4), around)
def test_no_head_or_tail_of_the_key_survives(parts: list[tuple[str, str]], end: str) -> None:
    text = "".join(a + p for a, p in parts) + end
    cleaned = redact(text)
    PLANTED.assert_absent("the redacted text", cleaned)
    assert cleaned.count(REDACTED) >= 1


@settings(max_examples=400, deadline=None)
@given(around, st.integers(0, 200), st.integers(1, 300))
def test_a_key_cut_anywhere_then_clipped_leaves_no_piece(pad: str, at: int, limit: int) -> None:
    text = "x" * at + pad + KEY + " after"
    for cut in (text[:limit], text[-limit:], text[: at + len(pad) + 20]):
        PLANTED.assert_absent("clip of a cut text", clip(cut, limit))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_text_without_a_piece_is_left_alone(text: str) -> None:
    # Of any key: the registry is process-wide, so keys other tests registered count too
    # (a head or tail of 12 characters is in every longer piece).
    n = MIN_PIECE_CHARS
    if any(k[:n] in text or k[-n:] in text for k in registered()):
        return
    assert redact(text) == text
