"""Shared fixtures: ``fake_llm`` starts fake model servers (tests/support/fake_llm.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.fake_llm import FakeLLM

MakeFakeLLM = Callable[..., FakeLLM]


@pytest.fixture
def fake_llm() -> Iterator[MakeFakeLLM]:
    """A factory: ``fake_llm(turns, wire="openai", **options)`` returns a started ``FakeLLM``;
    every server it started is stopped at teardown."""
    started: list[FakeLLM] = []

    def make(turns: Any = (), **options: Any) -> FakeLLM:
        fake = FakeLLM(list(turns), **options).start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()
