"""Attack: another local user reads the store's password from the process list (issue 30,
finding 6; §12). ``/proc/PID/cmdline`` is world-readable, and Python cannot scrub its own
argv, so a ``--store`` holding a password is refused with the way to give it instead, and
``harness acp`` hands its store to its re-exec through the environment, never its argv.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.lsp import server_env

PLANTED = "pw-7c2e9a4b1d6f3e8a"

PASSWORD_FORMS = [
    pytest.param(f"postgresql://ann:{PLANTED}@127.0.0.1:9/harness", id="userinfo"),
    pytest.param(f"postgresql://ann@127.0.0.1:9/harness?password={PLANTED}", id="parameter"),
    pytest.param(f"postgres://127.0.0.1:9/harness?%70assword={PLANTED}", id="encoded-name"),
    pytest.param(
        f"postgresql://ann:@127.0.0.1:9/harness?sslmode=disable&PASSWORD={PLANTED}", id="upper"
    ),
]


@pytest.mark.parametrize("url", PASSWORD_FORMS)
@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["run", "say hi", "--script", "-"], id="run"),
        pytest.param(["memory", "list"], id="memory"),
        pytest.param(["trace", "runs"], id="trace"),
        pytest.param(["acp"], id="acp"),
    ],
)
def test_a_password_on_the_command_line_is_refused_and_never_echoed(
    tmp_path: Path, url: str, command: list[str]
) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "harness", *command, "-w", str(tmp_path), "--store", url]
        if command[0] in ("run", "memory")
        else [sys.executable, "-m", "harness", *command, "--store", url],
        capture_output=True,
        text=True,
        input="",
        env=server_env(),
        timeout=60,
    )
    assert out.returncode == 2, out.stderr
    assert "HARNESS_STORE" in out.stderr and "pgpass" in out.stderr
    assert PLANTED not in out.stdout + out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_harness_acp_hands_its_store_to_the_re_exec_through_the_environment(
    tmp_path: Path,
) -> None:
    store = tmp_path / "private-store-name" / "harness.db"
    store.parent.mkdir()
    argv = [sys.executable, "-m", "harness", "acp", "--store", str(store)]
    with subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=server_env()
    ) as agent:
        assert agent.stdin is not None and agent.stdout is not None
        hello = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": 1},
        }
        agent.stdin.write(json.dumps(hello).encode() + b"\n")
        agent.stdin.flush()
        answer = json.loads(agent.stdout.readline())  # the re-exec'd agent is serving
        cmdline = Path(f"/proc/{agent.pid}/cmdline").read_bytes().split(b"\0")
        environ = Path(f"/proc/{agent.pid}/environ").read_bytes().split(b"\0")
        agent.stdin.close()
        agent.wait(timeout=30)
    assert answer["id"] == 1 and "result" in answer, answer
    assert b"server.acp" in cmdline  # the hand-off happened
    assert not [arg for arg in cmdline if b"private-store-name" in arg], cmdline
    assert b"HARNESS_STORE=" + str(store).encode() in environ
    assert store.exists()  # and the agent used the store it was given
