"""``harness chat`` on a real terminal (issue 22, §8): each line a follow-up in one
conversation, Ctrl-C stops the turn (and the next line carries on), Ctrl-D ends."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect

from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import Fault

from .cli import ROOT, call, calls, env, harness


def test_chat_follows_up_line_by_line_ctrl_c_stops_a_turn_ctrl_d_ends(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("def calc_total():\n    return 1\n")
    store = tmp_path / "s.db"
    fake = fake_llm(
        [calls(call("read_file", path="a.py")), {"content": "It returns one."}],
    )
    fake.inject_at(4, Fault.hang(120))  # the third turn's model call never answers
    fake.add_turns({"content": "Two turns."}, {"content": "Still here."})
    home = {"XDG_CONFIG_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d")}
    argv = ["-m", "harness", "chat", "--provider", "openai", "--base-url", fake.url]
    argv += ["--model", "m", "-w", str(ws), "--store", str(store)]
    child = pexpect.spawn(
        sys.executable, argv, env=env(TERM="dumb", **home), cwd=str(ROOT), encoding="utf-8"
    )
    child.timeout = 60
    child.expect("› ")
    child.sendline("What does a.py do?")
    child.expect("It returns one.")
    child.expect("› ")
    child.sendline("And how many turns?")
    child.expect("Two turns.")
    child.expect("› ")
    child.sendline("Wait for it")
    while len(fake.requests) < 4:  # the turn is with the model, which hangs
        child.expect([pexpect.TIMEOUT], timeout=0.1)
    child.sendintr()
    child.expect("cancelled")
    child.expect("› ")
    child.sendline("Still there?")
    child.expect("Still here.")
    child.expect("› ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    runs = json.loads(harness("trace", "runs", "--store", store, "--json").stdout)
    assert [(r["conversationId"], r["turn"], r["outcome"]) for r in reversed(runs)] == [
        (runs[-1]["runId"], 1, "finished"),
        (runs[-1]["runId"], 2, "finished"),
        (runs[-1]["runId"], 3, "cancelled"),
        (runs[-1]["runId"], 4, "finished"),
    ]
    assert "It returns one." in json.dumps(fake.requests[-1])  # the conversation so far
