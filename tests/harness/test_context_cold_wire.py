"""Free slides through the fake providers' emulated prompt caches (issue 34, §3 rule 5): a
conversation's follow-up sent after the provider's idle limit finds the cache expired, so the
window slides before its first request — and that request writes no more to the cache than
the same request not sliding (the fake's emulation says so); before the limit it does not
slide and reads the cache.

Time is never slept: the idle limit is measured from when the previous turn's last request
was sent, which the harness keeps in the run's context snapshot in the store (``sentAt``);
the test moves that back by the idle time, as if the turn had ended that long ago, and moves
the fake's cache clock forward by the same amount, so its entries expire as a real
provider's would."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.contract import ContextBudgetOverrides, ContractOverrides, Verification
from harness.policy import Policy, YesApprover
from harness.run.backend import Backend, RunRequest
from harness.run.session import build_contract, open_session
from harness.store import Store
from harness.types import Outcome
from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import FakeLLM
from tests.support.scripted_turns import call

TEXT = "".join(f"def helper_{i}(x):\n    return x + {i}  # helper {i}\n" for i in range(120))
SED = ["sed", "-i", "s/helper 7$/helper seven/", "a.py"]
FIRST = [
    {"content": "", "tool_calls": [call("read_file", path="b.py")]},
    {"content": "", "tool_calls": [call("read_file", path="a.py")]},
    {"content": "", "tool_calls": [call("exec", argv=SED)]},
    {"content": "", "tool_calls": [call("read_file", path="a.py")]},
    {"content": "", "tool_calls": [call("grep", pattern="helper 1")]},
    {"content": "", "tool_calls": [call("grep", pattern="return x")]},  # 10k chars
    {"content": "Looked at a.py."},
]


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FollowUp:
    fake: FakeLLM
    assembled: dict[str, Any]  # the follow-up's first `assembled` event
    usage: dict[str, Any]  # what the fake reported for that request

    @property
    def written(self) -> int:
        """What the request paid at the write price or more: cache creation plus the
        uncached rest (both wires' "not read from the cache")."""
        if self.fake.wire == "openai":
            u = self.usage
            return int(u["prompt_tokens"]) - int(u["prompt_tokens_details"]["cached_tokens"])
        return int(self.usage["cache_creation_input_tokens"]) + int(self.usage["input_tokens"])

    @property
    def read(self) -> int:
        if self.fake.wire == "openai":
            return int(self.usage["prompt_tokens_details"]["cached_tokens"])
        return int(self.usage["cache_read_input_tokens"])


async def run(
    store: Store,
    fake: FakeLLM,
    ws: Path,
    goal: str,
    conversation_id: int | None = None,
    **more: Any,
) -> int:
    overrides = ContractOverrides(
        verification=Verification.none(),
        context_budget=ContextBudgetOverrides(max_tokens=8_000, **more.pop("budget", {})),
    )
    backend = Backend(
        store=store,
        provider=fake.config(model="claude-sonnet-4-5" if fake.wire == "anthropic" else "gpt-4o"),
        environ={"HARNESS_API_KEY": "sk-test-fakes"},
    )
    front = RunRequest(
        approver=YesApprover(),
        policy=Policy.load(ws, user_config=None),
        conversation_id=conversation_id,
    )
    session = await open_session(build_contract(goal, ws, overrides), backend, front)
    result = await session.execute()
    assert result.end.outcome is Outcome.FINISHED, result.end.error
    return session.run_id


def idle(store: Store, run_id: int, seconds: float) -> None:
    """As if the run's last request had been sent ``seconds`` earlier than it was."""
    snapshot = store.run_context(run_id)
    assert snapshot is not None
    data = json.loads(snapshot)
    assert isinstance(data["sentAt"], float)
    data["sentAt"] -= seconds
    step = store.run_steps(run_id)[-1].step
    store.save_context(run_id, step, json.dumps(data))


async def follow_up(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, *, seconds: float, shift: bool = True
) -> FollowUp:
    """A first turn (a read of b.py; a read of a.py, made stale by a command, read again;
    two greps), then ``seconds``
    of idle time on the fake's cache clock — and on the harness's record of the last request
    when ``shift`` — then a follow-up answered at once."""
    ws = tmp_path / "ws"
    ws.mkdir(parents=True)
    (ws / "a.py").write_text(TEXT)
    (ws / "b.py").write_text(TEXT.replace("helper", "other"))
    clock = Clock()
    fake = fake_llm([*FIRST, {"content": "Nothing else."}], wire=wire, clock=clock)
    store = Store(tmp_path / "s.db")
    first = await run(store, fake, ws, "look at a.py")
    before = len(fake.requests)
    clock.now += seconds
    if shift:
        idle(store, first, seconds)
    second = await run(store, fake, ws, "anything else?", conversation_id=first)
    events = store.context_events(second, "assembled")
    store.close()
    usage = fake.usages[before]
    assert usage is not None
    return FollowUp(fake, events[0]["detail"], usage)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_follow_up_after_the_idle_limit_slides_for_free(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str
) -> None:
    limit = 300.0 if wire == "anthropic" else 600.0  # the provider's default idle limit
    slid = await follow_up(fake_llm, tmp_path / "slid", wire, seconds=limit + 1)
    kept = await follow_up(fake_llm, tmp_path / "kept", wire, seconds=limit + 1, shift=False)
    assert slid.assembled["freeSlide"] is True and "slide" in slid.assembled["breaks"]
    assert kept.assembled["freeSlide"] is False and kept.assembled["breaks"] == []
    assert slid.read == 0 and kept.read == 0, "the fake's cache had expired in both"
    extra = slid.written - kept.written
    assert extra <= 0, f"the slide wrote {extra} tokens more than not sliding"
    assert slid.written < kept.written * 0.9, "b.py stubbed, the refresh merged (0.83 here)"
    sent = json.dumps(slid.fake.requests[-1]["messages"])
    assert re.search(r"\[read b\.py[^\]]*\] \(elided:", sent), "older than the window"
    assert "(refreshed at step 4:" not in sent, "the refresh entry merged into the read"
    assert "(refreshed at step 4:" in json.dumps(kept.fake.requests[-1]["messages"])


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_follow_up_before_the_idle_limit_does_not_slide(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str
) -> None:
    limit = 300.0 if wire == "anthropic" else 600.0
    warm = await follow_up(fake_llm, tmp_path, wire, seconds=limit - 1)
    assert warm.assembled["freeSlide"] is False and warm.assembled["breaks"] == []
    assert warm.read > 0, "the warm cache was read"
