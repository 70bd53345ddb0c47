"""A three-turn conversation against three independent runs of the same goals (issue 22;
numbers in docs/MEASUREMENTS.md): the agent-like session (``agent_sessions.py``) cut into
three turns, each a goal of its own, over the generated shop, through the real loop, tools
and store with a scripted model. The conversation's turns 2 and 3 are follow-ups
(``open_session(conversation_id=...)``): they carry the conversation so far and their first
request extends the previous turn's last one. The independent runs start each goal from
nothing. Both are priced over one provider cache for the whole sequence (what a real
provider holds between runs): an ideal prefix cache (reads 0.1, writes 1.25) and
Anthropic's rules as the fake server applies them (``measure.anthropic_cost``).

Honest caveat, printed with the figures: the scripted independent runs make exactly the
calls the conversation makes; a real agent starting turn 2 from nothing would have to
re-read what turn 1 had read, which this does not charge it for. Figures are printed, not
asserted — except that every run ends ``finished`` and no request exceeds its ceiling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.cli.demo.pricing import cache_priced
from harness.context.wire import shared_prefix_chars
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from harness.tokens import estimate_tokens
from harness.types import Outcome, Request

from .agent_sessions import agent_turns
from .conftest import record
from .context_sessions import create
from .measure import anthropic_cost

TURNS, STEPS = 3, 15  # model steps per turn (the last of each says it is done)
GOALS = (
    "Rename the locals value_N to total_N in the modules you work on first.",
    "Carry on with the next modules, keeping the tests passing.",
    "Finish the remaining renames and check the tests once more.",
)


def _parts() -> list[list[dict[str, Any]]]:
    script = agent_turns(TURNS * STEPS + 1)[: TURNS * STEPS]
    return [
        [*script[k * STEPS : (k + 1) * STEPS - 1], {"content": f"Part {k + 1} done."}]
        for k in range(TURNS)
    ]


async def _runs(root: Path, store: Store, *, conversation: bool) -> list[Request]:
    create(root)
    requests: list[Request] = []
    conversation_id = None
    for goal, turns in zip(GOALS, _parts(), strict=True):
        model = ScriptedProvider(turns)
        session = await open_session(
            build_contract(goal, root).with_max_steps(STEPS),
            Backend(store=store, provider=model, memory=False),
            RunRequest(
                approver=YesApprover(),
                policy=Policy.load(root, user_config=None),
                conversation_id=conversation_id,
            ),
        )
        result = await session.execute()
        assert result.end.outcome is Outcome.FINISHED, result.end
        assert all(estimate_tokens(r.chars) <= 24_000 + 2_000 for r in model.requests), (
            "no request over its ceiling (schemas aside)"
        )
        requests += model.requests
        if conversation:
            conversation_id = result.conversation_id
    return requests


def _prefix_cost(requests: list[Request]) -> float:
    total, previous = 0.0, list[str]()
    for request in requests:
        texts = request.texts()
        total += cache_priced(request.chars, shared_prefix_chars(previous, texts))
        previous = texts
    return total


async def test_a_three_turn_conversation_against_three_independent_runs(tmp_path: Path) -> None:
    store = Store(tmp_path / "bench.db")
    talk = await _runs(tmp_path / "conversation", store, conversation=True)
    apart = await _runs(tmp_path / "independent", store, conversation=False)
    firsts = [k * STEPS for k in range(1, TURNS)]
    for name, value in (
        ("characters sent", lambda rs: float(sum(r.chars for r in rs))),
        ("prefix-priced input", _prefix_cost),
        ("Anthropic-priced input", lambda rs: anthropic_cost(rs, placed=True)),
    ):
        a, b = value(talk), value(apart)
        record(
            "conversation",
            f"{name}: conversation {a:,.0f} · independent {b:,.0f} · ratio {a / b:.2f}",
        )
    for label, rs in (("conversation", talk), ("independent", apart)):
        shared = [
            shared_prefix_chars(rs[i - 1].texts(), rs[i].texts()) / rs[i].chars for i in firsts
        ]
        record(
            "conversation",
            f"{label}: first requests of turns 2 and 3 share "
            + ", ".join(f"{s:.0%}" for s in shared)
            + " of their text with the request before",
        )
    record(
        "conversation",
        f"{TURNS} turns × {STEPS} steps of the agent-like session; the independent runs are "
        "not charged the re-reads a real agent would need",
    )
