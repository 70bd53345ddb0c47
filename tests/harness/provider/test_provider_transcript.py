"""The transcript wire form (SPEC §3 "Wire form", rule 7) on both wires, as the fake servers
receive it: assistant turns with their tool calls, every call answered by its tool message or
``tool_result`` block (ids kept, order kept), the trailer last, Anthropic's breakpoints on the
system block and the last block before the trailer; the flat form stays ``[system, user]``.
Every body is validated against the providers' official schemas (../shared/wire-schemas)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.provider import make_provider
from harness.provider.anthropic import request_body as anthropic_body
from harness.provider.openai import request_body as openai_body
from harness.types import PART_SEPARATOR, Message, Request, Role, ToolCall, arguments_text
from tests.conftest import MakeFakeLLM
from tests.harness.provider.common import GREP, READ, STREAM, call_provider
from tests.support.wire_schemas import validate_anthropic, validate_openai

EPHEMERAL = {"type": "ephemeral"}
A1 = ToolCall("call_a1", "read_file", {"path": "src/parser.py"})
A2 = ToolCall("call_a2", "grep", {"pattern": "def parse", "path_glob": "*.py"})
B1 = ToolCall("call_b1", "edit_file", {"path": "src/parser.py", "old": "x", "new": "y"})
B2 = ToolCall("call_b2", "exec", {"argv": ["pytest", "-q"]})
B3 = ToolCall("call_b3", "read_file", {"path": "tests/test_parser.py"})
TRANSCRIPT = Request(
    system="You are a coding agent.",
    messages=(
        Message(Role.USER, ("Goal: fix the parser.", "Memory: (none)")),
        Message(Role.ASSISTANT, ("Let me look first.",), tool_calls=(A1, A2)),
        Message(Role.TOOL, ("[read src/parser.py]\ndef parse(x): ...",), tool_call_id="call_a1"),
        Message(
            Role.TOOL, ("[grep def parse]\nsrc/parser.py:1: def parse",), tool_call_id="call_a2"
        ),
        Message(Role.ASSISTANT, (), tool_calls=(B1, B2, B3)),
        Message(Role.TOOL, ("[edit src/parser.py] replaced 1 line",), tool_call_id="call_b1"),
        Message(Role.TOOL, ("[exec pytest -q] exit 0\n3 passed",), tool_call_id="call_b2"),
        Message(Role.TOOL, ("[read tests/test_parser.py]\n...",), tool_call_id="call_b3"),
    ),
    trailer="Step 3 of 20 · 1,234 of 2,000,000 tokens spent. Act now.",
    tools=(READ, GREP),
)
FLAT = Request.flat(
    "You are a coding agent.", ("Goal: fix the parser.", "[read a.py]\nx = 1"), "Step 2 of 20."
)


def openai_call(call: ToolCall) -> dict[str, Any]:
    function = {"name": call.name, "arguments": arguments_text(call)}
    return {"id": call.id, "type": "function", "function": function}


def anthropic_use(call: ToolCall) -> dict[str, Any]:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": dict(call.arguments)}


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text}


def text(value: str, *, mark: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": value}
    if mark:
        block["cache_control"] = EPHEMERAL
    return block


@pytest.mark.parametrize("stream", STREAM)
async def test_openai_sends_the_transcript_with_tool_messages(
    fake_llm: MakeFakeLLM, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}])
    await call_provider(fake, stream=stream, request=TRANSCRIPT)
    [body] = fake.requests
    validate_openai(body)
    m = TRANSCRIPT.messages
    assert body["messages"] == [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Goal: fix the parser.\n\nMemory: (none)"},
        {
            "role": "assistant",
            "content": "Let me look first.",
            "tool_calls": [openai_call(A1), openai_call(A2)],
        },
        {"role": "tool", "tool_call_id": "call_a1", "content": m[2].text},
        {"role": "tool", "tool_call_id": "call_a2", "content": m[3].text},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [openai_call(c) for c in (B1, B2, B3)],
        },
        {"role": "tool", "tool_call_id": "call_b1", "content": m[5].text},
        {"role": "tool", "tool_call_id": "call_b2", "content": m[6].text},
        {"role": "tool", "tool_call_id": "call_b3", "content": m[7].text},
        {"role": "user", "content": TRANSCRIPT.trailer},
    ]


@pytest.mark.parametrize("stream", STREAM)
async def test_anthropic_sends_the_transcript_with_tool_result_blocks(
    fake_llm: MakeFakeLLM, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire="anthropic")
    await call_provider(fake, stream=stream, request=TRANSCRIPT)
    [body] = fake.requests
    validate_anthropic(body)
    m = TRANSCRIPT.messages
    assert body["system"] == [text("You are a coding agent.", mark=True)]
    assert body["messages"] == [
        {"role": "user", "content": [text("Goal: fix the parser."), text("Memory: (none)")]},
        {
            "role": "assistant",
            "content": [text("Let me look first."), anthropic_use(A1), anthropic_use(A2)],
        },
        {"role": "user", "content": [result("call_a1", m[2].text), result("call_a2", m[3].text)]},
        {"role": "assistant", "content": [anthropic_use(c) for c in (B1, B2, B3)]},
        {
            "role": "user",
            "content": [
                result("call_b1", m[5].text),
                result("call_b2", m[6].text),
                {**result("call_b3", m[7].text), "cache_control": EPHEMERAL},
                text(TRANSCRIPT.trailer),
            ],
        },
    ]


@pytest.mark.parametrize("stream", STREAM)
async def test_the_flat_form_is_system_and_one_user_message(
    fake_llm: MakeFakeLLM, stream: bool
) -> None:
    openai = fake_llm([{"content": "ok"}])
    anthropic = fake_llm([{"content": "ok"}], wire="anthropic")
    await call_provider(openai, stream=stream, request=FLAT)
    await call_provider(anthropic, stream=stream, request=FLAT)
    validate_openai(openai.requests[0])
    validate_anthropic(anthropic.requests[0])
    assert openai.requests[0]["messages"] == [
        {"role": "system", "content": FLAT.system},
        {"role": "user", "content": PART_SEPARATOR.join([*FLAT.messages[0].parts, FLAT.trailer])},
    ]
    assert openai.requests[0]["messages"] == FLAT.messages_json()
    assert anthropic.requests[0]["messages"] == [
        {
            "role": "user",
            "content": [
                text("Goal: fix the parser."),
                text("[read a.py]\nx = 1", mark=True),
                text("Step 2 of 20."),
            ],
        }
    ]


def test_a_trailer_after_a_user_message_is_its_last_text() -> None:
    request = Request(
        "sys", (Message(Role.USER, ("frame",)), Message(Role.USER, ("note",))), "trailer"
    )
    messages = openai_body(request, model="m", stream=False)["messages"]
    assert messages[1:] == [
        {"role": "user", "content": "frame"},
        {"role": "user", "content": "note\n\ntrailer"},
    ]
    body = anthropic_body(request, model="m", max_tokens=10, stream=False)
    assert body["messages"] == [
        {"role": "user", "content": [text("frame"), text("note", mark=True), text("trailer")]}
    ]


def test_empty_texts_are_never_sent_as_blocks() -> None:
    request = Request(
        "",
        (
            Message(Role.USER, ("frame", "")),
            Message(Role.ASSISTANT, ("",), tool_calls=(A1,)),
            Message(Role.TOOL, ("",), tool_call_id="call_a1"),
            Message(Role.ASSISTANT, ()),  # said nothing, called nothing
            Message(Role.USER, ("",)),
        ),
        "",
    )
    body = anthropic_body(request, model="m", max_tokens=10, stream=True)
    validate_anthropic(body)
    assert "system" not in body
    assert body["messages"] == [
        {"role": "user", "content": [text("frame")]},
        {"role": "assistant", "content": [anthropic_use(A1)]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_a1"}]},
    ]  # no trailer, no system: no breakpoint at all
    validate_openai(openai_body(request, model="m", stream=True))


# -- properties over random transcripts --------------------------------------------------

words = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
arguments = st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), words, max_size=3)


@st.composite
def transcripts(draw: st.DrawFn) -> Request:
    messages = [Message(Role.USER, tuple(draw(st.lists(words, min_size=1, max_size=3))))]
    for turn in range(draw(st.integers(0, 5))):
        n = draw(st.integers(0, 3))
        calls = tuple(
            ToolCall(
                f"call_{turn}_{i}", draw(st.sampled_from(["read_file", "grep"])), draw(arguments)
            )
            for i in range(n)
        )
        said = tuple(draw(st.lists(words, max_size=1)))
        messages.append(Message(Role.ASSISTANT, said, tool_calls=calls))
        messages += [Message(Role.TOOL, (draw(words),), tool_call_id=c.id) for c in calls]
        if not calls or draw(st.booleans()):
            messages.append(
                Message(Role.USER, tuple(draw(st.lists(words, min_size=1, max_size=2))))
            )
    return Request(draw(words), tuple(messages), draw(words), (READ, GREP))


def calls_and_answers_openai(messages: list[dict[str, Any]]) -> list[tuple[list[str], list[str]]]:
    pairs = []
    for i, m in enumerate(messages):
        if m["role"] == "assistant" and m.get("tool_calls"):
            asked = [c["id"] for c in m["tool_calls"]]
            answered = [x["tool_call_id"] for x in messages[i + 1 : i + 1 + len(asked)]]
            pairs.append((asked, answered))
    return pairs


def calls_and_answers_anthropic(
    messages: list[dict[str, Any]],
) -> list[tuple[list[str], list[str]]]:
    pairs = []
    for i, m in enumerate(messages):
        uses = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
        if m["role"] == "assistant" and uses:
            following = messages[i + 1]["content"]
            answered = [b["tool_use_id"] for b in following[: len(uses)]]
            pairs.append((uses, answered))
    return pairs


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=transcripts(), stream=st.booleans())
def test_every_tool_call_is_paired_with_its_answer_on_both_wires(
    request: Request, stream: bool
) -> None:
    expected = [
        [c.id for c in m.tool_calls]
        for m in request.messages
        if m.role is Role.ASSISTANT and m.tool_calls
    ]
    openai = openai_body(request, model="gpt-4.1", stream=stream)
    validate_openai(openai)
    assert calls_and_answers_openai(openai["messages"]) == [(ids, ids) for ids in expected]
    anthropic = anthropic_body(request, model="claude-sonnet-4-5", max_tokens=100, stream=stream)
    validate_anthropic(anthropic)
    assert calls_and_answers_anthropic(anthropic["messages"]) == [(ids, ids) for ids in expected]
    roles = [m["role"] for m in anthropic["messages"]]
    assert all(a != b for a, b in itertools.pairwise(roles)), roles  # alternation
    blocks = [
        *anthropic.get("system", []),
        *(b for m in anthropic["messages"] for b in m["content"]),
    ]
    assert all(b.get("text") != "" for b in blocks if b["type"] == "text")
    marks = [b for b in blocks if "cache_control" in b]
    assert len(marks) <= 4
    if request.trailer:
        assert anthropic["messages"][-1]["content"][-1] == text(request.trailer)
        assert openai["messages"][-1]["content"].endswith(request.trailer)
    texts_in_order = [t for t in request.texts() if t]
    assert texts_in_order == _anthropic_texts(anthropic)


def _anthropic_texts(body: dict[str, Any]) -> list[str]:
    out = [b["text"] for b in body.get("system", [])]
    for m in body["messages"]:
        for b in m["content"]:
            if b["type"] == "text":
                out.append(b["text"])
            elif b["type"] == "tool_result" and b.get("content"):
                out.append(b["content"])
            elif b["type"] == "tool_use":
                out.append(json.dumps(b["input"], ensure_ascii=False))
    return out


async def test_bodies_built_by_a_provider_equal_the_public_builders(
    fake_llm: MakeFakeLLM,
) -> None:
    fake = fake_llm([{"content": "ok"}], wire="anthropic")
    provider = make_provider(fake.config(stream=True, model="claude-test"))
    try:
        await provider.complete(TRANSCRIPT, lambda a: None)
    finally:
        await provider.aclose()
    assert fake.requests[0] == anthropic_body(
        TRANSCRIPT, model="claude-test", max_tokens=8192, stream=True
    )
