"""Sweep: what a command the agent runs can reach (issue 9, seen 3; Build: "exec sandbox";
SPEC §6.6). Real ``harness run`` processes against a model on 127.0.0.1 that asks for the
commands; the commands are the attacker's probes.

- The harness's own environment is planted with the key it uses and every variable name
  the issue lists, each with a unique value: the command prints its environment, its
  parent's (``/proc/$PPID/environ``) and the harness process's own (by PID, which the model
  learns and puts in the command): no value may appear.
- Sentinel places outside the workspace — a home directory, the user config, the store's
  directory, a directory under ``/var/tmp`` — must stay unwritten.
- The harness process must be invisible: ``kill -0 PID`` and ``/proc/PID`` fail.
- With ``[exec] network = false`` the command cannot reach the model's own port on
  127.0.0.1 (and can, as a control, with the network on).
- A repository's ``.harness/policy.toml`` saying ``sandbox = "off"`` and ``network = true``
  changes none of this, trusted or not.
- ``sandbox = "required"`` without bubblewrap runs nothing, and says so once per run.

Each test but the last needs bubblewrap (``tests/support/sandbox_check.py``).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import ROOT, harness
from tests.support.fake_llm import FakeLLM
from tests.support.sandbox_check import require_sandbox

TIMEOUT_S = 90.0
PLANTED_NAMES = [
    "HARNESS_API_KEY",
    "OPENAI_API_KEY",
    "API_KEY",
    "OPENAI_KEY",
    "GITHUB_PAT",
    "DATABASE_URL",
    "PRIVATE_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "GITHUB_TOKEN",
    "NPM_AUTH",
    "SlackSecret",
    "db_password",
]


def planted_value(name: str) -> str:
    token = secrets.token_hex(12)
    if name == "DATABASE_URL":
        return f"postgres://app:{token}@db:5432/app"
    return f"planted-{token}"


@dataclass
class Machine:
    """A home directory, a user config, a store and a workspace; ``run`` starts the real
    ``harness run`` whose model asks for ``commands`` (each a function of the harness's
    PID, returning a shell script), one per turn."""

    tmp: Path
    fake: FakeLLM
    planted: dict[str, str] = field(default_factory=dict)
    pid: int = 0

    @property
    def home(self) -> Path:
        return self.tmp / "home"

    @property
    def ws(self) -> Path:
        return self.home / "src" / "app"

    @property
    def config(self) -> Path:
        return self.tmp / "config" / "harness" / "policy.toml"

    @property
    def store(self) -> Path:
        return self.tmp / "data" / "harness.db"

    def environ(self, path: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env = {k: v for k, v in env.items() if not k.startswith("HARNESS_")}
        env.update(self.planted)
        env.update(HOME=str(self.home), XDG_CONFIG_HOME=str(self.tmp / "config"))
        if path is not None:
            env["PATH"] = path
        return env

    def run(self, *commands: Callable[[int], str], path: str | None = None) -> list[str]:
        """The results of each command, as the trace recorded them."""
        self.fake.turns = [self._turn(c) for c in commands] + [{"content": "done"}]
        argv = [
            sys.executable, "-m", "harness", "run", "probe", "-w", str(self.ws),
            "--provider", "openai", "--base-url", self.fake.url, "--model", "m",
            "--store", str(self.store), "--yes", "--json",
        ]  # fmt: skip
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=self.environ(path), text=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.pid = proc.pid
        out, err = proc.communicate(timeout=TIMEOUT_S)
        assert proc.returncode == 0, err
        self.stderr = err
        run_id = str(json.loads(out)["runId"])
        results = []
        for step in range(1, len(commands) + 1):
            shown = harness("trace", "step", run_id, str(step), "--store", self.store, "--json")
            assert shown.code == 0, shown.stderr
            results.append(str(shown.json()["result"]))
        return results

    def _turn(self, command: Callable[[int], str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
        def turn(body: dict[str, Any]) -> dict[str, Any]:
            argv = ["sh", "-c", command(self.pid)]
            return {"tool_calls": [{"name": "exec", "arguments": {"argv": argv}}]}

        return turn

    def user_policy(self, text: str) -> None:
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.config.write_text(text)

    def repo_policy(self, text: str) -> None:
        (self.ws / ".harness").mkdir(parents=True, exist_ok=True)
        (self.ws / ".harness" / "policy.toml").write_text(text)


PROBE = """import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    print("CONNECTED")
except OSError as e:
    print("REFUSED", e)
