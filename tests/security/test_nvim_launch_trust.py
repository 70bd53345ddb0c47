"""Issue 20 item 1 (critical): Neovim must not run the repository's own server.

A repository that commits an executable ``.venv/bin/harness-lsp`` (or a dependency folder
holding a ``.harness/`` directory and its own ``.venv``) got it run, as the user, with
``ANTHROPIC_API_KEY`` in its environment, the moment the user opened its README with the
documented setup. Here the committed "server" writes its environment to a sentinel file
outside the repository and then starts the real server (so a trusted one really serves).

SPEC §10: a program inside the workspace runs only in a folder the user trusts —
``vim.secure.trust`` of that file (by hash), or the folder in the harness's trusted list;
otherwise PATH's ``harness-lsp`` is used and the user is told why, in one line.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from harness.policy.trust import canonical
from tests.e2e.nvim.session import (
    PLUGIN,
    VENV_BIN,
    Nvim,
    make_workspace,
    needs_nvim,
    run_lua,
    session,
)
from tests.e2e.test_nvim_tui import MESSAGE_ROW, STATUS_ROW, Terminal, quit_nvim, spawn

pytestmark = needs_nvim

KEY = "sk-ant-test-0123456789abcdef0123456789abcdef"


def plant_server(folder: Path, sentinel: Path) -> Path:
    """``folder/.venv/bin/harness-lsp``: records its environment in ``sentinel``, then
    serves (the real server), as a repository's own program would."""
    exe = folder / ".venv" / "bin" / "harness-lsp"
    exe.parent.mkdir(parents=True)
    exe.write_text(f'#!/bin/sh\nenv > "{sentinel}"\nexec "{sys.executable}" -m server "$@"\n')
    exe.chmod(0o755)
    return exe


def repo(tmp: Path) -> tuple[Path, Path, Path]:
    ws = make_workspace(tmp)
    (ws / "README.md").write_text("# calc\n")
    sentinel = tmp / "ran-the-repository-server.env"
    return ws, plant_server(ws, sentinel), sentinel


def ran(sentinel: Path) -> str:
    return sentinel.read_text() if sentinel.exists() else ""


def user_config(tmp: Path) -> Path:
    """The harness user config as the harness reads it ($XDG_CONFIG_HOME/harness)."""
    path = tmp / "xdg" / "config" / "harness" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def open_readme(nvim: Nvim, readme: Path) -> int:
    return nvim.wait_attached(nvim.edit(readme))


def one_line_that_fits(nvim: Nvim, text: str) -> None:
    assert "\n" not in text
    width = nvim.lua("return vim.fn.strdisplaywidth(...)", text)
    assert width < nvim.lua("return vim.o.columns"), text


SETUPS = [
    pytest.param({}, id="setup"),
    pytest.param("enable-only", id="enable-only"),
]


@pytest.mark.parametrize("setup", SETUPS)
def test_the_repository_server_does_not_run_in_an_untrusted_folder(
    tmp_path: Path, setup: dict[str, object] | str
) -> None:
    ws, _, sentinel = repo(tmp_path)
    with session(tmp_path, ws, setup, env={"ANTHROPIC_API_KEY": KEY}) as nvim:
        open_readme(nvim, ws / "README.md")
        assert not sentinel.exists(), f"the repository's harness-lsp ran: {KEY in ran(sentinel)=}"
        told = nvim.wait_message("not trusted")
        assert ".venv/bin/harness-lsp" in told and "$PATH" in told, told
        assert nvim.lua("return vim.v.errmsg") == ""
        one_line_that_fits(nvim, told)


def test_vim_secure_trust_of_the_file_runs_it_until_it_changes(tmp_path: Path) -> None:
    ws, exe, sentinel = repo(tmp_path)
    with session(tmp_path, ws, {"enable": False}) as nvim:  # the user looks at it, trusts it
        nvim.cmd(f"view {exe}")
        nvim.cmd("trust")
    with session(tmp_path, ws, {}) as nvim:
        open_readme(nvim, ws / "README.md")
        nvim.wait("vim.uv.fs_stat(...) ~= nil", str(sentinel), what="the trusted server to run")
        assert not [m for m in nvim.messages() if "not trusted" in m]

    sentinel.unlink()
    exe.write_text(exe.read_text() + "# changed after you trusted it\n")
    with session(tmp_path, ws, {}) as nvim:
        open_readme(nvim, ws / "README.md")
        told = nvim.wait_message("not trusted")
        assert "changed" in told and not sentinel.exists(), told


def test_a_folder_in_the_trusted_list_runs_its_server(tmp_path: Path) -> None:
    ws, _, sentinel = repo(tmp_path)
    user_config(tmp_path).write_text(f"# mine\ntrusted = [\n  '{ws}', # app\n]\n")
    with session(tmp_path, ws, {}) as nvim:
        open_readme(nvim, ws / "README.md")
        nvim.wait("vim.uv.fs_stat(...) ~= nil", str(sentinel), what="the trusted server to run")


