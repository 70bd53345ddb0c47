"""The bubblewrap sandbox (§6.6), run for real: what a command can write, see and reach,
and what happens when there is no sandbox."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import sandbox
from harness.sandbox.paths import tool_dirs
from harness.types import ExecConfig, SandboxMode
from tests.support.tool_env import ToolEnv, make_tool_env

needs_bwrap = pytest.mark.skipif(
    not sandbox.sandbox_available(),
    reason=f"bubblewrap cannot run here: {sandbox.sandbox_status()}",
)


def test_the_argv_binds_the_workspace_after_a_private_tmp(tmp_path: Path) -> None:
    argv = sandbox.bwrap_argv(["make", "test"], root=tmp_path, network=False)
    assert argv[:9] == [
        "bwrap",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
    ]
    assert argv.index("--bind") > argv.index("--tmpfs")
    for flag in ("--unshare-pid", "--die-with-parent", "--new-session", "--unshare-net"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"  # as root too (issue 20, item 6)
    assert argv[-3:] == ["--", "make", "test"]
    assert "--unshare-net" not in sandbox.bwrap_argv(["x"], root=tmp_path)


def test_tools_under_tmp_are_bound_between_the_private_tmp_and_the_workspace(
    tmp_path: Path,
) -> None:
    venv = Path("/tmp/clone/.venv")
    argv = sandbox.bwrap_argv(["x"], root=tmp_path, visible=[venv], seccomp_fd=7)
    at = argv.index("--ro-bind-try")
    assert argv[at : at + 3] == ["--ro-bind-try", str(venv), str(venv)]
    assert argv.index("--tmpfs") < at < argv.index("--bind")
    assert argv[argv.index("--seccomp") + 1] == "7"


@pytest.mark.parametrize(
    ("program", "path", "expected"),
    [
        pytest.param("python3", "/tmp/c/.venv/bin:/usr/bin", ["/tmp/c/.venv"], id="venv-prefix"),
        pytest.param("/tmp/c/.venv/bin/python3", "/usr/bin", ["/tmp/c/.venv"], id="absolute"),
        pytest.param("x", "/tmp/tools:/tmp/tools/sub", ["/tmp/tools"], id="nested-once"),
        pytest.param("x", "/tmp:/tmp/bin:/tmp/", ["/tmp/bin"], id="never-tmp-itself"),
        pytest.param("x", "/usr/bin:relative/bin:", [], id="outside-tmp-or-relative"),
        pytest.param("./run.sh", None, [], id="workspace-script"),
    ],
)
def test_which_tool_directories_the_private_tmp_gives_back(
    program: str, path: str | None, expected: list[str]
) -> None:
    own = set(tool_dirs("./x", None))  # the harness's own interpreter, when under /tmp
    assert own == ({Path(sys.prefix)} if Path(sys.prefix).is_relative_to("/tmp") else set())
    assert [str(d) for d in tool_dirs(program, path) if d not in own] == expected


@pytest.fixture
def boxed(tmp_path: Path) -> ToolEnv:
    return make_tool_env(tmp_path / "ws", exec_config=ExecConfig(sandbox=SandboxMode.REQUIRED))


@needs_bwrap
async def test_only_the_workspace_is_writable(boxed: ToolEnv) -> None:
    # Not under /tmp: the sandbox's /tmp is private, so a write there "succeeds" unseen.
    sentinel_dir = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="harness-sandbox-"))
    outside = sentinel_dir / "outside.txt"
    script = f"echo in > inside.txt; echo out > {outside} ; echo tmp > /tmp/t && cat /tmp/t"
    result = await boxed.call("exec", argv=["sh", "-c", script])
    assert result.ok, result.text
    assert (boxed.root / "inside.txt").read_text() == "in\n"
    assert not outside.exists() and "Read-only file system" in result.text
    assert "tmp" in result.text.split("--- stdout ---")[1]
    assert "no sandbox" not in result.text
    sentinel_dir.rmdir()


@needs_bwrap
async def test_the_command_sees_only_its_own_processes(boxed: ToolEnv) -> None:
    result = await boxed.call("exec", argv=["sh", "-c", "ls /proc | grep -c '^[0-9]'"])
    count = int(result.text.split("--- stdout ---\n")[1].split("\n")[0])
    assert count <= 4  # bwrap's init, sh, ls, grep: not the harness nor anything else
    pid = await boxed.call("exec", argv=[sys.executable, "-c", "import os; print(os.getppid())"])
    assert pid.text.split("--- stdout ---\n")[1].startswith("1\n")


@needs_bwrap
async def test_network_off_unshares_the_network(tmp_path: Path) -> None:
    if not sandbox.sandbox_available(network=False):
        pytest.skip(sandbox.sandbox_status(network=False))
    env = make_tool_env(
        tmp_path / "ws", exec_config=ExecConfig(sandbox=SandboxMode.REQUIRED, network=False)
    )
    result = await env.call("exec", argv=["sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1"])
    assert result.text.split("--- stdout ---\n")[1].split()[0] == "lo"
    assert "eth" not in result.text.split("--- stdout ---")[1]


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A PATH on which bwrap cannot be found (the real lookup, on an empty directory)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", f"{empty}:{os.path.dirname(sys.executable)}")
    sandbox.forget_probes()
    yield
    sandbox.forget_probes()


async def test_required_refuses_without_a_sandbox(no_bwrap: None, boxed: ToolEnv) -> None:
    assert not sandbox.sandbox_available()
    assert sandbox.sandbox_status() == (
        "commands run without a sandbox: bubblewrap (bwrap) is not installed"
    )
    result = await boxed.call("exec", argv=[sys.executable, "-c", "open('ran', 'w')"])
    assert not result.ok and '[exec] sandbox = "required"' in result.text
    assert "nothing was run" in result.text
    assert not (boxed.root / "ran").exists()


async def test_auto_without_a_sandbox_runs_and_says_so_once_per_run(
    no_bwrap: None, tmp_path: Path
) -> None:
    env = make_tool_env(tmp_path / "ws", env={"PATH": os.environ["PATH"]})
    first = await env.call("exec", argv=[sys.executable, "-c", "print(1)"])
    second = await env.call("exec", argv=[sys.executable, "-c", "print(2)"])
    assert first.ok and second.ok
    assert "note: no sandbox (bubblewrap (bwrap) is not installed)" in first.text
    assert "no sandbox" not in second.text
    env.ctx.run_id = 2
    third = await env.call("exec", argv=[sys.executable, "-c", "print(3)"])
    assert "note: no sandbox" in third.text
