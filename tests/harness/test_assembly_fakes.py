"""The wire end to end (issue 12): real runs through ``open_session`` and the HTTP providers
against the fake model servers, which emulate both providers' prompt caches. What the
harness records as cached tokens is what the servers reported, request by request; after
the first requests most of every prompt is cached; the transcript answers every tool call
on both wires; ``context_wire="flat"`` sends ``[system, user]``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.contract import ContractOverrides, Verification
from harness.policy import Policy, YesApprover
from harness.report import RunInfo, RunObserver, StepSummary
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from harness.types import Outcome
from tests.conftest import MakeFakeLLM
from tests.support.scripted_turns import call
from tests.support.transcript import request_text


def module(name: str, n: int = 60) -> str:
    return "".join(
        f"def {name}_{i}(x):\n    return x + {i}  # {name} helper {i}\n" for i in range(n)
    )


TURNS: list[dict[str, Any]] = [
    {"content": "Let me look at both modules.", "tool_calls": [
        call("read_file", path="src/a.py"), call("read_file", path="src/b.py", offset=1, limit=40)]},
    {"tool_calls": [call("grep", pattern="a_3\\b"), call("list_dir", path="src")]},
    {"content": "Renaming the helper.", "tool_calls": [
        call("edit_file", path="src/a.py", old="def a_3(x):", new="def a_three(x):")]},
    {"tool_calls": [call("grep", pattern="a_3\\b"), call("read_file", path="src/b.py", offset=41, limit=40)]},
    {"tool_calls": [call("read_file", path="src/a.py")]},
    {"content": "And the other module.", "tool_calls": [
        call("edit_file", path="src/b.py", old="def b_5(x):", new="def b_five(x):")]},
    {"tool_calls": [call("read_file", path="src/b.py", offset=1, limit=40)]},
    {"tool_calls": [call("find", name_glob="*.py")]},
    {"content": "Renamed a_3 and b_5."},
]  # fmt: skip


class Summaries(RunObserver):
    def __init__(self) -> None:
        self.seen: list[StepSummary] = []

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None:
        self.seen.append(summary)


async def run_against(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, form: str
) -> tuple[Any, Store, int, Summaries]:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text(module("a"))
    (ws / "src" / "b.py").write_text(module("b", 120))
    fake = fake_llm(TURNS, wire=wire)
    store = Store(tmp_path / "s.db")
    observer = Summaries()
    overrides = ContractOverrides(context_wire=form, verification=Verification.none())  # type: ignore[arg-type]
    session = await open_session(
        build_contract("Rename a_3 and b_5", ws, overrides),
        Backend(
            store=store,
            provider=fake.config(model="m"),
            environ={"HARNESS_API_KEY": "sk-test-fakes"},
        ),
        RunRequest(
            approver=YesApprover(), policy=Policy.load(ws, user_config=None), observer=observer
        ),
    )
    result = await session.execute()
    assert result.end.outcome is Outcome.FINISHED, result.end.error
    assert result.summary == "Renamed a_3 and b_5." and result.end.steps == len(TURNS)
    return fake, store, session.run_id, observer


def reported(usage: dict[str, Any], wire: str) -> tuple[int, int]:
    """(cached, whole prompt) as the fake server reported them."""
    if wire == "openai":
        return usage["prompt_tokens_details"]["cached_tokens"], usage["prompt_tokens"]
    read = usage["cache_read_input_tokens"]
    return read, usage["input_tokens"] + read + usage["cache_creation_input_tokens"]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_recorded_cached_tokens_are_what_the_servers_reported(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str
) -> None:
    fake, store, run_id, observer = await run_against(fake_llm, tmp_path, wire, "transcript")
    figures = [reported(u, wire) for u in fake.usages if u is not None]
    assert len(figures) == len(TURNS)
    cached = [c for c, _ in figures]
    assert [s.cached_prompt_tokens for s in observer.seen] == cached, "harness/budget"
    rows = store.run_steps(run_id)
    assert [r.cached_prompt_tokens for r in rows] == cached, "the trace (trace show)"
    assert [r.reported_prompt_tokens for r in rows] == [p for _, p in figures]
    later = figures[2:]
    share = sum(c for c, _ in later) / sum(p for _, p in later)
    print(f"[{wire}] cached share after the first two requests: {share:.3f}")
    assert share >= 0.75, f"cached share after the first two requests: {share:.2f}"
    assert [r.prefix_chars for r in rows][1:] == [s.prefix_chars for s in observer.seen][1:]


def check_openai_pairs(body: dict[str, Any]) -> int:
    messages, paired, i = body["messages"], 0, 0
    while i < len(messages):
        m = messages[i]
        assert m["role"] != "tool", "a tool message answering no call"
        i += 1
        if m["role"] == "assistant" and m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            answers = messages[i : i + len(ids)]
            assert [a["role"] for a in answers] == ["tool"] * len(ids)
            assert [a["tool_call_id"] for a in answers] == ids
            paired += len(ids)
            i += len(ids)
    return paired


def check_anthropic_pairs(body: dict[str, Any]) -> int:
    messages, paired = body["messages"], 0
    for k, m in enumerate(messages):
        uses = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
        if m["role"] == "assistant" and uses:
            after = messages[k + 1]["content"]
            results = [b["tool_use_id"] for b in after[: len(uses)]]
            assert after[0]["type"] == "tool_result" and results == uses
            paired += len(uses)
        if m["role"] == "user" and k > 0:
            answered = [b["tool_use_id"] for b in m["content"] if b["type"] == "tool_result"]
            before = messages[k - 1]
            asked = [b["id"] for b in before["content"] if b["type"] == "tool_use"]
            assert answered == asked[: len(answered)], "a tool_result answering no tool_use"
    return paired


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_the_transcript_answers_every_tool_call_on_both_wires(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str
) -> None:
    fake, *_ = await run_against(fake_llm, tmp_path, wire, "transcript")
    check = check_openai_pairs if wire == "openai" else check_anthropic_pairs
    paired = [check(body) for body in fake.requests]
    assert paired[0] == 0 and paired[-1] == sum(len(t.get("tool_calls", ())) for t in TURNS)
    last = request_text(fake.requests[-1])
    # the stale read of src/a.py stays as sent; its refresh is appended after the edit that
    # made it stale, one line pointing at that call (§3 rule 3: the agent's own edit), and
    # the later read, showing what the refresh corrected, points at it (rule 2)
    refresh = "[read src/a.py] (refreshed at step 4: your edit at step 3 changed line"
    assert last.index("[edit src/a.py]") < last.index(refresh)
    pointer = "[read src/a.py] (unchanged since the read at step 1 as refreshed at step 4, shown"
    assert last.index(refresh) < last.index(pointer)
    assert last.rstrip().endswith("answer without a tool call when the task is done.")


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_the_flat_form_is_system_and_one_user_message(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str
) -> None:
    fake, *_ = await run_against(fake_llm, tmp_path, wire, "flat")
    for body in fake.requests:
        roles = [m["role"] for m in body["messages"]]
        assert roles == (["system", "user"] if wire == "openai" else ["user"])
        if wire == "anthropic":
            assert body["system"][0]["text"].startswith("You are a coding agent")
    transcript = tmp_path / "t"
    transcript.mkdir()
    other, *_ = await run_against(fake_llm, transcript, wire, "transcript")
    for flat_body, body in zip(fake.requests, other.requests, strict=True):
        # the same texts in both forms (but the tokens spent: each wire's own figures)
        flat_text, body_text = (
            request_text(b).rpartition("\n\nStep ")[0] for b in (flat_body, body)
        )
        assert flat_text == body_text and flat_text
