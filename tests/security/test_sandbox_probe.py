"""Issue 20, item 8 (the sandbox part): one slow bwrap probe (over 10 s) turned the sandbox off
for the server's life — the failure was cached for the process, and every later run's
commands ran unsandboxed. A failed or slow probe is tried again for the next run (§6.6).

Two runs in one process, as the server starts them (``open_session``, the scripted model
asking for a command): during the first, the ``bwrap`` found on ``PATH`` is a real program
that fails, or one that hangs past the probe's timeout; before the second, the real one is
back. The second run's command must run sandboxed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import sandbox
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from tests.support.sandbox_check import outside_dir, require_sandbox

FAILING = "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
HANGING = "#!/bin/sh\nexec sleep 60\n"


@pytest.fixture
def fresh_probes() -> Iterator[None]:
    sandbox.forget_probes()
    yield
    sandbox.forget_probes()


def broken_bwrap_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    (fake / "bwrap").write_text(script)
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")


async def one_run(ws: Path, store: Store, outside: Path, user_config: Path) -> str:
    """A run whose model asks for one command writing outside the workspace; its result."""
    argv = ["sh", "-c", f"echo x > {outside}; echo ran"]
    turns = [{"tool_calls": [{"name": "exec", "arguments": {"argv": argv}}]}, {"content": "ok"}]
    session = await open_session(
        build_contract("probe", ws),
        Backend(store=store, provider=ScriptedProvider(turns)),
        RunRequest(approver=YesApprover(), policy=Policy.load(ws, user_config=user_config)),
    )
    result = await session.execute()
    detail = store.step_detail(result.run_id, 1)
    assert detail is not None
    return detail.result


@pytest.mark.parametrize(
    ("script", "timeout_s"),
    [pytest.param(FAILING, None, id="failing"), pytest.param(HANGING, 1.0, id="slow")],
)
async def test_a_failed_probe_is_tried_again_for_the_next_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh_probes: None,
    script: str,
    timeout_s: float | None,
) -> None:
    require_sandbox()
    sandbox.forget_probes()  # the real sandbox works (above); now start afresh
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "user.toml").write_text("")
    store = Store(tmp_path / "h.db")
    with monkeypatch.context() as during_first, outside_dir() as tmp:
        broken_bwrap_first(tmp_path, during_first, script)
        if timeout_s is not None:  # the hanging bwrap is given up on sooner than 10 s
            during_first.setattr(sandbox, "PROBE_TIMEOUT_S", timeout_s)
        first = await one_run(ws, store, tmp / "first.txt", tmp_path / "user.toml")
        assert "note: no sandbox" in first, first  # honest: it ran unsandboxed, and said so
        assert (tmp / "first.txt").exists()
    with outside_dir() as tmp:
        second = await one_run(ws, store, tmp / "second.txt", tmp_path / "user.toml")
        assert "no sandbox" not in second, second
        assert "Read-only file system" in second and not (tmp / "second.txt").exists(), second
