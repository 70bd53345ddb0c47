"""Running the real ``harness`` command line in a subprocess, for the end-to-end tests."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyte

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    base.pop("HARNESS_PROVIDER", None)
    base.update(extra)
    return base


def harness(
    *args: str | Path,
    timeout: float = 120,
    cwd: Path = ROOT,
    stdin: str | None = None,
    **extra_env: str,
) -> Result:
    """The CLI with its output piped (no terminal); ``stdin`` text, or none at all."""
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env(**extra_env),
        cwd=cwd,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


@dataclass
class Screen:
    """What a CLI run on a pseudo-terminal wrote (stdout and stderr together, as a terminal
    shows them): the raw bytes, the stream without escape sequences (``stream``: every frame
    a spinner drew), and the screen a VT100 emulator (pyte) shows at the end (``lines``)."""

    code: int
    raw: str
    columns: int
    rows: int

    @property
    def stream(self) -> str:
        return _ESCAPES.sub("", self.raw)

    @property
    def lines(self) -> list[str]:
        screen = pyte.Screen(self.columns, self.rows)
        stream = pyte.Stream(screen)
        stream.feed(self.raw.replace("\n", "\r\n").replace("\r\r\n", "\r\n"))
        return [line.rstrip() for line in screen.display if line.strip()]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[=>]")


def on_a_pty(
    argv: Sequence[str],
    environ: Mapping[str, str],
    *,
    timeout: float,
    size: tuple[int, int] | None = None,
    reply: Callable[[bytes], bytes | None] = lambda screen: None,
    cwd: Path = ROOT,
) -> tuple[int, bytes]:
    """Run ``argv`` with stdin, stdout and stderr on a new pseudo-terminal (``size``: its
    window, ``(rows, columns)``, set with TIOCSWINSZ) until it is closed: the exit code and
    every byte written to it. After each read, ``reply(all read so far)`` may return what to
    type next. ``TimeoutError`` past ``timeout`` seconds."""
    master, slave = pty.openpty()
    if size is not None:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *size, 0, 0))
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=environ, cwd=cwd, start_new_session=True
    )
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{argv} on a pty: no end within {timeout} s: {out!r}")
            ready, _, _ = select.select([master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every holder of the terminal closed it
                    break
                if not chunk:
                    break
                out += chunk
            typed = reply(bytes(out))
            if typed:
                os.write(master, typed)
            elif not ready and proc.poll() is not None:
                break
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, bytes(out)


def harness_pty(
    *args: str | Path,
    columns: int = 80,
    rows: int = 200,
    answers: Sequence[tuple[str, str]] = (),
    timeout: float = 60,
    cwd: Path = ROOT,
    **extra_env: str,
) -> Screen:
    """The CLI on a real pseudo-terminal of ``columns`` x ``rows`` (its window size set, no
    ``COLUMNS``): stdin, stdout and stderr are the terminal. ``answers``: ``(prompt text,
    reply)`` pairs; each reply is typed once its prompt text has appeared."""
    environ = env(TERM="xterm-256color", **extra_env)
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        environ.pop(name, None)
    if "NO_COLOR" not in extra_env:
        environ.pop("NO_COLOR", None)
    pending = list(answers)

    def reply(screen: bytes) -> bytes | None:
        if pending and pending[0][0] in _ESCAPES.sub("", screen.decode("utf-8", "replace")):
            return pending.pop(0)[1].encode()
        return None

    argv = [sys.executable, "-m", "harness", *map(str, args)]
    code, out = on_a_pty(argv, environ, timeout=timeout, size=(rows, columns), reply=reply, cwd=cwd)
    return Screen(code, out.decode("utf-8", "replace"), columns, rows)


# For the tests whose runs edit Python files but whose rule is not about diagnostics: with
# the after-edit diagnostics off an editing run starts no jedi-language-server (~2.5 s less
# per run; docs/MEASUREMENTS.md "Diagnostics after edit").
NO_DIAGNOSTICS = '[semantic]\ndiagnosticsAfterEdit = "off"\n'


def user_config(config_home: Path | str, text: str = "") -> Path:
    """The user's ``policy.toml`` under ``config_home`` (an ``XDG_CONFIG_HOME``): ``text``,
    then the after-edit diagnostics off (``NO_DIAGNOSTICS``). Returns its path."""
    path = Path(config_home) / "harness" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + ("\n" if text and not text.endswith("\n") else "") + NO_DIAGNOSTICS)
    return path


def script(path: Path, *turns: Mapping[str, Any]) -> Path:
    """A turns file for ``--provider scripted`` (``--script PATH``)."""
    path.write_text(json.dumps({"turns": list(turns)}))
    return path


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def calls(*made: dict[str, Any], said: str = "") -> dict[str, Any]:
    """A turn: these tool calls (and these words)."""
    return {"tool_calls": list(made), **({"content": said} if said else {})}


def reading(*paths: str, said: str = "") -> dict[str, Any]:
    """A turn that reads each of ``paths`` (and says ``said``)."""
    return calls(*(call("read_file", path=path) for path in paths), said=said)


def run_args(goal: str, url: str, workspace: Path, store: Path, *more: str) -> list[str]:
    return [
        "run",
        goal,
        "--provider",
        "openai",
        "--base-url",
        url,
        "--model",
        "m",
        "-w",
        str(workspace),
        "--store",
        str(store),
        "--json",
        *more,
    ]
