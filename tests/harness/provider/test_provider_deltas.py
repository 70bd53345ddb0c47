"""The model's words as they arrive (§11 ``text`` deltas): a sink that also has ``text``
hears each piece of the streamed words, on both wires, before the reply is complete — and
what the reply holds (what the store records) is unchanged: the same words, whole."""

from __future__ import annotations

import pytest

from harness.provider import make_provider
from harness.provider.scripted import ScriptedProvider
from harness.types import Attempt, Request
from tests.harness.provider.common import TWO_CALLS
from tests.support.fake_llm import FakeLLM

REQUEST = Request.flat("s", ("u",))
WORDS = "I will read the parser first, then grep for its callers."


class Sink:
    """An attempt sink that also takes the words as they arrive."""

    def __init__(self) -> None:
        self.attempts: list[Attempt] = []
        self.deltas: list[str] = []

    def __call__(self, attempt: Attempt) -> None:
        self.attempts.append(attempt)

    def text(self, delta: str) -> None:
        assert not self.attempts, "a delta after the attempt ended"
        self.deltas.append(delta)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_streamed_words_arrive_piece_by_piece_and_the_reply_is_unchanged(wire: str) -> None:
    with FakeLLM([{"content": WORDS, **TWO_CALLS}], wire=wire, chunk_chars=5) as fake:
        provider = make_provider(fake.config(stream=True))
        sink = Sink()
        try:
            reply = await provider.complete(REQUEST, sink)
        finally:
            await provider.aclose()
    assert len(sink.deltas) >= len(WORDS) // 5
    assert "".join(sink.deltas) == WORDS == reply.content
    assert [c.name for c in reply.tool_calls] == ["read_file", "grep"]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_plain_attempt_sink_still_works(wire: str) -> None:
    attempts: list[Attempt] = []
    with FakeLLM([{"content": WORDS}], wire=wire) as fake:
        provider = make_provider(fake.config(stream=True))
        try:
            reply = await provider.complete(REQUEST, attempts.append)
        finally:
            await provider.aclose()
    assert reply.content == WORDS and len(attempts) == 1


async def test_the_scripted_model_streams_its_words_too() -> None:
    sink = Sink()
    reply = await ScriptedProvider([{"content": WORDS}]).complete(REQUEST, sink)
    assert len(sink.deltas) > 1 and "".join(sink.deltas) == WORDS == reply.content
