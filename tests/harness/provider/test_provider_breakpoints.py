"""Where the Anthropic wire puts its cache breakpoints (§3 rule 7, issue 21): the pure
placement, a property over random growth (steps of 1 to 40 new blocks, with breaks of text
already sent as a slide or an in-place rewrite makes them), and the bodies it produces priced
by the fake's cache (tests/support/fake_cache.py: Anthropic's documented rules)."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.provider.anthropic import request_body
from harness.provider.breakpoints import (
    LOOKBACK,
    MAX_BREAKPOINTS,
    MarkedPrefixes,
    place_breakpoints,
    prefix_keys,
)
from harness.types import Message, Request, Role, ToolCall
from tests.harness.provider.common import READ
from tests.support.fake_cache import AnthropicBreakpointCache, anthropic_blocks, breakpoint_error


def keys_of(texts: list[str]) -> list[str]:
    return prefix_keys([("user", {"type": "text", "text": t}) for t in texts])


def test_a_first_request_marks_the_system_block_and_the_last_block_before_the_trailer() -> None:
    keys = keys_of([f"b{i}" for i in range(30)])
    assert place_breakpoints(keys, system_end=0, stable_end=28) == (0, 28)
    assert place_breakpoints(keys, system_end=0, stable_end=-1) == (0,)  # no trailer
    assert place_breakpoints(keys, system_end=-1, stable_end=28) == (28,)  # no system


def test_a_step_that_adds_more_than_the_lookback_gets_a_breakpoint_that_reaches_back() -> None:
    blocks = [f"b{i}" for i in range(80)]
    keys = keys_of(blocks)
    marked = {keys[10]}  # the previous request's last breakpoint: 68 blocks behind
    marks = place_breakpoints(keys, system_end=0, stable_end=78, marked=marked)
    assert marks == (0, 10 + LOOKBACK - 1, 10 + 2 * (LOOKBACK - 1), 78)
    near = place_breakpoints(keys, system_end=0, stable_end=78, marked={keys[60]})
    assert near == (0, 78)  # 18 blocks: the last breakpoint's lookback reaches it


def test_after_a_break_the_deepest_unchanged_marked_prefix_is_the_anchor() -> None:
    before = [f"b{i}" for i in range(60)]
    marked = MarkedPrefixes()
    keys = keys_of(before)
    marked.add([keys[k] for k in (0, 20, 40, 58)])
    after = [*before[:45], "stub", *before[46:], "new"]  # block 45 rewritten
    marks = place_breakpoints(keys_of(after), system_end=0, stable_end=59, marked=marked)
    assert marks[:2] == (0, 40 + LOOKBACK - 1)  # reads the prefix through block 40


# -- the property ---------------------------------------------------------------------------


def _tool_turn(step: int, calls: int) -> list[Message]:
    uses = tuple(ToolCall(f"c{step}_{n}", "read_file", {"path": f"m{n}.py"}) for n in range(calls))
    out = [Message(Role.ASSISTANT, (f"Step {step}.",), tool_calls=uses)]
    body = f"observation of step {step}: " + "x" * 600
    out += [Message(Role.TOOL, (f"{body} {n}",), tool_call_id=u.id) for n, u in enumerate(uses)]
    return out


growth = st.lists(
    st.tuples(st.integers(1, 40), st.integers(0, 4), st.integers(0, 10_000)),
    min_size=2,
    max_size=14,
)  # per step: parallel calls, whether text already sent changes (0) and where


def _requests(steps: list[tuple[int, int, int]]) -> list[tuple[Request, int | None]]:
    """The requests of a growing transcript; with each, the message index the step changed
    (None: nothing already sent changed)."""
    messages = [Message(Role.USER, ("Goal: refactor.", "m" * 6_000))]
    out: list[tuple[Request, int | None]] = []
    for n, (calls, change, where) in enumerate(steps):
        changed = None
        if change == 0 and len(messages) > 1:
            changed = 1 + where % (len(messages) - 1)
            old = messages[changed]
            messages[changed] = Message(
                old.role, (f"(elided at step {n})",), old.tool_calls, old.tool_call_id
            )
        out.append((Request("system " * 300, tuple(messages), f"Step {n}.", (READ,)), changed))
        messages += _tool_turn(n, calls)
    return out


def _marks(body: dict[str, Any]) -> list[int]:
    return [k for k, (_, marked) in enumerate(anthropic_blocks(body)) if marked]


def _digests(body: dict[str, Any]) -> list[str]:
    running, out = hashlib.sha256(), []
    for text, _ in anthropic_blocks(body):
        running.update(f"{len(text)}\0{text}".encode())
        out.append(running.copy().hexdigest())
    return out


@settings(max_examples=60, deadline=None)
@given(growth)
def test_every_request_reaches_back_to_what_an_earlier_one_marked(
    steps: list[tuple[int, int, int]],
) -> None:
    marked, cache = MarkedPrefixes(), AnthropicBreakpointCache()
    written: set[str] = set()  # the digests of every prefix an earlier request marked
    previous: tuple[int, int] | None = None  # the last request's (read, write)
    last_mark = -1  # the index of the previous request's last breakpoint
    for request, changed in _requests(steps):
        body = request_body(request, model="m", max_tokens=1, stream=False, marked=marked)
        marks, digests = _marks(body), _digests(body)
        assert breakpoint_error(body) is None and len(marks) <= MAX_BREAKPOINTS
        anchor = max((k for k, d in enumerate(digests[:-1]) if d in written), default=None)
        if anchor is not None:  # some breakpoint's lookback reaches the deepest earlier mark
            assert any(0 <= b - anchor < LOOKBACK for b in marks), (anchor, marks)
        if previous is not None and changed is None:  # between slides that is the last one
            assert anchor == last_mark
        _, read, write = cache.process(body)
        if previous is not None:
            if changed is None:  # nothing sent changed: all the last request stored is read
                assert read == sum(previous)
            assert read > 0
        previous, last_mark = (read, write), marks[-1]
        written |= {digests[b] for b in marks}


def test_a_run_of_requests_reads_what_each_one_before_stored() -> None:
    marked, cache = MarkedPrefixes(), AnthropicBreakpointCache()
    usage = []
    for request, _ in _requests([(25, 1, 0)] * 6):  # 25 parallel calls: 51 blocks a step
        body = request_body(request, model="m", max_tokens=1, stream=False, marked=marked)
        usage.append(cache.process(body))
    for (_, read0, write0), (_, read1, _) in itertools.pairwise(usage):
        assert read1 == read0 + write0


def test_the_fake_refuses_a_fifth_breakpoint_as_the_api_does() -> None:
    mark = {"type": "ephemeral"}
    content = [{"type": "text", "text": f"b{i}", "cache_control": mark} for i in range(5)]
    body = {"messages": [{"role": "user", "content": content}]}
    assert breakpoint_error(body) == (
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    )
    content.pop()
    assert breakpoint_error(body) is None
