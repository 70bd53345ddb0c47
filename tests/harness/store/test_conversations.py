"""Conversations in the store (§11): a run carries its conversation and its turn; a first
run is its own conversation at turn 1; the workspace's conversations and a conversation's
runs read back; a run's context snapshot is kept beside its last committed step."""

from __future__ import annotations

from pathlib import Path

from harness.store import Store
from harness.types import Outcome, RunEnd


def new_run(store: Store, goal: str, workspace: str, conversation: int | None = None) -> int:
    return store.create_run(
        goal=goal,
        workspace=workspace,
        provider="scripted",
        model="m",
        contract="{}",
        conversation_id=conversation,
    )


def test_a_first_run_is_its_own_conversation_and_a_follow_up_the_next_turn(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "s.db") as store:
        first = new_run(store, "rename calc_total", "/w")
        other = new_run(store, "elsewhere", "/v")
        second = new_run(store, "now the docs", "/w", conversation=first)
        store.finish_run(first, RunEnd(Outcome.FINISHED, 3, 900))
        store.finish_run(second, RunEnd(Outcome.STEP_CAP_REACHED, 2, 400))
        a, b = store.get_run(first), store.get_run(second)
        assert a is not None and b is not None
        assert (a.conversation_id, a.turn) == (first, 1)
        assert (b.conversation_id, b.turn) == (first, 2)
        assert [r.run_id for r in store.conversation_runs(first)] == [first, second]
        (conv,) = store.conversations(["/w"])
        assert conv.to_json() == {
            "conversationId": first,
            "goal": "rename calc_total",
            "runs": 2,
            "lastOutcome": "step_cap_reached",
            "spentTokens": 1300,
            "startedAt": a.started_at,
            "finishedAt": b.finished_at,
            "lastRunId": second,
        }
        assert [c.conversation_id for c in store.conversations(None)] == [
            first,
            other,
        ]  # by their latest run
        assert store.latest_run("/w") == second
        assert store.latest_run("/nowhere") is None


def test_the_context_snapshot_is_the_last_one_saved(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        run = new_run(store, "g", "/w")
        assert store.run_context(run) is None
        store.save_context(run, 1, '{"a": 1}')
        store.save_context(run, 2, '{"a": 2}')
        assert store.run_context(run) == '{"a": 2}'
