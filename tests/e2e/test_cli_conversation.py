"""Conversations from the command line (issue 22, §8 ``--continue``, §11): the real CLI
against the fake model servers of both wires. A follow-up's first request starts with the
previous request's text up to its trailer (measured on the bodies the fake server received)
and the provider's cache holds it; a file the user changed between turns is re-read; a run
SIGKILLed mid-step is resumed with ``--continue RUN`` and its observations are carried."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import FakeLLM, Fault
from tests.support.wire_texts import body_text, without_trailer

from .cli import ROOT, call, calls, env, harness, run_args

PROVIDER = {"openai": ("openai", "gpt-4o"), "anthropic": ("anthropic", "claude-sonnet-4-0")}


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    ws = tmp_path / "shop"
    (ws / "src").mkdir(parents=True)
    (ws / ".git").mkdir()
    (ws / "src" / "pricing.py").write_text("def calc_total(x):\n    return x\n")
    (ws / "README.md").write_text("# Shop\n\nUse calc_total.\n")
    return ws


def args(goal: str, fake: FakeLLM, shop: Path, store: Path, *more: str) -> list[str]:
    out = run_args(goal, fake.url, shop, store, *more)
    name, model = PROVIDER[fake.wire]
    out[out.index("--provider") + 1], out[out.index("--model") + 1] = name, model
    return out


def cached(fake: FakeLLM, index: int) -> int:
    usage = fake.usages[index]
    assert usage is not None
    if fake.wire == "openai":
        return int(usage["prompt_tokens_details"]["cached_tokens"])
    return int(usage.get("cache_read_input_tokens", 0))


def wait_for_requests(fake: FakeLLM, count: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while len(fake.requests) < count:
        assert proc.poll() is None, "the run ended before its request"
        assert time.monotonic() < deadline, "the run never sent its request"
        time.sleep(0.05)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_follow_up_and_resume_carry_the_conversation(
    wire: str, shop: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    store = tmp_path / "s.db"
    home = {"XDG_CONFIG_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d")}
    fake = fake_llm(
        [calls(call("read_file", path="src/pricing.py")), {"content": "It sums nothing."}],
        wire=wire,
    )
    first = harness(*args("Look at pricing", fake, shop, store), **home)
    assert first.code == 0, first.stderr
    one = first.json()
    assert (one["conversationId"], one["turn"]) == (one["runId"], 1)

    # The user edits the file between turns; the follow-up continues the conversation.
    (shop / "src" / "pricing.py").write_text("def calc_total(x):\n    return x * 2\n")
    fake.add_turns({"content": "Docs updated."})
    second = harness(*args("Now the docs", fake, shop, store), "--continue", **home)
    assert second.code == 0, second.stderr
    two = second.json()
    assert (two["conversationId"], two["turn"]) == (one["runId"], 2)
    previous, follow = body_text(fake.requests[1]), body_text(fake.requests[2])
    assert follow.startswith(without_trailer(previous)), "the previous request is the prefix"
    new = follow[len(without_trailer(previous)) :]
    assert "It sums nothing." in new and "Now the docs" in new
    assert "changed on disk since the read at step 1 of turn 1" in new
    assert "return x * 2" in new
    assert cached(fake, 2) > 0, "the provider's cache held the conversation's prefix"

    # A third turn is SIGKILLed while its second request is with the model ...
    fake.add_turns(calls(call("read_file", path="README.md")))
    fake.inject_at(5, Fault.hang(120))
    argv = [sys.executable, "-m", "harness", *args("Rename it", fake, shop, store, "--continue")]
    quiet = subprocess.DEVNULL
    proc = subprocess.Popen(argv, env=env(**home), cwd=ROOT, stdout=quiet, stderr=quiet)
    wait_for_requests(fake, 5, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    # ... and resumed: its committed step (the README read) is in the context.
    fake.add_turns({"content": "Renamed."})
    killed = two["runId"] + 1
    resumed = harness(*args("Go on.", fake, shop, store, "--continue", str(killed)), **home)
    assert resumed.code == 0, resumed.stderr
    assert resumed.json()["turn"] == 4
    last = body_text(fake.requests[-1])
    assert "Use calc_total." in last and "Go on." in last
    assert last.startswith(without_trailer(body_text(fake.requests[3])))
    shown = harness("trace", "show", str(killed), "--store", store, "--json", **home).json()
    assert (shown["run"]["outcome"], shown["run"]["turn"]) == ("interrupted", 3)
    words = harness("trace", "show", str(killed), "--store", store, **home).stdout
    assert f"conversation {one['runId']}, turn 3" in " ".join(words.split())
    # The runs table says which runs are follow-ups, and of which conversation.
    table = harness("trace", "runs", "--store", store, **home, COLUMNS="100").stdout
    turns = [line.split()[6:9] for line in table.splitlines()[1:]]  # after date and time
    first_run = one["runId"]
    assert turns[-1][0] == "1" and turns[0] == ["4", "of", f"#{first_run}"], table
