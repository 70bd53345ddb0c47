"""The exec timeout kills the whole process tree (issue 11, seen 6; §6.6), including
processes that started their own session or daemonised, and says truthfully what it did."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.sandbox import sandbox_available, sandbox_status
from harness.types import ExecConfig, SandboxMode
from tests.support import figures
from tests.support.procs import alive_with
from tests.support.tool_env import make_tool_env

ESCAPES = {
    "setsid": "setsid sleep {n} & setsid sh -c 'sleep {n}' & sleep {n}",
    "double-fork": "(sh -c 'setsid sleep {n} &' &) ; sleep {n}",
    "nohup-daemon": "nohup sh -c 'trap \"\" HUP TERM; sleep {n}' >/dev/null 2>&1 & sleep {n}",
}


@pytest.mark.parametrize("mode", [SandboxMode.OFF, SandboxMode.REQUIRED], ids=["plain", "bwrap"])
@pytest.mark.parametrize("shape", sorted(ESCAPES))
async def test_timeout_leaves_no_process_behind(tmp_path: Path, mode: SandboxMode, shape: str):
    if mode is SandboxMode.REQUIRED and not sandbox_available():
        pytest.skip(f"bubblewrap cannot run here: {sandbox_status()}")
    n = 1000 + (os.getpid() % 997)  # a sleep length no other test uses: our marker
    marker = f"sleep {n}"
    env = make_tool_env(tmp_path / "ws", exec_config=ExecConfig(sandbox=mode))
    env.ctx.env = {"PATH": os.environ["PATH"]}
    result = await env.call("exec", argv=["sh", "-c", ESCAPES[shape].format(n=n)], timeout_s=1)
    left = alive_with(marker)
    figures.add("exec timeout kills the process tree", escape_attempts=1, processes_left=len(left))
    assert not result.ok and "timed out after 1 s" in result.text
    assert left == []
    assert "could not be killed" not in result.text
    assert "killed" in result.text


@pytest.mark.parametrize("mode", [SandboxMode.OFF, SandboxMode.REQUIRED], ids=["plain", "bwrap"])
async def test_background_processes_left_at_exit_are_killed_and_counted(
    tmp_path: Path, mode: SandboxMode
) -> None:
    if mode is SandboxMode.REQUIRED and not sandbox_available():
        pytest.skip(f"bubblewrap cannot run here: {sandbox_status()}")
    n = 2000 + (os.getpid() % 997)
    env = make_tool_env(tmp_path / "ws", exec_config=ExecConfig(sandbox=mode))
    env.ctx.env = {"PATH": os.environ["PATH"]}
    script = f"setsid sleep {n} >/dev/null 2>&1 < /dev/null & echo started"
    result = await env.call("exec", argv=["sh", "-c", script], timeout_s=30)
    assert result.ok and "exit code: 0" in result.text and "started" in result.text
    assert alive_with(f"sleep {n}") == []
    if mode is SandboxMode.OFF:  # in the sandbox it ends with the PID namespace, unseen
        assert "(it left background processes running: 1 process it started was killed)" in (
            result.text
        )
