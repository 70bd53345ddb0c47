"""Every byte a program sends, kept: ``python tests/support/lsp_tee.py DIR -- PROGRAM ARGS…``
runs ``PROGRAM`` with its stdin, stdout and stderr relayed through this process, and copies
each stream to ``DIR/stdin.bin``, ``DIR/stdout.bin`` and ``DIR/stderr.bin`` as it passes.

Put in front of the language server (``SERVER_COMMAND``), it lets a test search every
message the server wrote — notifications, requests, responses, logs, progress — as raw
bytes, whatever the test client did or did not decode. ``lsp_messages`` splits a recorded
stdout back into its JSON-RPC messages (``Content-Length`` framing).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

TEE = [sys.executable, str(Path(__file__).resolve())]
_CHUNK = 64 * 1024


def command(record_dir: Path, program: list[str]) -> list[str]:
    """The command line that runs ``program`` with its streams recorded in ``record_dir``."""
    return [*TEE, str(record_dir), "--", *program]


def _relay(source: BinaryIO, sink: BinaryIO, copy: BinaryIO) -> None:
    try:
        while chunk := os.read(source.fileno(), _CHUNK):
            copy.write(chunk)
            copy.flush()
            try:
                sink.write(chunk)
                sink.flush()
            except (BrokenPipeError, ValueError):
                break
    finally:
        with contextlib.suppress(OSError):
            sink.close()


def main(argv: list[str]) -> int:
    record_dir = Path(argv[0])
    program = argv[argv.index("--") + 1 :]
    record_dir.mkdir(parents=True, exist_ok=True)
    child = subprocess.Popen(
        program, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    with (
        open(record_dir / "stdin.bin", "wb") as stdin_copy,
        open(record_dir / "stdout.bin", "wb") as stdout_copy,
        open(record_dir / "stderr.bin", "wb") as stderr_copy,
    ):
        threads = [
            threading.Thread(
                target=_relay, args=(sys.stdin.buffer, child.stdin, stdin_copy), daemon=True
            ),
            threading.Thread(target=_relay, args=(child.stdout, sys.stdout.buffer, stdout_copy)),
            threading.Thread(target=_relay, args=(child.stderr, sys.stderr.buffer, stderr_copy)),
        ]
        for thread in threads:
            thread.start()
        code = child.wait()
        for thread in threads[1:]:  # stdin's relay ends when the client closes it
            thread.join()
    return code


def lsp_messages(raw: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages in a recorded stream, in order; ``ValueError`` on bad framing."""
    messages: list[dict[str, Any]] = []
    rest = raw
    while rest:
        head, sep, rest = rest.partition(b"\r\n\r\n")
        if not sep:
            raise ValueError(f"a header without its end: {head[:80]!r}")
        length = None
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length is None or len(rest) < length:
            raise ValueError(f"bad or short Content-Length in {head!r}")
        messages.append(json.loads(rest[:length]))
        rest = rest[length:]
    return messages


def strings_in(value: Any) -> list[str]:
    """Every string in a decoded JSON value, keys included (a key could be escaped in JSON:
    ``\\u0073k-…`` is ``sk-…``, so the decoded text is searched as well as the raw bytes)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings_in(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
