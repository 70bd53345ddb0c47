"""Sweep: a planted API key never leaves the language server (issue 9 acceptance; SPEC §6.7).

The attacker plants one unique key everywhere it can reach during two whole runs through
the real server (pytest-lsp's client over stdio, the model a real HTTP server on
127.0.0.1, a real workspace and store):

- the key is the one the server resolved (``HARNESS_API_KEY``), so the harness knows it;
- the goal quotes it; a workspace file holds it; the model says it, greps for it, reads a
  path and runs an ``exec`` argv that put it where labels are cut (200 and 120
  characters), writes a note whose key and value hold it, sends tool arguments that are not
  JSON with it, and says it in its last words; the command prints it; the approval dialog
  is long enough to offer "Show full command", which the user chooses;
- the provider echoes it in error bodies placed across every cut (a retried 500, then a
  final 401), so the second run ends ``provider_error``.

The server's stdin, stdout and stderr pass through ``tests/support/lsp_tee.py``: every byte
it sent — every notification, request and response — is kept. Each channel is then
searched, raw and JSON-decoded, for the key and every 12-character piece of it; so are its
stderr (logging at DEBUG, so every log line it can write is written), the file the
approval dialog opened, and the store's file, ``-wal`` and ``-shm`` while the server holds
the store open and after it has gone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.lsp import (
    SERVER_COMMAND,
    Opened,
    call,
    initialize_params,
    running,
    server_config,
    server_env,
    settings,
    turn,
    wait_watching,
)
from tests.support import lsp_tee
from tests.support.fake_llm import FakeLLM, Fault
from tests.support.planted import Planted, store_files

PLANTED = Planted.new("lspsweep")
KEY = PLANTED.key
SHOW_FULL = "Show full command"
# Where labels are cut: the toolbox's at 200 characters, the progress bar's at 120.
PATH_PAD = "r" * 185  # `read ` + 185: the key starts at 190 of the label
ARGV_PAD = "x" * 93  # `exec sh -c 'echo ` + 93: the key starts at 110
TAIL_PAD = "t" * 400  # past the dialog's 300 characters: only in the full view


@dataclass
class Sweep:
    """What two runs made the server write, by channel."""

    messages: list[dict[str, Any]]
    stdout: bytes
    stderr: bytes
    stdin: bytes
    store_open: dict[str, bytes]
    store_after: dict[str, bytes]
    opened: list[Opened]
    outcomes: list[str]
    approvals: int
    trace_step_1: dict[str, Any]
    requests: int
    notes: list[dict[str, Any]] = field(default_factory=list)

    def of(self, *methods: str) -> dict[str, str]:
        """The decoded text of each message with one of ``methods``, by label."""
        return {
            f"message {n} ({m['method']})": "\n".join(lsp_tee.strings_in(m))
            for n, m in enumerate(self.messages)
            if m.get("method") in methods
        }

    def responses(self) -> dict[str, str]:
        return {
            f"message {n} (response to {m.get('id')})": "\n".join(lsp_tee.strings_in(m))
            for n, m in enumerate(self.messages)
            if "method" not in m
        }


def busy_turns() -> list[dict[str, Any]]:
    """A model that puts the key in every place a run's text can come from."""
    command = f"echo {ARGV_PAD}{KEY}; echo key=$HARNESS_API_KEY; cat notes.txt # {TAIL_PAD}{KEY}"
    return [
        {
            "content": f"I found the key {KEY} in notes.txt",
            "tool_calls": [
                call("read_file", path="notes.txt"),
                call("read_file", path=PATH_PAD + KEY),
                call("grep", pattern=KEY),
                call("exec", argv=["sh", "-c", command]),
                call("remember", key="deploy-key", value=f"the key is {KEY}"),
                call("remember", key=f"key-{KEY}", value="a note named by the key"),
            ],
        },
        turn(call("read_file", path="notes.txt")),  # answered with bad arguments (below)
        {"content": f"Done. For the record, the key was {ARGV_PAD}{KEY}."},
    ]


def error_body(offset: int) -> dict[str, Any]:
    message = "e" * offset + KEY + " is wrong"
    return {"error": {"message": message, "type": "invalid_request_error"}}