"""


@pytest.fixture
def machine(fake_llm: Callable[..., FakeLLM]) -> Iterator[Machine]:
    # Not under /tmp: the sandbox's /tmp is private, so a write there "succeeds" unseen.
    tmp = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="harness-sweep-"))
    try:
        m = Machine(tmp, fake_llm([]))
        m.ws.mkdir(parents=True)
        m.store.parent.mkdir(parents=True)
        (m.ws / "probe.py").write_text(PROBE)
        m.planted = {name: planted_value(name) for name in PLANTED_NAMES}
        yield m
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def stdout_of(result: str) -> str:
    return result.split("--- stdout ---\n", 1)[1].split("\n--- stderr ---", 1)[0]


# -- the environment -----------------------------------------------------------------------


def test_no_planted_secret_reaches_a_command_or_its_view_of_the_harness(machine: Machine) -> None:
    require_sandbox()
    (result,) = machine.run(
        lambda pid: (
            "env; echo ---; tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; "
            f"tr '\\0' '\\n' < /proc/{pid}/environ; echo ---; cat /proc/1/environ; echo END"
        )
    )
    out = stdout_of(result)
    assert "END" in out and "PATH=" in out, result  # the probe ran and read an environment
    leaked = sorted(name for name, value in machine.planted.items() if value in result)
    assert leaked == [], f"the command saw {leaked}"
    for name in PLANTED_NAMES:
        assert f"{name}=" not in out, name


# -- the file system -------------------------------------------------------------------------


def test_only_the_workspace_is_writable(machine: Machine) -> None:
    require_sandbox()
    machine.user_policy("# mine\n")
    targets = [
        machine.home / "planted.txt",
        machine.config.parent / "policy.toml",
        machine.store.parent / "planted.txt",
        machine.store,
        machine.ws.parent / "sibling.txt",
    ]
    # What is written is computed, so the command's own text (stored) does not hold it.
    script = "; ".join(f'echo "pw""ned-$((6*7))" >> {t} && echo WROTE {t}' for t in targets)
    (result,) = machine.run(lambda pid: f"{script}; echo inside > mine.txt; echo END")
    out = stdout_of(result)
    assert "END" in out and "WROTE" not in out, result
    assert result.count("Read-only file system") == len(targets), result
    assert (machine.ws / "mine.txt").read_text() == "inside\n"
    assert machine.config.read_text() == "# mine\n"
    assert b"pwned-42" not in machine.store.read_bytes()
    assert not any(t.exists() for t in targets if t not in (machine.config, machine.store))


def test_the_harness_process_is_invisible(machine: Machine) -> None:
    require_sandbox()
    (result,) = machine.run(
        lambda pid: (
            f"kill -0 {pid} && echo SEEN-BY-KILL; test -e /proc/{pid} && echo SEEN-IN-PROC; "
            "echo PIDS $(ls /proc | grep -c '^[0-9]')"
        )
    )
    out = stdout_of(result)
    assert "SEEN" not in out, result
    assert int(out.split("PIDS ", 1)[1].split()[0]) <= 5


# -- the network -------------------------------------------------------------------------------


def _connect(port: int) -> str:
    return f"{sys.executable} probe.py {port}"


@pytest.mark.parametrize("network", [False, True], ids=["off", "on-control"])
def test_network_off_reaches_nothing(machine: Machine, network: bool) -> None:
    require_sandbox(network=network)
    machine.user_policy(f"[exec]\nnetwork = {str(network).lower()}\n")
    port = int(machine.fake.url.rsplit(":", 1)[1].split("/")[0])
    (result,) = machine.run(lambda pid: _connect(port))
    out = stdout_of(result)
    assert ("CONNECTED" in out) is network, result


# -- a repository cannot turn it off ---------------------------------------------------------


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
def test_a_repository_cannot_turn_the_sandbox_or_the_network_back_on(
    machine: Machine, trusted: bool
) -> None:
    require_sandbox(network=False)
    machine.user_policy("[exec]\nnetwork = false\n")
    machine.repo_policy('[exec]\nsandbox = "off"\nnetwork = true\n')
    if trusted:
        done = harness("trust", machine.ws, **machine.environ())
        assert done.code == 0, done.stderr
    port = int(machine.fake.url.rsplit(":", 1)[1].split("/")[0])
    outside = machine.home / "planted.txt"
    (result,) = machine.run(lambda pid: f"{_connect(port)}; echo x > {outside}")
    assert "REFUSED" in stdout_of(result) and "Read-only file system" in result, result
    assert not outside.exists()
    said = " ".join(machine.stderr.split())
    assert 'may only tighten what you set; ignored: [exec] sandbox = "off"' in said
    assert "[exec] network = true" in said


# -- without bubblewrap --------------------------------------------------------------------------


def test_required_without_bubblewrap_runs_nothing_and_says_so_once(machine: Machine) -> None:
    bin_dir = machine.tmp / "bin-without-bwrap"
    bin_dir.mkdir()
    for tool in ("sh", "touch", "env", "cat"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    machine.user_policy('[exec]\nsandbox = "required"\n')
    results = machine.run(lambda pid: "touch ran-1", lambda pid: "touch ran-2", path=str(bin_dir))
    for result in results:
        assert '[exec] sandbox = "required"' in result and "nothing was run" in result
    assert not list(machine.ws.glob("ran-*"))
    said = " ".join(machine.stderr.split())
    assert said.count("commands run without a sandbox") == 1, machine.stderr
