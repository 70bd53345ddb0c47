"""The assemblers the loop calls (``harness.run.assembly``), through ``open_session`` and a
scripted run: the memory block chosen once and carried every step, the trailer last and
the only text that changes, the contract's wire form and low water reaching the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.contract import ContextBudgetOverrides, ContractOverrides
from harness.policy import Policy, YesApprover
from harness.prompts import trailer
from harness.provider.scripted import ScriptedProvider
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from harness.types import Outcome, Role
from tests.support.scripted_turns import call
from tests.support.workspace import make_workspace


async def run(
    ws: Path, store: Store, turns: list[dict[str, Any]], **overrides: Any
) -> tuple[ScriptedProvider, int]:
    provider = ScriptedProvider(turns)
    session = await open_session(
        build_contract("look", ws, ContractOverrides(**overrides)),
        Backend(store=store, provider=provider),
        RunRequest(approver=YesApprover(), policy=Policy.load(ws, user_config=None)),
    )
    assert (await session.execute()).end.outcome is Outcome.FINISHED
    return provider, session.run_id


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path, {"a.py": "x = 1\n"})


async def test_the_memory_block_is_chosen_once_and_recalled_every_step(
    ws: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "s.db")
    store.memory_write(ws.resolve(), "build", "make test", None, None, "decision")
    turns = [{"tool_calls": [call("read_file", path="a.py")]}, {"tool_calls": [call("list_dir")]}]
    provider, run_id = await run(ws, store, [*turns, {"content": "ok"}])
    assert [r.counts.recalled for r in store.run_steps(run_id)] == [1, 1, 1]
    recall_events = store.context_events(run_id, "memory_recall")
    assert [e["step"] for e in recall_events] == [1], "chosen at the first turn only"
    blocks = [r.messages[0].parts[1] for r in provider.requests]
    assert len(set(blocks)) == 1 and "build: make test" in blocks[0]


async def test_the_trailer_is_last_and_the_only_text_that_changes(ws: Path, tmp_path: Path) -> None:
    turns = [{"tool_calls": [call("read_file", path="a.py")]}, {"content": "ok"}]
    provider, _ = await run(ws, Store(tmp_path / "s.db"), turns, max_steps=7, token_budget=9_000)
    first, second = provider.requests
    assert first.trailer == trailer(1, 7, 0, 9_000)
    assert second.trailer.startswith("Step 2 of 7 · ") and second.trailer.endswith(
        "Continue: call the tools you need, or answer without a tool call when the task is done."
    )
    assert second.texts()[: len(first.texts()) - 1] == first.texts()[:-1]


@pytest.mark.parametrize("wire", ["transcript", "flat"])
async def test_the_contracts_wire_form_reaches_the_request(
    ws: Path, tmp_path: Path, wire: str
) -> None:
    turns = [{"tool_calls": [call("read_file", path="a.py")]}, {"content": "ok"}]
    provider, _ = await run(ws, Store(tmp_path / "s.db"), turns, context_wire=wire)
    roles = [m.role for m in provider.requests[1].messages]
    if wire == "flat":
        assert roles == [Role.USER]
    else:
        assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL]
        assert provider.requests[1].messages[2].parts == ("[read a.py]\nx = 1\n",)


async def test_low_water_from_the_contract_sets_how_far_the_window_slides(
    ws: Path, tmp_path: Path
) -> None:
    for i in range(12):
        (ws / f"f{i}.txt").write_text(f"{i}" * 1_800)
    turns = [{"tool_calls": [call("read_file", path=f"f{i}.txt")]} for i in range(12)]
    kept = {}
    for low_water in (0.3, 0.9):
        store = Store(tmp_path / f"{low_water}.db")
        budget = ContextBudgetOverrides(max_tokens=3_000, low_water=low_water)
        provider, run_id = await run(ws, store, [*turns, {"content": "ok"}], context_budget=budget)
        events = store.context_events(run_id, "assembled")
        slid = next(e for e in events if "slide" in e["detail"]["breaks"])
        kept[low_water] = provider.requests[slid["step"] - 1].chars
    assert kept[0.3] < kept[0.9]
