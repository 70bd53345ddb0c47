"""The README's Neovim section, run as a user would: the `vim.pack` snippet verbatim as
init.lua (it installs the plugin from "your clone" — this repository — with vim.pack and
sets up the statusline), then `:help harness`, then :HarnessRun in a toml buffer, checking what the user sees:
the statusline the snippet set, drawn; the reloaded buffer; the end message. The lazy.nvim
spec is checked to be a spec of this plugin whose `opts` setup() takes; the statusline
snippets to be valid Lua."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import FIXED, GOAL, SUMMARY, fix_turns, short
from tests.e2e.nvim.session import PLUGIN, ROOT, make_workspace, needs_nvim, run_lua, session

pytestmark = needs_nvim

READ_ME_INIT = Path(__file__).parent / "nvim" / "readme_init.lua"


def neovim_blocks() -> list[str]:
    """The lua blocks of the README's Neovim section and of docs/neovim.md (the rest of it)."""
    text = (ROOT / "README.md").read_text()
    start = text.index("### Neovim")
    section = text[start : text.index("\n### ", start + 1)]
    section += (ROOT / "docs" / "neovim.md").read_text()
    return re.findall(r"```lua\n(.*?)```", section, re.S)


def block_with(needle: str) -> str:
    found = [b for b in neovim_blocks() if needle in b]
    assert len(found) == 1, f"one README lua block with {needle!r}"
    return found[0]


def test_the_vim_pack_snippet_installs_the_plugin_and_runs_a_task(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse"], check=False).returncode != 0:
        pytest.skip("vim.pack installs from a git repository: this checkout is not one")
    home = tmp_path / "home"
    (home / "src").mkdir(parents=True)
    (home / "src" / "harness-lsp").symlink_to(ROOT)  # "your clone of this repository"
    snippet = tmp_path / "readme.lua"
    snippet.write_text(block_with("vim.pack.add"))
    ws = make_workspace(tmp_path)
    fake = fake_llm(fix_turns(), wire="anthropic")  # the snippet picks the anthropic provider
    env = {
        "HOME": str(home),
        "HARNESS_README_LUA": str(snippet),
        "HARNESS_BASE_URL": fake.url,
        "HARNESS_MODEL": "m",
        "HARNESS_STORE": str(tmp_path / "store.db"),
    }
    with session(tmp_path, ws, {}, env=env, init=READ_ME_INIT) as nvim:
        installed = nvim.lua("return vim.api.nvim_get_runtime_file('lua/harness/init.lua', true)")
        assert installed and str(tmp_path / "xdg" / "data") in installed[0], installed
        nvim.cmd("help harness")  # the help tags came with the install, no :helptags
        assert nvim.lua("return vim.fn.expand('%:t')") == "harness.txt"
        nvim.cmd("close")
        calc = nvim.edit(ws / "calc.py")
        nvim.wait_attached(nvim.edit(ws / "pyproject.toml"))
        nvim.type(f":HarnessRun {GOAL}<CR>")
        end = nvim.wait_message("run 1 finished")
        assert "changed calc.py" in end and SUMMARY[:20] in end, end
        assert nvim.lines(calc) == FIXED.splitlines()

        drawn = nvim.lua("return vim.api.nvim_eval_statusline(vim.o.statusline, {}).str")
        last = nvim.lua("return _G.seen.status")[-2]["params"]  # the last budget
        assert "pyproject.toml" in drawn
        assert f"harness finished step 3/100 · {short(last['spentTokens'])}/400k" in drawn, drawn
        # at 80 columns the item's head (the step, an approval cue) is still drawn
        nvim.cmd("set columns=80")
        drawn = nvim.lua("return vim.api.nvim_eval_statusline(vim.o.statusline, {}).str")
        assert ".toml  harness finished step 3/100" in drawn, drawn


def test_the_lazy_spec_is_this_plugin(tmp_path: Path) -> None:
    spec = block_with("dir = ").strip().rstrip(",")
    proc = run_lua(
        tmp_path,
        f"vim.opt.rtp:prepend({str(PLUGIN)!r})\n"
        f"local spec = assert(loadstring('return ' .. {spec!r}))()\n"
        "assert(spec.dir:match('/editors/nvim$'), spec.dir)\n"
        "assert(spec.main == 'harness' and spec.name == 'harness')\n"
        "require(spec.main).setup(vim.tbl_extend('force', spec.opts, { enable = false }))\n"
        "assert(require('harness.config').options.settings.provider.name == 'anthropic')\n"
        "io.stdout:write('ok')\n",
    )
    assert proc.stdout == "ok", proc.stderr


def test_the_statusline_snippets_are_lua(tmp_path: Path) -> None:
    block = block_with("lualine")
    proc = run_lua(tmp_path, f"assert(loadstring({block!r}))\nio.stdout:write('ok')\n")
    assert proc.stdout == "ok", proc.stderr
