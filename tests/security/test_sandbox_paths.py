"""Issue 20, item 9 (the sandbox part): a clone under ``/tmp`` failed every exec test of
``make test``: the sandbox gives a command a private ``/tmp``, which hid the clone's own
``.venv/bin/python3``. The interpreter and the tools on the command's ``PATH`` stay visible,
read-only, wherever they live (§6.6) — and nothing else of the host's ``/tmp`` appears.

A real virtual environment is made under ``/tmp`` beside the workspace, and a command runs
its ``python3`` found on ``PATH``, then by its absolute path (as the test suite runs
``sys.executable``), then a tool from a plain directory of ``PATH`` under ``/tmp``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.sandbox.paths import tool_dirs
from harness.types import ExecConfig, SandboxMode
from tests.support.sandbox_check import require_sandbox, stream
from tests.support.tool_env import ToolEnv, make_tool_env

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    """A directory directly under ``/tmp`` (whatever pytest's ``--basetemp``)."""
    path = Path(tempfile.mkdtemp(dir="/tmp", prefix="harness-clone-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def venv(under_tmp: Path) -> Path:
    """A real virtual environment under ``/tmp`` (``python -m venv``, no pip)."""
    path = under_tmp / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path


def boxed(root: Path, path: str) -> ToolEnv:
    config = ExecConfig(sandbox=SandboxMode.REQUIRED)
    return make_tool_env(root, exec_config=config, env={"PATH": path})


PREFIX = "import sys; print(sys.prefix)"


async def test_the_venvs_python_on_path_runs_with_its_own_prefix(
    under_tmp: Path, venv: Path
) -> None:
    require_sandbox()
    env = boxed(under_tmp / "ws", f"{venv}/bin:{SYSTEM_PATH}")
    result = await env.call("exec", argv=["python3", "-c", PREFIX])
    assert result.ok and result.exit_code == 0, result.text
    assert stream(result.text).strip() == str(venv), result.text  # not the system's python3


async def test_an_interpreter_named_by_its_absolute_path_runs(under_tmp: Path, venv: Path) -> None:
    require_sandbox()
    env = boxed(under_tmp / "ws", SYSTEM_PATH)
    result = await env.call("exec", argv=[str(venv / "bin" / "python3"), "-c", PREFIX])
    assert result.ok and result.exit_code == 0, result.text
    assert stream(result.text).strip() == str(venv)


async def test_a_tool_in_a_plain_path_directory_under_tmp_runs_read_only(under_tmp: Path) -> None:
    require_sandbox()
    tools = under_tmp / "tools"
    tools.mkdir()
    hello = tools / "hello-tool"
    hello.write_text("#!/bin/sh\necho hello from $0\n")
    hello.chmod(0o755)
    env = boxed(under_tmp / "ws", f"{tools}:{SYSTEM_PATH}")
    result = await env.call("exec", argv=["hello-tool"])
    assert result.ok and result.exit_code == 0, result.text
    assert stream(result.text).strip() == f"hello from {hello}"
    tamper = await env.call("exec", argv=["sh", "-c", f"echo x >> {hello}"])
    assert "Read-only file system" in tamper.text
    assert hello.read_text() == "#!/bin/sh\necho hello from $0\n"


async def test_only_path_directories_appear_and_never_the_hosts_tmp(under_tmp: Path) -> None:
    require_sandbox()
    tools = under_tmp / "tools"
    tools.mkdir()
    secret = under_tmp / "not-on-path.txt"  # beside a PATH directory, not in it
    secret.write_text("host /tmp\n")
    env = boxed(under_tmp / "ws", f"/tmp:/tmp/bin:{tools}:{SYSTEM_PATH}")
    script = f"test -e {secret} && echo SEEN; ls -A /tmp; echo x > /tmp/mine && echo WRITABLE"
    result = await env.call("exec", argv=["sh", "-c", script])
    assert result.ok, result.text
    out = stream(result.text).split()
    assert "SEEN" not in out and "WRITABLE" in out, result.text
    # Only the way to the PATH directory (and to the harness's own interpreter, when the
    # harness itself lives under /tmp: a clone running its tests).
    own = {d.relative_to("/tmp").parts[0] for d in tool_dirs("./x", None)}
    assert set(out) - {"WRITABLE", "mine"} == {under_tmp.name, *own}, result.text
    assert not Path("/tmp/mine").exists() or Path("/tmp/mine").read_text() != "x\n"
