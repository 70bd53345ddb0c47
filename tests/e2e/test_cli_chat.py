"""``harness chat`` on a real terminal (issue 22, §8): each line a follow-up in one
conversation, Ctrl-C stops the turn (and the next line carries on), Ctrl-D ends."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pexpect

from tests.conftest import MakeFakeLLM
from tests.e2e.lsp import held
from tests.support.fake_llm import Fault
from tests.support.wire_texts import body_text, without_trailer

from .cli import ROOT, call, calls, env, harness

STEER = "not b.py, leave that file alone"


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


def test_a_line_typed_while_a_turn_runs_steers_it(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    """Issue 33, steering on the terminal: a line typed during step 2 is not the next turn
    but the user's words inside this one, in the request after step 2's results — the
    request before is its prefix, so the provider's cache holds."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("def calc_total():\n    return 1\n")
    store = tmp_path / "s.db"
    release = threading.Event()
    fake = fake_llm(
        [
            calls(call("read_file", path="a.py")),
            held(release, calls(call("list_dir", path="."))),
            {"content": "Understood."},
        ]
    )
    home = {"XDG_CONFIG_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d")}
    argv = ["-m", "harness", "chat", "--provider", "openai", "--base-url", fake.url]
    argv += ["--model", "m", "-w", str(ws), "--store", str(store)]
    child = pexpect.spawn(
        sys.executable, argv, env=env(TERM="dumb", **home), cwd=str(ROOT), encoding="utf-8"
    )
    child.timeout = 60
    child.expect("› ")
    child.sendline("tidy a.py")
    while len(fake.requests) < 2:  # step 2's model call, held until released
        child.expect([pexpect.TIMEOUT], timeout=0.1)
    child.sendline(STEER)
    child.expect("sent to the running turn")
    release.set()
    child.expect("Understood.")
    child.expect("› ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert len(fake.requests) == 3
    before, after = body_text(fake.requests[1]), body_text(fake.requests[2])
    assert after.startswith(without_trailer(before)), "the request before is the prefix"
    added = after[len(without_trailer(before)) :]
    assert added.index("[list .]") < added.index(f"# The user, while you work\n{STEER}")
    assert STEER not in before
    runs = json.loads(harness("trace", "runs", "--store", store, "--json").stdout)
    assert len(runs) == 1, "the line steered the turn, it was not a turn of its own"


def test_while_an_approval_is_asked_the_line_typed_is_its_answer(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """The one reader of the terminal gives the line to the question being asked, not to
    the running turn as steering."""
    ws = tmp_path / "ws"
    ws.mkdir()
    fake = fake_llm(
        [
            calls(call("exec", argv=["sh", "-c", "echo hello > new.txt"])),
            {"content": "Wrote it."},
        ]
    )
    home = {"XDG_CONFIG_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d")}
    argv = ["-m", "harness", "chat", "--provider", "openai", "--base-url", fake.url]
    argv += ["--model", "m", "-w", str(ws), "--store", str(tmp_path / "s.db")]
    child = pexpect.spawn(
        sys.executable, argv, env=env(TERM="dumb", **home), cwd=str(ROOT), encoding="utf-8"
    )
    child.timeout = 60
    child.expect("› ")
    child.sendline("write new.txt with a command")
    child.expect(r"\(default: deny\)\? ")
    child.sendline("a")
    child.expect("Wrote it.")
    child.expect("› ")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert "sent to the running turn" not in (child.before or "")
    assert (ws / "new.txt").read_text() == "hello\n"
