"""Dollars and honest counts through the real server (issue 22, §7, §11 "Cost"):
``harness/budget`` carries ``costUsd`` (the run's dollars so far) and ``cachedCostUsd``
(the part paid for cache reads), ``harness/runFinished`` the run's ``costUsd`` and its
``refused``, ``denied`` and ``failed`` calls. The model is a real Chat Completions server on
127.0.0.1 reporting usage with cached tokens; the dollars are computed here by hand from the
genai-prices table's published prices and the usage the fake server sent."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.lsp import (
    HarnessClient,
    bare_fixture,  # noqa: F401 (a fixture)
    call,
    initialize_params,
    settings,
    turn,
    wait_watching,
)
from tests.support.fake_llm import FakeLLM

TURNS = [turn(call("read_file", path="src/a.py")), turn(call("list_dir")), {"content": "Read."}]


def dollars(usages: list[Any], fresh: float, read: float, out: float) -> list[float]:
    """The running total after each call, and (last) the cached part, by hand."""
    total, cached, running = 0.0, 0.0, []
    for u in filter(None, usages):
        hit = u["prompt_tokens_details"]["cached_tokens"]
        total += (u["prompt_tokens"] - hit) * fresh + hit * read + u["completion_tokens"] * out
        cached += hit * read
        running.append(total / 1e6)
    return [*running, cached / 1e6]


async def start(bare: HarnessClient, ws: Path, options: dict[str, Any]) -> None:
    await bare.initialize_session(initialize_params([ws], options))
    await wait_watching(bare)


async def test_a_priced_model_reports_dollars_in_budget_and_run_finished(
    bare: HarnessClient, fake: FakeLLM, ws: Path, store: Path
) -> None:
    options = settings(fake, store)
    options["provider"]["model"] = "gpt-4o"
    await start(bare, ws, options)
    fake.add_turns(*TURNS)
    fake.cache_tokens = (128, 0)
    run_id = (await bare.command("harness.run", {"goal": "Look"}))["runId"]
    finished = await bare.wait_finished(run_id)

    # gpt-4o in the table: $2.50 input, $1.25 cached input, $10 output per million tokens
    *running, cached = dollars(fake.usages, 2.5, 1.25, 10)
    assert [b["costUsd"] for b in bare.budgets] == pytest.approx(running, abs=1e-6)
    assert bare.budgets[-1]["cachedCostUsd"] == pytest.approx(cached, abs=1e-6)
    assert cached == pytest.approx(3 * 128 * 1.25 / 1e6)
    assert finished["costUsd"] == pytest.approx(running[-1], abs=1e-6)
    assert (finished["refused"], finished["denied"], finished["failed"]) == (0, 0, 0)


async def test_an_unknown_model_has_no_dollars_and_an_override_prices_it(
    bare: HarnessClient, fake: FakeLLM, ws: Path, store: Path
) -> None:
    await start(bare, ws, settings(fake, store))  # model "m": not in the table
    fake.add_turns(*TURNS)
    run_id = (await bare.command("harness.run", {"goal": "Look"}))["runId"]
    assert (await bare.wait_finished(run_id))["costUsd"] is None
    assert {b["costUsd"] for b in bare.budgets} == {None}
    assert {b["cachedCostUsd"] for b in bare.budgets} == {None}

    prices = {"m": {"input": 0.4, "output": 1.6, "cacheRead": 0.1}, "bad": {"input": "x"}}
    bare.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"harness": settings(fake, store, prices=prices)}
        )
    )
    await bare.wait_for(lambda: any("prices.bad" in w for w in bare.warnings()))
    warning = next(w for w in bare.warnings() if "prices.bad" in w)
    assert "'x'" not in warning, "the value is never echoed"
    used = len(fake.usages)
    fake.add_turns(*TURNS)
    run_id = (await bare.command("harness.run", {"goal": "Look again"}))["runId"]
    finished = await bare.wait_finished(run_id)
    *running, _ = dollars(fake.usages[used:], 0.4, 0.1, 1.6)
    assert finished["costUsd"] == pytest.approx(running[-1], abs=1e-6)


async def test_refused_denied_and_failed_calls_are_counted_in_run_finished(
    bare: HarnessClient, fake: FakeLLM, ws: Path, store: Path
) -> None:
    (ws / ".env").write_text("API_TOKEN=secret\n")
    await start(bare, ws, settings(fake, store))
    fake.add_turns(
        turn(call("read_file", path=".env")),  # refused: the builtin rule
        turn(call("exec", argv=[sys.executable, "-c", "print(1)"])),  # denied at the approval
        turn(call("edit_file", path="src/a.py", old="not there", new="x")),  # failed
        {"content": "Could not."},
    )
    bare.approval_answer = "Deny"
    run_id = (await bare.command("harness.run", {"goal": "Try"}))["runId"]
    finished = await bare.wait_finished(run_id)
    assert (finished["refused"], finished["denied"], finished["failed"]) == (1, 1, 1), finished
    assert finished["filesChanged"] == []
