"""``harness acp`` fed raw bytes on stdin (issue 30, finding 12): a message that is not a
JSON object (a bare number, a batch array, a string) or not JSON at all is answered with a
JSON-RPC error and the agent goes on serving; a line over the limit (64 MiB, the language
server's) is refused without being buffered whole: the agent's peak memory grows by at most
the limit (what a line may be) for a line of 100 MiB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from server.acp.wire import MAX_LINE_BYTES
from tests.e2e.lsp import server_env

INITIALIZE = {"jsonrpc": "2.0", "method": "initialize", "params": {"protocolVersion": 1}}


def agent(tmp_path: Path) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "harness", "acp", "--store", str(tmp_path / "h.db")]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=server_env())


def answer(out: IO[bytes]) -> dict[str, Any]:
    line = out.readline()
    assert line, "the agent ended"
    message: dict[str, Any] = json.loads(line)
    return message


def hello(stdin: IO[bytes], request_id: int) -> None:
    stdin.write(json.dumps({**INITIALIZE, "id": request_id}).encode() + b"\n")
    stdin.flush()


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_message_that_is_not_an_object_is_an_error_answer_and_the_agent_goes_on(
    tmp_path: Path,
) -> None:
    with agent(tmp_path) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        hello(proc.stdin, 1)
        assert "result" in answer(proc.stdout)
        bad = [b"42", b"[" + json.dumps({**INITIALIZE, "id": 2}).encode() + b"]", b'"hi"', b"{no"]
        proc.stdin.write(b"\n".join(bad) + b"\n")
        hello(proc.stdin, 3)
        errors = [answer(proc.stdout) for _ in bad]
        assert [e["error"]["code"] for e in errors] == [-32600, -32600, -32600, -32700]
        assert all(e["id"] is None for e in errors)
        assert "batch" in errors[1]["error"]["message"]
        last = answer(proc.stdout)
        assert last["id"] == 3 and "result" in last  # still serving
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0


def test_a_line_over_the_limit_is_refused_without_being_buffered(tmp_path: Path) -> None:
    size = MAX_LINE_BYTES + 36 * 1024 * 1024  # 100 MiB
    with agent(tmp_path) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        hello(proc.stdin, 1)
        assert "result" in answer(proc.stdout)
        before = peak_kib(proc.pid)
        stdin = proc.stdin

        def flood() -> None:
            block = b'{"jsonrpc":"2.0","id":9,"method":"x","params":"' + b"a" * (1 << 20)
            fd = stdin.fileno()
            for _ in range(size // len(block) + 1):
                os.write(fd, block)
            os.write(fd, b'"}\n')
            hello(stdin, 2)

        writer = threading.Thread(target=flood)
        writer.start()
        refused = answer(proc.stdout)
        after = answer(proc.stdout)
        writer.join()
        grew_mib = (peak_kib(proc.pid) - before) / 1024
        assert refused["id"] is None and refused["error"]["code"] == -32600
        assert "over 67,108,864 bytes" in refused["error"]["message"]
        assert after["id"] == 2 and "result" in after
        print(f"peak memory grew {grew_mib:.1f} MiB for a {size >> 20} MiB line")
        # at most the limit is held (a line up to it is a message), never the whole line
        assert grew_mib < (MAX_LINE_BYTES >> 20) + 16, grew_mib
        stdin.close()
        assert proc.wait(timeout=30) == 0
