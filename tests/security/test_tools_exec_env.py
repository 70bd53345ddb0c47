"""Attack: a command the agent runs reads the harness's secrets (issue 9, seen 3; §6.6).

Every variable the harness read a key from, every variable whose name looks secret, URLs
with a password and values equal to a registered key are removed from the command's
environment; in the sandbox, ``/proc/$PPID/environ`` shows nothing of the harness.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import redact
from harness.tools.exec import exec_environment
from harness.types import SandboxMode
from tests.support.sandbox_check import require_sandbox

PLANTED = "planted-4b1e9d7c2a6f8e3d"

SECRET_LOOKING = {
    "HARNESS_API_KEY": "k1",
    "OPENAI_API_KEY": "k2",
    "ANTHROPIC_API_KEY": "k3",
    "OPENROUTER_API_KEY": "k4",
    "API_KEY": "k5",
    "OPENAI_KEY": "k6",
    "GITHUB_PAT": "k7",
    "GITHUB_TOKEN": "k8",
    "PRIVATE_KEY": "k9",
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "s",
    "DATABASE_URL": "postgres://app:hunter2@db:5432/app",
    "db_password": "lower-case name",
    "MY_PASSWD": "p",
    "GOOGLE_APPLICATION_CREDENTIALS": "/secrets/sa.json",
    "NPM_AUTH": "t",
    "BASIC_AUTH_HEADER": "Basic xyz",
    "SlackSecret": "mixed case",
    "CACHE_URL": "redis://:s3cret@cache:6379/0",
    "UPSTREAM": "https://user:pa55@example.com/repo.git",
    # issue 30, findings 6 and 16: the store and a collector's credentials
    "HARNESS_STORE": "postgresql://ann@db/harness?password=s3cret",
    "TEAM_DB": "postgresql://ann@db/harness?%70assword=s3cret",
    "PG_CONNINFO": "host=db dbname=harness password=s3cret",
    "EMPTY_USER_PASSWORD": "postgresql://ann:@db/harness",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://collector.example/v1/traces?token=t0k",
    "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example/?api%5Fkey=t0k",
    "SIGNED_UPLOAD": "https://bucket.example/o?X-Goog-Signature=ab&sig=cd",
}
KEPT = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/u",
    "LANG": "C.UTF-8",
    "PUBLIC_URL": "https://example.com/app",
    "GIT_AUTHOR_NAME": "Ada",
    "EDITOR": "vi",
    "SEARCH": "https://example.com/search?q=harness&page=2",
    "OTEL_SERVICE_NAME": "harness",
}


@pytest.mark.parametrize("name", sorted(SECRET_LOOKING))
def test_secret_looking_variables_are_removed(name: str) -> None:
    scrubbed = exec_environment({**KEPT, name: SECRET_LOOKING[name]})
    assert name not in scrubbed
    assert scrubbed == KEPT


def test_a_value_equal_to_a_registered_key_is_removed_whatever_its_name() -> None:
    secret = "sk-registered-" + PLANTED
    redact.register(secret)
    scrubbed = exec_environment({**KEPT, "INNOCENT": secret, "ALSO": f"Bearer {secret}"})
    assert scrubbed == KEPT


# A harness process that runs one ``exec`` (argv: its first argument, JSON) with the sandbox
# mode its second argument names, and prints the result as JSON.
EXEC_IN_A_HARNESS = """
import asyncio, json, sys
from harness.policy import Gate, Policy, YesApprover
from harness.tools import all_tools, dispatch
from harness.tools.base import ToolContext
from harness.types import ExecConfig, SandboxMode, ToolCall
from harness.workspace import Workspace

ws = Workspace(sys.argv[3])
ctx = ToolContext(ws, Gate(Policy(), YesApprover(), 1), 1, 1, 12000,
                  exec_config=ExecConfig(sandbox=SandboxMode(sys.argv[2])))
call = ToolCall("c", "exec", {"argv": json.loads(sys.argv[1])})
r = asyncio.run(dispatch(call, all_tools(), ctx))
print(json.dumps({"ok": r.ok, "text": r.text}))
"""


def exec_in_a_harness(
    tmp_path: Path, mode: SandboxMode, argv: list[str], **planted: str
) -> dict[str, object]:
    """A harness process whose own environment holds ``planted`` runs ``exec argv`` in a
    fresh workspace: the tool's result."""
    ws = tmp_path / "ws"
    ws.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", EXEC_IN_A_HARNESS, json.dumps(argv), mode.value, str(ws)],
        capture_output=True,
        text=True,
        env={**os.environ, **planted},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_in_the_sandbox_proc_ppid_environ_shows_nothing_of_the_harness(tmp_path: Path) -> None:
    require_sandbox()
    # the attack reads its parent's environment from /proc
    argv = ["sh", "-c", "tr '\\0' '\\n' < /proc/$PPID/environ; echo END"]
    result = exec_in_a_harness(
        tmp_path,
        SandboxMode.REQUIRED,
        argv,
        OPENAI_API_KEY=f"sk-{PLANTED}",
        HARNESS_API_KEY=PLANTED,
    )
    text = str(result["text"])
    assert result["ok"], text
    assert "END" in text and "PATH=" in text  # the attack ran and read an environment
    assert PLANTED not in text


def test_without_a_sandbox_the_command_gets_no_key_in_its_own_environment(
    tmp_path: Path,
) -> None:
    result = exec_in_a_harness(
        tmp_path,
        SandboxMode.OFF,
        ["env"],
        OPENAI_API_KEY=f"sk-{PLANTED}",
        DATABASE_URL=f"postgres://u:{PLANTED}@h/db",
        HARNESS_STORE=f"postgresql://u@h/db?password={PLANTED}",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"http://127.0.0.1:9/v1/traces?token={PLANTED}",
    )
    text = str(result["text"])
    assert "PATH=" in text and PLANTED not in text
