"""exec: real processes, policy, timeouts that kill the group, output elision, scrubbing."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.policy import Layer, Policy, Rule, UnavailableApprover
from harness.tools import dispatch
from harness.tools.exec import HEAD_CHARS, TAIL_CHARS, exec_environment
from harness.types import Act, Effect, ExecConfig, SandboxMode, ToolCall
from tests.support.procs import alive_with

if TYPE_CHECKING:
    from tests.harness.tools.conftest import MakeToolEnv, ToolEnv

PY = sys.executable


async def test_exec_reports_exit_code_stdout_and_stderr(tool_env: ToolEnv):
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    result = await tool_env.call("exec", argv=[PY, "-c", code])
    assert result.ok  # the tool worked; the command's failure is in the exit code
    lines = result.text.splitlines()
    assert lines[0].startswith("[exec ") and "exit code: 3" in lines
    assert "--- stdout ---\nout\n" in result.text
    assert "--- stderr ---\nerr\n" in result.text


async def test_exec_runs_in_the_workspace_root(tool_env: ToolEnv):
    result = await tool_env.call("exec", argv=[PY, "-c", "import os; print(os.getcwd())"])
    assert str(tool_env.root) in result.text


async def test_exec_stdin_is_empty(tool_env: ToolEnv):
    result = await tool_env.call(
        "exec", argv=[PY, "-c", "import sys; print(repr(sys.stdin.read()))"]
    )
    assert "''" in result.text


async def test_missing_program(tool_env: ToolEnv):
    result = await tool_env.call("exec", argv=["definitely-not-a-program-xyz"])
    assert not result.ok
    assert "not found" in result.text and "definitely-not-a-program-xyz" in result.text


async def test_not_executable(tool_env: ToolEnv):
    script = tool_env.write("run.sh", "#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    result = await tool_env.call("exec", argv=["./run.sh"])
    assert not result.ok and "not executable" in result.text


async def test_timeout_kills_the_process_group(tool_env: ToolEnv, tmp_path: Path):
    marker = tmp_path / "grandchild-survived"
    # The child starts a grandchild that would write the marker after 1 s.
    code = (
        "import subprocess, sys; "
        f"subprocess.Popen(['sh', '-c', 'sleep 1; touch {marker}']); "
        "print('started', flush=True); "
        "import time; time.sleep(5)"
    )
    started = time.monotonic()
    result = await tool_env.call("exec", argv=[PY, "-c", code], timeout_s=0.5)
    assert time.monotonic() - started < 4
    assert not result.ok
    assert "timed out after 0.5 s" in result.text
    assert "started" in result.text  # output before the kill is kept
    await asyncio.sleep(1.2)
    assert not marker.exists()


async def test_sleep_timeout_is_fast(tool_env: ToolEnv):
    started = time.monotonic()
    result = await tool_env.call("exec", argv=["sleep", "5"], timeout_s=0.2)
    assert time.monotonic() - started < 2
    assert not result.ok and "timed out" in result.text


@pytest.mark.parametrize("mode", [SandboxMode.OFF, SandboxMode.AUTO], ids=["plain", "auto"])
async def test_cancellation_kills_the_process_and_propagates(
    make_tool_env: MakeToolEnv, mode: SandboxMode
):
    env = make_tool_env(exec_config=ExecConfig(sandbox=mode))
    marker = f"cancel-me-{os.getpid()}-{mode.value}"
    code = "import time; time.sleep(30)"
    call = ToolCall("c", "exec", {"argv": [PY, "-c", code, marker]})
    task = asyncio.create_task(dispatch(call, env.tools, env.ctx))
    for _ in range(200):
        if alive_with(marker):
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the command never started")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(40):
        if not alive_with(marker):
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the process survived cancellation")


async def test_long_output_keeps_head_and_tail(tool_env: ToolEnv):
    code = "import sys; sys.stdout.write('H' * 5000 + 'M' * 20000 + 'T' * 5000)"
    result = await tool_env.call("exec", argv=[PY, "-c", code])
    out = result.text.split("--- stdout ---\n", 1)[1].split("\n--- stderr ---", 1)[0]
    head, marker, tail = out.split("\n")
    assert head == "H" * HEAD_CHARS
    assert tail == "T" * TAIL_CHARS
    assert marker == f"…[elided {30000 - HEAD_CHARS - TAIL_CHARS:,} chars of output]…"


async def test_huge_output_is_bounded_in_memory(tool_env: ToolEnv):
    code = "import sys; sys.stdout.write('H' * 100 + 'x' * 5_000_000 + 'END')"
    result = await tool_env.call("exec", argv=[PY, "-c", code])
    assert "elided" in result.text and "bytes of output" in result.text
    assert result.text.count("x") < HEAD_CHARS + TAIL_CHARS + 100
    assert "END" in result.text and result.text.split("--- stdout ---\n")[1].startswith("H" * 100)


async def test_exec_policy_deny_and_unavailable(make_tool_env: MakeToolEnv):
    policy = Policy([Layer("workspace", (Rule(Act.EXEC, Effect.DENY, "rm"),))])
    env = make_tool_env(policy=policy, approver=UnavailableApprover())
    denied = await env.call("exec", argv=["/bin/rm", "-rf", "x"])
    assert not denied.ok
    assert (
        "refused by policy: deny exec `/bin/rm -rf x` (rule `rm`, layer workspace)" in denied.text
    )
    asked = await env.call("exec", argv=["echo", "hi"])
    assert not asked.ok and "approval was not available" in asked.text
    assert asked.policy[0].effect is Effect.ASK and not asked.policy[0].allowed


async def test_exec_target_is_the_joined_command(make_tool_env: MakeToolEnv):
    policy = Policy([Layer("workspace", (Rule(Act.EXEC, Effect.ALLOW, "echo*"),))])
    env = make_tool_env(policy=policy, approver=UnavailableApprover())
    result = await env.call("exec", argv=["echo", "a b"])
    assert result.ok and result.target == "echo 'a b'"


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        pytest.param({"argv": []}, "`argv`", id="empty-argv"),
        pytest.param({"argv": [""]}, "argv[0]", id="empty-program"),
        pytest.param({"argv": "ls -la"}, "`argv`", id="string-not-list"),
        pytest.param({"argv": ["ls", 3]}, "`argv.1`", id="non-string"),
        pytest.param({"argv": ["ls"], "timeout_s": 601}, "`timeout_s`", id="timeout-too-long"),
        pytest.param({"argv": ["ls"], "timeout_s": 0}, "`timeout_s`", id="timeout-zero"),
    ],
)
async def test_exec_bad_arguments(tool_env: ToolEnv, arguments: dict[str, object], fragment: str):
    result = await tool_env.call("exec", **arguments)
    assert not result.ok and "bad arguments" in result.text and fragment in result.text


def test_exec_environment_scrubs_secrets():
    base = {
        "PATH": "/bin",
        "HOME": "/home/u",
        "HARNESS_API_KEY": "k",
        "OPENAI_API_KEY": "k",
        "GITHUB_TOKEN": "t",
        "AWS_SECRET_ACCESS_KEY": "s",
        "MY_SECRET": "s",
        "DB_PASSWORD": "p",
        "TOKENIZERS_PARALLELISM": "false",
        "SSH_AUTH_SOCK": "/run/agent.sock",
    }
    assert exec_environment(base) == {
        "PATH": "/bin",
        "HOME": "/home/u",
        "TOKENIZERS_PARALLELISM": "false",
    }


async def test_exec_uses_the_context_environment(make_tool_env: MakeToolEnv):
    env = make_tool_env(env={"PATH": os.environ.get("PATH", "/usr/bin"), "ONLY_THIS": "1"})
    result = await env.call("exec", argv=[PY, "-c", "import os; print(sorted(os.environ))"])
    assert "ONLY_THIS" in result.text and "HOME" not in result.text


@pytest.mark.parametrize("mode", [SandboxMode.OFF, SandboxMode.AUTO], ids=["plain", "auto"])
async def test_background_leftovers_do_not_hold_the_call(
    make_tool_env: MakeToolEnv, mode: SandboxMode
):
    env = make_tool_env(exec_config=ExecConfig(sandbox=mode))
    started = time.monotonic()
    result = await env.call("exec", argv=["sh", "-c", "echo hi; sleep 30 &"], timeout_s=20)
    assert time.monotonic() - started < 5
    assert result.ok and "exit code: 0" in result.text and "hi" in result.text
    if mode is SandboxMode.OFF:
        # In the sandbox it ends with the sandbox's PID namespace, before it can be seen.
        assert "(it left background processes running: 1 process it started was killed)" in (
            result.text
        )
