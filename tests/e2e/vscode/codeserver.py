"""Real VS Code for tests: code-server (the VS Code workbench served to a browser) with the
built ``harness.vsix`` installed, driven by Debian's Chromium through Playwright.

Nothing is downloaded here. The prerequisites are installed by ``make test`` (``make
vscode-deps``): Chromium by ``tools/system-deps.sh``, code-server by
``editors/vscode/scripts/install-code-server.sh``, the ``.vsix`` by ``make vsix``. A missing
one fails the test with the command that installs it — never a skip.

``CodeServer`` starts its own session (``start_new_session=True``) and kills the whole
process group at exit: code-server, its extension hosts and the ``harness-lsp`` they spawn.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
VSIX = ROOT / "editors" / "vscode" / "harness.vsix"
CODE_SERVER_VERSION = "4.100.3"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
EXTENSION_ID = "harness-lsp.harness"
START_TIMEOUT_S = 60.0


def default_code_server() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return (
        cache
        / "harness-lsp"
        / f"code-server-{CODE_SERVER_VERSION}"
        / "node_modules"
        / ".bin"
        / "code-server"
    )


@dataclass(frozen=True)
class Prerequisites:
    code_server: Path
    chromium: str
    vsix: Path


def prerequisites() -> Prerequisites:
    """What the VS Code tests need, or a failure naming the command that installs it."""
    code_server = Path(os.environ.get("HARNESS_CODE_SERVER") or default_code_server())
    problems = []
    if not os.access(code_server, os.X_OK):
        problems.append(f"code-server is not at {code_server} (run: make vscode-deps)")
    if shutil.which(CHROMIUM) is None:
        problems.append(f"{CHROMIUM} is missing (run as root: tools/system-deps.sh)")
    if not VSIX.is_file():
        problems.append(f"{VSIX} is missing (run: make vsix)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append("the playwright Python package is missing (run: make setup)")
    if problems:
        pytest.fail("the VS Code stage cannot run: " + "; ".join(problems), pytrace=False)
    return Prerequisites(code_server, CHROMIUM, VSIX)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(home: Path) -> dict[str, str]:
    """The environment of code-server (and so of the server it starts): no API keys, no
    HARNESS_* from the developer's shell, no harness-lsp on PATH, config and data under the
    test's own directory."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("HARNESS_", "VSCODE_"))
    }
    # harness-lsp only where a test says (harness.serverPath), never found on PATH by chance.
    path = [
        d
        for d in env.get("PATH", "").split(os.pathsep)
        if d and not (Path(d) / "harness-lsp").exists()
    ]
    env.update(
        PATH=os.pathsep.join(path),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"),
    )
    return env


class CodeServer:
    """code-server on 127.0.0.1 with the extension installed and ``settings`` as the user's.

    code-server is a remote window: a ``"scope": "machine"`` setting (``harness.serverPath``
    and the others a workspace may not set) is edited in the Settings editor's "Remote" tab,
    which writes ``machine_settings`` (``<user-data>/Machine/settings.json``)."""

    def __init__(
        self,
        prereq: Prerequisites,
        home: Path,
        settings: dict[str, Any],
        machine_settings: dict[str, Any] | None = None,
    ) -> None:
        self.prereq = prereq
        self.home = home
        self.user_data = home / "user-data"
        self.extensions = home / "extensions"
        self.settings_file = self.user_data / "User" / "settings.json"
        self.machine_settings_file = self.user_data / "Machine" / "settings.json"
        self.log_file = home / "code-server.log"
        self.env = clean_env(home)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.write_settings(settings)
        if machine_settings is not None:
            self.machine_settings_file.parent.mkdir(parents=True, exist_ok=True)
            self.machine_settings_file.write_text(json.dumps(machine_settings, indent=2))

    def write_settings(self, settings: dict[str, Any]) -> None:
        self.settings_file.parent.mkdir(parents=True, exist_ok=True)
        self.settings_file.write_text(json.dumps(settings, indent=2))

    def _cli(self, *args: str) -> str:
        done = subprocess.run(
            [str(self.prereq.code_server), *args, "--extensions-dir", str(self.extensions),
             "--user-data-dir", str(self.user_data)],
            env=self.env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if done.returncode != 0:
            pytest.fail(f"code-server {' '.join(args)} failed: {done.stdout}{done.stderr}")
        return done.stdout

    def start(self, folder: Path, *, workspace_trust: bool = False) -> str:
        """Serve ``folder``; ``workspace_trust``: with Workspace Trust on (the folder opens in
        Restricted Mode until trusted), else off (every folder reads as trusted)."""
        self._cli("--install-extension", str(self.prereq.vsix), "--force")
        installed = self._cli("--list-extensions")
        assert EXTENSION_ID in installed.split(), installed
        trust = [] if workspace_trust else ["--disable-workspace-trust"]
        log = self.log_file.open("wb")
        self.proc = subprocess.Popen(
            [str(self.prereq.code_server), "--auth", "none", "--bind-addr", f"127.0.0.1:{self.port}",
             "--disable-telemetry", "--disable-update-check", *trust,
             "--disable-getting-started-override", "--extensions-dir", str(self.extensions),
             "--user-data-dir", str(self.user_data), str(folder)],
            env=self.env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        log.close()
        self._wait_healthy()
        return f"http://127.0.0.1:{self.port}/?folder={folder}"

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        url = f"http://127.0.0.1:{self.port}/healthz"
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                pytest.fail(f"code-server exited ({self.proc.returncode}): {self.log()}")
            try:
                with urllib.request.urlopen(url, timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.1)  # polling a port that is not open yet: nothing to await
        pytest.fail(f"code-server was not healthy after {START_TIMEOUT_S} s: {self.log()}")

    def log(self) -> str:
        try:
            return self.log_file.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        # whatever ignored SIGTERM in the group (an extension host, the server)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def __enter__(self) -> CodeServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