def test_harness_trust_switches_to_the_workspace_server(tmp_path: Path) -> None:
    ws, _, sentinel = repo(tmp_path)
    with session(tmp_path, ws, {}) as nvim:
        first = open_readme(nvim, ws / "README.md")
        nvim.wait_message("not trusted")
        assert not sentinel.exists()
        nvim.type(":HarnessTrust<CR>")
        nvim.wait("vim.uv.fs_stat(...) ~= nil", str(sentinel), what="the workspace's server")
        again = nvim.wait(
            "(function(old) local c = vim.lsp.get_clients({ bufnr = 0, name = 'harness' })[1]"
            " return c and c.initialized and c.id ~= old and c.id end)(...)",
            first,
            what="a new client from the workspace's server",
        )
        assert again != first

        sentinel.unlink()  # taken back: $PATH's again, the workspace's never restarts
        nvim.type(":HarnessTrust!<CR>")
        nvim.wait_message("no longer trusted")
        nvim.wait(
            "(function(old) local c = vim.lsp.get_clients({ bufnr = 0, name = 'harness' })[1]"
            " return c and c.initialized and c.id ~= old and c.id end)(...)",
            again,
            what="a new client from $PATH's server",
        )
        assert not sentinel.exists()


@pytest.mark.parametrize("dep", ["node_modules/dep", "vendor/x"])
@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "app-trusted"])
def test_a_dependency_folder_is_not_a_workspace_whose_server_runs(
    tmp_path: Path, dep: str, trusted: bool
) -> None:
    ws = make_workspace(tmp_path)  # the user's repository: no .venv of its own
    folder = ws / dep
    (folder / ".harness").mkdir(parents=True)
    (folder / "README.md").write_text("# a dependency\n")
    sentinel = tmp_path / "ran-the-dependency-server.env"
    plant_server(folder, sentinel)
    if trusted:
        user_config(tmp_path).write_text(f'trusted = ["{ws}"]\n')
    with session(tmp_path, ws, {}, env={"ANTHROPIC_API_KEY": KEY}) as nvim:
        client = open_readme(nvim, folder / "README.md")
        assert nvim.lua("return vim.lsp.get_client_by_id(...).root_dir", client) == str(ws)
        assert not sentinel.exists(), "the dependency's own harness-lsp ran"


def test_the_reason_is_one_line_in_the_real_tui(tmp_path: Path) -> None:
    """In a terminal of 120 columns: the message fits the message row, no "Press ENTER"
    prompt waits for (and would take) the user's next key."""
    ws, _, sentinel = repo(tmp_path)
    child = spawn(tmp_path, ws, {"statusline": True}, ws / "README.md")
    term = Terminal(child)
    try:
        term.wait_for("harness · 0 notes", row=STATUS_ROW)  # served, by $PATH's
        row = term.wait_for("not trusted", row=MESSAGE_ROW)
        assert ".venv/bin/harness-lsp" in row and ":HarnessTrust" in row, row
        assert "Press ENTER" not in term.text() and not sentinel.exists()
    finally:
        quit_nvim(child)


def test_a_path_entry_inside_the_workspace_is_the_workspace_s_program(tmp_path: Path) -> None:
    """`PATH=node_modules/.bin:…` (direnv's PATH_add, a shell hook) finds the repository's
    own `harness-lsp` first: passed over like the .venv's, the next one on $PATH serves."""
    ws = make_workspace(tmp_path)
    (ws / "README.md").write_text("# calc\n")
    sentinel = tmp_path / "ran-node-modules-bin.env"
    bin_dir = ws / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    exe = bin_dir / "harness-lsp"
    exe.write_text(f'#!/bin/sh\nenv > "{sentinel}"\nexec "{sys.executable}" -m server "$@"\n')
    exe.chmod(0o755)
    path = f"node_modules/.bin:{VENV_BIN}:/usr/bin:/bin"
    with session(tmp_path, ws, {}, env={"PATH": path, "ANTHROPIC_API_KEY": KEY}) as nvim:
        open_readme(nvim, ws / "README.md")
        told = nvim.wait_message("not trusted")
        assert "node_modules/.bin/harness-lsp" in told and not sentinel.exists(), told


CONFIGS = [
    pytest.param("trusted = [\"/srv/app\", '~/src/x']\n", id="inline"),
    pytest.param(
        "# mine\ntrusted = [\n  '/a', # the app\n  \"/b\\\\c\",\n]\n",
        id="multi-line-comments-escapes",
    ),
    pytest.param("other = \"trusted = ['/x']\"\ntrusted = []\n", id="quoted-lookalike"),
    pytest.param('trusted = ["/a"]\n[defaults]\nexec = "ask"\n', id="before-a-table"),
    pytest.param('[defaults]\nexec = "ask"\ntrusted = ["/x"]\n', id="not-top-level"),
    pytest.param('trusted = ["relative/path", "/ok"]\n', id="relative-ignored"),
]


@pytest.mark.parametrize("text", CONFIGS)
def test_the_plugin_reads_the_trusted_list_as_the_harness_does(tmp_path: Path, text: str) -> None:
    config = tmp_path / "policy.toml"
    config.write_text(text)
    table = tomllib.loads(text)
    wanted = [
        str(canonical(Path(e)))
        for e in table.get("trusted", [])
        if Path(e).expanduser().is_absolute()
    ]
    proc = run_lua(
        tmp_path,
        f"vim.opt.rtp:prepend({str(PLUGIN)!r})\n"
        f"local got = require('harness.trust').trusted_folders({str(config)!r})\n"
        "io.stdout:write(vim.json.encode(got))\n",
    )
    assert json.loads(proc.stdout or "null") == wanted, proc.stderr
