""":HarnessTrust in real Neovim: `harness.trust {workspaceFolder, trusted}` records the
workspace in the user config's `trusted` list (SPEC §6.3, §7); :HarnessTrust! removes it.
The result is shown."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.session import make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim


def trusted(config: Path) -> list[Path]:
    if not config.exists():
        return []
    entries = tomllib.loads(config.read_text()).get("trusted", [])
    return [Path(e).expanduser().resolve() for e in entries]


def test_trust_and_revoke(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    config = tmp_path / "xdg" / "config" / "harness" / "policy.toml"  # the user config
    with session(tmp_path, ws, {"settings": settings(fake_llm([]), tmp_path / "s.db")}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.type(":HarnessTrust<CR>")
        assert str(ws) in nvim.wait_message("is trusted")
        assert ws.resolve() in trusted(config)

        nvim.type(":HarnessTrust!<CR>")
        assert str(ws) in nvim.wait_message("is no longer trusted")
        assert ws.resolve() not in trusted(config)