async def two_runs(tmp: Path, fake: FakeLLM) -> Sweep:
    ws, store, record = tmp / "ws", tmp / "store" / "harness.db", tmp / "record"
    ws.mkdir()
    (ws / "notes.txt").write_text(f"deploy key: {KEY}\n")
    fake.add_turns(*busy_turns())
    fake.inject(Fault.http(500, body=error_body(195)))  # retried; the first turn follows
    fake.inject_at(3, Fault.bad_arguments('{"path": "' + "p" * 180 + KEY))
    config = server_config(
        command=lsp_tee.command(record, SERVER_COMMAND),
        env=server_env(
            HARNESS_API_KEY=KEY, HARNESS_LOG_LEVEL="DEBUG", XDG_CONFIG_HOME=str(tmp / "config")
        ),
    )
    async with running(config) as client:
        await client.initialize_session(initialize_params([ws], settings(fake, store)))
        await wait_watching(client)
        client.answers = [SHOW_FULL, "Allow"]
        first = (await client.command("harness.run", {"goal": f"deploy with {KEY}"}))["runId"]
        done = await client.wait_finished(first)
        for offset in (0, 180, 195, 480, 495):
            fake.inject(Fault.http(401, body=error_body(offset)))
        second = (await client.command("harness.run", {"goal": "again"}))["runId"]
        failed = await client.wait_finished(second)
        await client.wait_for(
            lambda: any("ended provider_error" in m.message for m in client.messages)
        )
        # Everything an operator can ask for afterwards goes over the wire too.
        for run_id in (first, second):
            shown = await client.command("harness.trace.run", {"runId": run_id})
            for step in shown["steps"]:
                await client.command("harness.trace.step", {"runId": run_id, "step": step["step"]})
        await client.command("harness.trace.runs", {})
        notes = await client.command("harness.memory.list", {})
        await client.command("harness.status")
        step_1 = await client.command("harness.trace.step", {"runId": first, "step": 1})
        store_open = {p.name: p.read_bytes() for p in store_files(store)}
    return Sweep(
        messages=lsp_tee.lsp_messages((record / "stdout.bin").read_bytes()),
        stdout=(record / "stdout.bin").read_bytes(),
        stderr=(record / "stderr.bin").read_bytes(),
        stdin=(record / "stdin.bin").read_bytes(),
        store_open=store_open,
        store_after={p.name: p.read_bytes() for p in store_files(store)},
        opened=client.opened,
        outcomes=[done["outcome"], failed["outcome"]],
        approvals=len(client.approvals),
        trace_step_1=step_1,
        requests=len(fake.requests),
        notes=list(notes),
    )


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sweep]:
    fake = FakeLLM().start()
    try:
        yield asyncio.run(asyncio.wait_for(two_runs(tmp_path_factory.mktemp("sweep"), fake), 90))
    finally:
        fake.stop()


# -- the attack really happened ------------------------------------------------------------


def test_the_sweep_saw_two_whole_runs(sweep: Sweep) -> None:
    assert sweep.outcomes == ["finished", "provider_error"]
    assert sweep.requests == 5  # a 500 (retried), three turns, a 401 (not retried)
    assert sweep.stdin.count(KEY.encode()) >= 1, "the goal quoting the key was sent"
    methods = {m.get("method") for m in sweep.messages}
    for method in (
        "$/progress",
        "window/logMessage",
        "window/showMessage",
        "window/showMessageRequest",
        "window/showDocument",
        "window/workDoneProgress/create",
        "harness/budget",
        "harness/runFinished",
    ):
        assert method in methods, f"the server never sent {method}: the sweep saw too little"
    assert len(sweep.responses()) >= 10, "command responses were recorded"
    assert b" DEBUG " in sweep.stderr, "stderr logged at DEBUG"
    assert sweep.approvals == 2, "asked, shown in full, asked again"
    result = sweep.trace_step_1["result"]
    assert "deploy key: [redacted]" in result, "the file holding the key was read"
    assert "key=\n" in result, "the command's environment had no key"
    assert {n["key"] for n in sweep.notes} == {"deploy-key", "key-[redacted]"}
    assert any(name.endswith("-wal") for name in sweep.store_open)


# -- every channel ----------------------------------------------------------------------------


def test_progress_never_shows_the_key(sweep: Sweep) -> None:
    PLANTED.assert_none_leak(sweep.of("$/progress"))


def test_log_messages_never_show_the_key(sweep: Sweep) -> None:
    PLANTED.assert_none_leak(sweep.of("window/logMessage"))


def test_show_message_never_shows_the_key(sweep: Sweep) -> None:
    PLANTED.assert_none_leak(sweep.of("window/showMessage"))


def test_the_approval_dialog_never_shows_the_key(sweep: Sweep) -> None:
    PLANTED.assert_none_leak(sweep.of("window/showMessageRequest", "window/showDocument"))


def test_the_full_command_file_never_holds_the_key(sweep: Sweep) -> None:
    opened = sweep.opened[0]
    assert opened.mode == 0o600 and "cat notes.txt" in opened.text
    PLANTED.assert_absent(f"the file {opened.path.name} the dialog opened", opened.text)


def test_run_finished_never_shows_the_key(sweep: Sweep) -> None:
    PLANTED.assert_none_leak(sweep.of("harness/runFinished"))


def test_no_other_notification_or_request_shows_the_key(sweep: Sweep) -> None:
    covered = {
        "$/progress",
        "window/logMessage",
        "window/showMessage",
        "window/showMessageRequest",
        "window/showDocument",
        "harness/runFinished",
    }
    others = {m["method"] for m in sweep.messages if "method" in m} - covered
    assert "harness/budget" in others
    PLANTED.assert_none_leak(sweep.of(*others))


def test_command_responses_never_show_the_key(sweep: Sweep) -> None:
    PLANTED.assert_none_leak(sweep.responses())


def test_stderr_never_shows_the_key(sweep: Sweep) -> None:
    PLANTED.assert_absent("the server's stderr", sweep.stderr)


def test_not_one_byte_the_server_wrote_holds_the_key(sweep: Sweep) -> None:
    PLANTED.assert_absent("the server's stdout (raw bytes)", sweep.stdout)


def test_the_store_files_never_hold_the_key(sweep: Sweep) -> None:
    PLANTED.assert_none_leak(
        {f"{name} (while the server held it open)": d for name, d in sweep.store_open.items()}
        | {f"{name} (after the server went)": d for name, d in sweep.store_after.items()}
    )
