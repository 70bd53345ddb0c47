"""Cutting ``Content-Length`` frames out of the client's bytes (``server.lsp.wire.framing``): lenient
where clients differ, and never wedged by a bad header — the parser reports it and
resynchronises at the next ``Content-Length:`` (issue 11, seen 6)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from server.lsp.wire.framing import MAX_HEADER_LINE_BYTES, BadFrame, FrameParser


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def feed_all(data: bytes, *, chunk: int | None = None, max_body: int | None = None) -> list:
    parser = FrameParser() if max_body is None else FrameParser(max_body=max_body)
    if chunk is None:
        return parser.feed(data)
    out = []
    for i in range(0, len(data), chunk):
        out += parser.feed(data[i : i + chunk])
    return out


def test_frames_in_the_forms_clients_send() -> None:
    data = (
        frame(b'{"a":1}')
        + b"Content-Length: 7\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
        + b'{"b":2}'
        + b"content-length:7\n\n"  # lower case, no space, bare newlines
        + b'{"c":3}'
        + b"\r\n"  # a stray blank line between frames
        + b"Content-Type: x\r\nCONTENT-LENGTH :  7 \r\n\r\n"
        + b'{"d":4}'
    )
    expected = [b'{"a":1}', b'{"b":2}', b'{"c":3}', b'{"d":4}']
    assert feed_all(data) == expected
    assert feed_all(data, chunk=1) == expected, "split anywhere, the same frames"


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        pytest.param(b"Content-Length: abc\r\n\r\n{}", "not a number", id="non-numeric"),
        pytest.param(b"Content-Length: -5\r\n\r\n{}", "not a number", id="negative"),
        pytest.param(b"Content-Length: 1e3\r\n\r\n{}", "not a number", id="float"),
        pytest.param(b"Content-Length:\r\n\r\n{}", "not a number", id="empty"),
        pytest.param(b"Content-Type: x\r\n\r\n{}", "no `Content-Length`", id="missing"),
        pytest.param(b'{"jsonrpc": "2.0"}\r\n', "expected a header line", id="no-header"),
        pytest.param(b"garbage" * 2000, "over 8,192 bytes", id="long-line"),
        pytest.param(b"X: y\r\n" * 40 + b"\r\n", "over 32 lines", id="many-headers"),
        pytest.param(b"Content-Length: 99999999999\r\n\r\n", "is over", id="absurd-length"),
    ],
)
def test_a_bad_header_is_reported_and_the_next_frame_read(bad: bytes, reason: str) -> None:
    data = frame(b"first") + bad + frame(b"second") + frame(b"third")
    for chunk in (None, 1, 7):
        out = feed_all(data, chunk=chunk)
        assert out[0] == b"first"
        assert isinstance(out[1], BadFrame) and reason in out[1].reason, out
        assert out[2:] == [b"second", b"third"], "resynchronised at the next Content-Length"


def test_a_length_over_the_limit_is_not_trusted() -> None:
    out = feed_all(frame(b"x" * 100) + frame(b"ok"), max_body=50)
    assert isinstance(out[0], BadFrame) and "100 bytes is over 50" in out[0].reason
    assert out[1:] == [b"ok"]


def test_garbage_without_any_header_keeps_memory_bounded() -> None:
    parser = FrameParser()
    for _ in range(200):
        parser.feed(b"z" * 65536)  # 13 MB of noise with no newline and no header
    assert len(parser._buf) <= MAX_HEADER_LINE_BYTES + 65536
    assert parser.feed(frame(b"ok"))[-1] == b"ok"


_HEADERISH = re.compile(rb"content-length", re.IGNORECASE)
garbage = st.binary(min_size=1, max_size=80).filter(lambda b: not _HEADERISH.search(b))
bodies = st.binary(min_size=0, max_size=60)


@seed(20261201)
@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.one_of(st.none(), garbage), bodies), min_size=1, max_size=8),
    st.integers(min_value=1, max_value=40),
)
def test_every_good_frame_survives_garbage_between_frames(
    segments: list[tuple[bytes | None, bytes]], chunk: int
) -> None:
    data = b"".join((junk or b"") + frame(body) for junk, body in segments)
    out = feed_all(data, chunk=chunk)
    assert [item for item in out if isinstance(item, bytes)] == [body for _, body in segments]
    bad = [item for item in out if isinstance(item, BadFrame)]
    assert len(bad) <= sum(junk is not None for junk, _ in segments)


@seed(20261202)
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=4000), st.integers(min_value=1, max_value=64))
def test_any_bytes_end_in_frames_or_reports_and_never_stop_the_parser(
    noise: bytes, chunk: int
) -> None:
    parser = FrameParser()
    for i in range(0, len(noise), chunk):
        parser.feed(noise[i : i + chunk])
    parser.feed(b"\r\n\r\n")  # whatever state it was left in, a clean frame gets through
    assert b"ok" in [
        item for item in parser.feed(frame(b"ok") + frame(b"ok")) if isinstance(item, bytes)
    ]
