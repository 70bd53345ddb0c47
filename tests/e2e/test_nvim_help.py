""":help harness: doc/harness.txt takes :helptags without an error, opens on `:help
harness`, and has a tag for every user command the plugin defines and every option."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.e2e.nvim.session import PLUGIN, needs_nvim, run_lua

pytestmark = needs_nvim


def test_helptags_and_help_harness(tmp_path: Path) -> None:
    plugin = tmp_path / "harness"
    shutil.copytree(PLUGIN, plugin)  # :helptags writes doc/tags: not into the repository
    proc = run_lua(
        tmp_path,
        f"vim.opt.rtp:prepend({str(plugin)!r})\n"
        "vim.cmd('runtime plugin/harness.lua')\n"
        f"vim.cmd('helptags ' .. {str(plugin / 'doc')!r})\n"
        "vim.cmd('help harness')\n"
        "local out = { file = vim.fn.expand('%:t'), missing = {} }\n"
        "local tags = {}\n"
        f"for line in io.lines({str(plugin / 'doc' / 'tags')!r}) do\n"
        "  tags[line:match('^(%S+)')] = true\n"
        "end\n"
        "for name in pairs(vim.api.nvim_get_commands({})) do\n"
        "  if name:match('^Harness') and not tags[':' .. name] then\n"
        "    table.insert(out.missing, ':' .. name)\n"
        "  end\n"
        "end\n"
        "for _, tag in ipairs({ 'harness.setup()', 'harness.statusline()', 'harness-options',\n"
        "  'harness-statusline', 'harness-approvals', 'harness-health', 'harness-keymaps' }) do\n"
        "  if not tags[tag] then table.insert(out.missing, tag) end\n"
        "end\n"
        "io.stdout:write(vim.json.encode(out))\n",
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout) == {"file": "harness.txt", "missing": []}
