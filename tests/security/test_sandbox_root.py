"""Issue 20, item 6: as root the sandbox kept every capability. Containers, CI and
devcontainers run as root; inside bwrap a command had ``CapEff 000001fffeffffff``, and an
approved ``make test`` (a Makefile the model wrote, which needs no approval) remounted
``/`` read-write and wrote outside the workspace. As a normal user the same was refused.

The attack runs for real: ``harness run`` (the CLI, ``--yes`` approving the command) against
a model on 127.0.0.1 that writes the Makefile and asks for ``make test``; then the same
probe straight through the sandbox's own command line as a normal user (a throwaway one,
made with ``useradd``, when the tests run as root).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from harness import sandbox
from tests.e2e.cli import ROOT, harness
from tests.support.fake_llm import FakeLLM
from tests.support.sandbox_check import (
    normal_user,
    outside_dir,
    require_sandbox,
    stream,
)

NO_CAPABILITIES = "CapEff:\t0000000000000000"


def attack(outside: Path) -> str:
    """The recipe's shell lines: what a root process with capabilities could do."""
    return "\n".join(
        [
            "grep -E '^Cap(Eff|Prm):' /proc/self/status",
            "mount -o remount,rw / && echo REMOUNTED || echo remount-refused",
            f"echo pwned > {outside} && echo WROTE-OUTSIDE || echo write-refused",
            "echo inside > inside.txt",
        ]
    )


def makefile(script: str) -> str:
    recipe = "".join(f"\t@{line}\n" for line in script.splitlines())
    return f"test:\n{recipe}"


def run_cli(fake: FakeLLM, ws: Path, home: Path, turns: list[dict[str, object]]) -> list[str]:
    """``harness run`` on ``turns`` (every command approved); each step's recorded result."""
    fake.turns = [*turns, {"content": "done"}]
    store = home / "harness.db"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"))
    argv = [
        sys.executable, "-m", "harness", "run", "test it", "-w", str(ws),
        "--provider", "openai", "--base-url", fake.url, "--model", "m",
        "--store", str(store), "--yes", "--json",
    ]  # fmt: skip
    done = subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    run_id = str(json.loads(done.stdout)["runId"])
    results = []
    for step in range(1, len(turns) + 1):
        shown = harness("trace", "step", run_id, str(step), "--store", store, "--json")
        assert shown.code == 0, shown.stderr
        results.append(str(shown.json()["result"]))
    return results


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_as_root_an_approved_make_test_cannot_remount_or_write_outside(
    fake_llm: Callable[..., FakeLLM],
) -> None:
    if os.geteuid() != 0:
        pytest.skip("the root case (the normal-user case is the next test)")
    require_sandbox()
    with outside_dir() as tmp:
        ws, outside = tmp / "ws", tmp / "outside.txt"
        ws.mkdir()
        turns = [
            call("write_file", path="Makefile", content=makefile(attack(outside))),
            call("exec", argv=["make", "test"]),
        ]
        wrote, ran = run_cli(fake_llm([]), ws, tmp, turns)
        assert "[wrote Makefile]" in wrote, wrote
        out = stream(ran)
        assert NO_CAPABILITIES in out, ran
        assert "remount-refused" in out and "REMOUNTED" not in out, ran
        assert "write-refused" in out and "WROTE-OUTSIDE" not in out, ran
        assert not outside.exists()
        assert (ws / "inside.txt").read_text() == "inside\n"  # the workspace stays writable


def test_as_a_normal_user_the_sandbox_refuses_the_same() -> None:
    require_sandbox()
    found = sandbox.probe()
    assert found.executable is not None
    with outside_dir() as tmp, normal_user() as user:
        ws, outside = tmp / "ws", tmp / "outside.txt"
        ws.mkdir()
        for path in (tmp, ws):
            os.chown(path, user.uid, user.gid)
        boxed = sandbox.bwrap_argv(
            ["sh", "-c", attack(outside)], root=ws, executable=found.executable
        )
        done = subprocess.run(
            user.argv(*boxed), cwd=ws, capture_output=True, text=True, timeout=60, check=False
        )
        said = done.stdout + done.stderr
        assert NO_CAPABILITIES in done.stdout, said
        assert "remount-refused" in done.stdout and "REMOUNTED" not in done.stdout, said
        assert "write-refused" in done.stdout and not outside.exists(), said
        assert (ws / "inside.txt").read_text() == "inside\n"
