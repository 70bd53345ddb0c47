"""Conversations (§11) through the real loop with the scripted model: a follow-up's first
request extends the previous turn's last request (less its trailer); a file the user changed
between turns is refreshed, naming the read of the earlier turn; a resumed run continues
from its last committed step; memory is chosen once per conversation; the store knows the
conversation and the turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.contract import Verification
from harness.errors import ConfigError
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.run.conversation import Attachment
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from harness.types import Outcome, Request
from tests.support.scripted_turns import call, turn
from tests.support.workspace import make_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path, {"a.py": "def calc_total():\n    return 1\n", "b.md": "x\n"})


async def go(
    ws: Path,
    store: Store,
    goal: str,
    turns: list,
    conversation: int | None = None,
    verification: Verification | None = None,
) -> tuple[int, ScriptedProvider, Outcome]:
    model = ScriptedProvider(turns)
    contract = build_contract(goal, ws)
    if verification is not None:
        contract = contract.model_copy(update={"verification": verification})
    session = await open_session(
        contract,
        Backend(store=store, provider=model),
        RunRequest(
            approver=YesApprover(),
            policy=Policy.load(ws, user_config=None),
            conversation_id=conversation,
        ),
    )
    result = await session.execute()
    return session.run_id, model, result.end.outcome


def without_trailer(request: Request) -> list[str]:
    return request.texts()[:-1]


async def test_a_follow_up_extends_the_previous_request_and_refreshes_what_changed(
    ws: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "s.db")
    first, one, outcome = await go(
        ws,
        store,
        "rename calc_total",
        [turn(call("read_file", path="a.py")), {"content": "Renamed nothing yet."}],
    )
    assert outcome is Outcome.FINISHED
    (ws / "a.py").write_text("def compute_total():\n    return 1\n")  # the user, between turns
    second, two, _ = await go(
        ws, store, "now the docs", [turn(call("read_file", path="b.md")), {"content": "ok"}], first
    )
    previous, follow = without_trailer(one.requests[-1]), two.requests[0].texts()
    assert follow[: len(previous)] == previous, "the previous request is an unchanged prefix"
    new = "\n".join(follow[len(previous) :])
    assert "Renamed nothing yet." in new  # the model's last words of turn 1
    assert "now the docs" in new
    assert "changed on disk since the read at step 1 of turn 1" in new
    assert "compute_total" in new
    assert two.requests[0].trailer.startswith("Step 1 of ")
    run = store.get_run(second)
    assert run is not None and (run.conversation_id, run.turn) == (first, 2)
    steps = store.run_steps(second)
    assert steps[0].prefix_chars == sum(map(len, previous))


async def test_a_follow_up_says_its_own_check(ws: Path, tmp_path: Path) -> None:
    """The frame (turn 1's criterion) stays an unchanged prefix, so a follow-up whose run has
    another check than the model was last told (an editor sets one per run: issue 23) says
    it; one with the same says nothing more."""
    store = Store(tmp_path / "s.db")
    first, one, _ = await go(ws, store, "rename", [{"content": "ok"}])
    assert "You judge when the goal is met" in one.requests[0].texts()[1]
    check = Verification.command(["python3", "-c", "import a; a.calc_total()"])
    _, two, outcome = await go(ws, store, "now check it", [{"content": "ok"}], first, check)
    assert outcome is Outcome.SUCCESS
    said = two.requests[0].texts()[-2]
    assert said.startswith("# Follow-up (turn 2)\nnow check it")
    assert "# Success criterion (this turn)\n`python3 -c 'import a; a.calc_total()'` exits" in said
    _, three, _ = await go(ws, store, "again, checked", [{"content": "ok"}], first, check)
    assert "Success criterion (this turn)" not in three.requests[0].texts()[-2]
    _, four, _ = await go(ws, store, "and unchecked", [{"content": "ok"}], first)
    said = four.requests[0].texts()[-2]
    assert "# Success criterion (this turn)\nYou judge when the goal is met" in said
    _, five, _ = await go(ws, store, "still unchecked", [{"content": "ok"}], first)
    assert "Success criterion (this turn)" not in five.requests[0].texts()[-2]


async def test_a_run_stopped_at_its_step_cap_is_resumed_with_its_observations(
    ws: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "s.db")
    model = ScriptedProvider([turn(call("read_file", path="a.py"))] * 3)
    session = await open_session(
        build_contract("rename", ws).model_copy(update={"max_steps": 1}),
        Backend(store=store, provider=model),
        RunRequest(approver=YesApprover(), policy=Policy.load(ws, user_config=None)),
    )
    first = (await session.execute(), session.run_id)[1]
    assert store.get_run(first).outcome == "step_cap_reached"  # type: ignore[union-attr]
    _, two, outcome = await go(ws, store, "Go on.", [{"content": "done"}], first)
    assert outcome is Outcome.FINISHED
    text = "\n".join(two.requests[0].texts())
    assert "calc_total" in text and "Go on." in text


async def test_a_follow_up_of_an_unknown_or_running_conversation_is_refused(
    ws: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "s.db")
    with pytest.raises(ConfigError, match="no conversation 42"):
        await go(ws, store, "x", [], 42)
    other = make_workspace(tmp_path / "o", {"c.py": ""})
    first, _, _ = await go(other, store, "x", [{"content": "ok"}])
    with pytest.raises(ConfigError, match="another workspace"):
        await go(ws, store, "y", [], first)


async def test_attached_context_is_read_at_step_0_and_refreshed_when_it_changes(
    ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text("KEY = 1\n")
    model = ScriptedProvider(
        [turn(call("edit_file", path="a.py", old="return 1", new="return 2")), {"content": "ok"}]
    )
    session = await open_session(
        build_contract("fix it", ws),
        Backend(store=Store(tmp_path / "s.db"), provider=model),
        RunRequest(
            approver=YesApprover(),
            policy=Policy.load(ws, user_config=None),
            context=[Attachment(str(ws / "a.py"), 2, 1), Attachment(str(outside))],
        ),
    )
    await session.execute()
    first = "\n".join(model.requests[0].texts())
    assert "The user attached:\n- a.py, lines 2–2\n- " + str(outside) in first
    assert "[read a.py:2-2]\n    return 1" in first
    assert "[read " + str(outside) in first and "KEY = 1" not in first  # refused like a read
    second = "\n".join(model.requests[1].texts())
    assert "[read a.py:2-2] (refreshed at step 2: your edit at step 1 changed line 2)" in second


async def test_memory_is_chosen_once_per_conversation(ws: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    root = ws.resolve()
    store.memory_write(root, "build", "make test runs the suite", None, None, "decision")
    first, one, _ = await go(ws, store, "rename calc_total", [{"content": "ok"}])
    store.memory_write(root, "style", "tabs are never used here", None, None, "decision")
    _, two, _ = await go(ws, store, "and then?", [{"content": "done"}], first)
    sent = "\n".join(two.requests[0].texts())
    assert "make test runs the suite" in sent
    assert "tabs are never used" not in sent, "the block chosen at turn 1 is the conversation's"
    assert two.requests[0].texts()[: len(without_trailer(one.requests[0]))] == without_trailer(
        one.requests[0]
    )
