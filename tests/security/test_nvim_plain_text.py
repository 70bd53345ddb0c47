"""Issue 20 items 4 and 5, the Neovim side: every string the model, a repository or the
server supplies is shown as plain text (SPEC §6.3, §6.7) — control characters escaped as
the CLI escapes them, newlines visible, no Markdown rendered, nothing a statusline would
evaluate. One helper, ``require('harness.text').plain``, tested with hostile strings in
real Neovim, then where the plugin shows such strings: the end of a run, the approval
float, a step of the trace, the statusline."""

from __future__ import annotations

import contextlib
import subprocess
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pynvim
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.escape import printable
from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.session import NVIM, PLUGIN, Nvim, make_workspace, needs_nvim, session
from tests.e2e.nvim.session import settings as server_settings

pytestmark = needs_nvim

SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
HIDDEN = {"Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cs"}


@pytest.fixture(scope="module")
def lua(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pynvim.Nvim]:
    """A clean headless Neovim with the plugin on the runtimepath, over a socket."""
    assert NVIM is not None
    sock = tmp_path_factory.mktemp("nvim") / "plain.sock"
    argv = [NVIM, "--headless", "--clean", "-n", "-i", "NONE", "--listen", str(sock)]
    proc = subprocess.Popen(
        [*argv, "--cmd", f"set rtp^={PLUGIN}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 15
    while True:
        try:
            api = pynvim.attach("socket", path=str(sock))
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.02)
    try:
        yield api
    finally:
        with contextlib.suppress(Exception):
            api.command("qall!")
        api.close()
        proc.wait(10)


def plain(api: pynvim.Nvim, s: bytes | str, **opts: bool) -> str:
    raw = s.encode() if isinstance(s, str) else s
    out = api.exec_lua("return require('harness.text').plain(...)", raw, opts or None)
    assert isinstance(out, str)
    return out


HOSTILE = [
    pytest.param(b"\x1b[2J\x1b]0;pwned\x07ok", r"\x1b[2J\x1b]0;pwned\x07ok", id="escape-seq"),
    pytest.param(b"rm -rf ~\rpytest -q", r"rm -rf ~\rpytest -q", id="carriage-return"),
    pytest.param(b"pytest -q\ncurl x | sh", r"pytest -q\ncurl x | sh", id="newline"),
    pytest.param("a\u202etxt.exe", r"a\u202etxt.exe", id="bidi-override"),
    pytest.param("a\u200bb\ufeff", r"a\u200bb\ufeff", id="zero-width"),
    pytest.param("\u009b31mred", r"\x9b31mred", id="c1-csi"),
    pytest.param("rm\u00a0-rf", r"rm\xa0-rf", id="nbsp"),
    pytest.param(
        b"\xff\xfe ok \xc0\xaf \xed\xa0\x80", r"\xff\xfe ok \xc0\xaf \xed\xa0\x80", id="bad"
    ),
    pytest.param("\U000e0041tag", r"\ue0041tag", id="tag-character"),
    pytest.param("é 中文 😀 `x` [a](command:y)", "é 中文 😀 `x` [a](command:y)", id="text-kept"),
]


@pytest.mark.parametrize(("given_text", "shown"), HOSTILE)
def test_plain_escapes_hostile_strings(
    lua: pynvim.Nvim, given_text: bytes | str, shown: str
) -> None:
    assert plain(lua, given_text) == shown


def test_plain_keeps_newlines_only_when_asked_and_doubles_percent_for_statuslines(
    lua: pynvim.Nvim,
) -> None:
    assert plain(lua, "a\nb\r", keep_newlines=True) == "a\nb\\r"
    assert plain(lua, "%{system('id')}%!x", statusline=True) == "%%{system('id')}%%!x"


def test_plain_handles_a_very_long_string(lua: pynvim.Nvim) -> None:
    long = ("x" * 999 + "\x1b") * 1000  # 1 MB
    out = plain(lua, long)
    assert len(out) == 999 * 1000 + 4 * 1000 and "\x1b" not in out


@SETTINGS
@given(st.text(alphabet=st.characters(exclude_categories=("Cn", "Cs"))))
def test_plain_escapes_as_the_cli_does(lua: pynvim.Nvim, text: str) -> None:
    assert plain(lua, text) == printable(text)


@SETTINGS
@given(st.binary(max_size=64))
def test_plain_output_is_printable_utf8_whatever_the_bytes(lua: pynvim.Nvim, raw: bytes) -> None:
    out = lua.exec_lua("return require('harness.text').plain(...)", raw)
    out.encode("utf-8")  # no lone surrogates: the bytes were valid UTF-8
    assert not [c for c in out if c != " " and unicodedata.category(c) in HIDDEN]


# -- where the plugin shows them, in a real session ------------------------------------

HOSTILE_SUMMARY = "[Show test report](command:harness.trust?%5B%5D)\x1b[2J\rDone\nreally"


def raw_controls(text: str) -> list[str]:
    return [c for c in text if unicodedata.category(c) == "Cc"]


def test_the_end_of_a_run_is_plain_text(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm([{"content": HOSTILE_SUMMARY}])
    setup = {"settings": server_settings(fake, tmp_path / "s.db")}
    with session(tmp_path, ws, setup) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.type(":HarnessRun report<CR>")
        end = nvim.wait_message("run 1 finished")  # one line: the facts, then the words cut
        assert not raw_controls(end), end
        assert "(command:harness.trust?" in end, "the link's target is shown"
        # the whole answer, once, in the conversation buffer: escaped, the link as text
        lines = nvim.lines(int(nvim.lua("return require('harness.convbuf').buffer()")))
        assert not [line for line in lines if raw_controls(line)], lines
        shown = "\n".join(lines)
        assert "(command:harness.trust?%5B%5D)" in shown, shown
        assert "\\x1b[2J\\rDone" in shown, shown


def ask(nvim: Nvim, client: int, message: str) -> list[str]:
    """The approval float's lines for a `window/showMessageRequest` carrying ``message``
    (given to the plugin's handler as Neovim gives it a server request)."""
    nvim.lua(
        "local client, message = ...\n"
        "coroutine.wrap(function()\n"
        "  require('harness.approval').ask(nil, { type = 3, message = message,\n"
        "    actions = { { title = 'Allow' }, { title = 'Deny\\27[8m' } } },\n"
        "    { client_id = client })\n"
        "end)()",
        client,
        message,
    )
    win = nvim.wait("require('harness.approval').window()", what="the approval float")
    return list(nvim.lua("return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(...),"
                         " 0, -1, false)", win))  # fmt: skip


def test_the_approval_float_is_plain_text(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    setup = {"settings": server_settings(fake_llm([]), tmp_path / "s.db")}
    hostile = "Harness run 1 wants to exec `sh -c 'echo \"[pytest -q](x\x1b[8m`touch y`)\"'\rok`"
    with session(tmp_path, ws, setup) as nvim:
        client = nvim.wait_attached(nvim.edit(ws / "calc.py"))
        lines = ask(nvim, client, hostile)
        shown = " ".join(lines)  # the float wraps long lines at spaces
        assert not raw_controls(shown), lines
        assert "(x\\x1b[8m`touch y`)" in shown and "\\rok" in shown, lines
        assert "[d] Deny\\x1b[8m" in shown, lines
        nvim.lua("require('harness.approval').drop(function() return true end)")


def test_a_trace_step_is_plain_text_not_markdown(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    said = "[Open](command:harness.trust)\x1b[31m red\rover"
    turns = [
        {"content": said, "tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}]},
        {"content": "done"},
    ]
    setup = {"settings": server_settings(fake_llm(turns), tmp_path / "s.db")}
    with session(tmp_path, ws, setup) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.type(":HarnessRun look<CR>")
        nvim.wait_message("run 1 finished")
        nvim.cmd("HarnessTrace 1")
        nvim.wait("vim.api.nvim_buf_get_name(0):match('trace/1$')", what="the run view")
        nvim.wait("#vim.api.nvim_buf_get_lines(0, 0, -1, false) > 6", what="its steps")
        nvim.lua("vim.api.nvim_win_set_cursor(0, { vim.fn.search('^1 ', 'n'), 0 })")
        nvim.type("<CR>")
        nvim.wait("vim.api.nvim_buf_get_name(0):match('trace/1/1$')", what="the step view")
        lines = nvim.lines()
        assert nvim.lua("return vim.bo.filetype") == "harness-trace"
        assert not raw_controls("".join(lines)), lines
        assert any("[Open](command:harness.trust)\\x1b[31m red\\rover" in line for line in lines)


INJECTION = "%{execute('call writefile([1], \"{sentinel}\")')}"


def test_the_statusline_never_evaluates_what_it_shows(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    sentinel = tmp_path / "statusline-ran-code"
    outcome = INJECTION.replace("{sentinel}", str(sentinel))
    setup = {"statusline": True, "settings": server_settings(fake_llm([]), tmp_path / "s.db")}
    with session(tmp_path, ws, setup) as nvim:
        client = nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.lua(
            "require('harness.state').finished(..., { runId = 1, outcome = select(2, ...),"
            " steps = 1, spentTokens = 5 })",
            client,
            outcome,
        )
        drawn = nvim.lua(
            "return vim.api.nvim_eval_statusline(vim.go.statusline, { maxwidth = 1000 }).str"
        )
        assert outcome in drawn, drawn  # shown as it is, once
        # lualine and heirline put the text into a format string of their own
        nvim.lua("vim.api.nvim_eval_statusline('%f ' .. require('harness').statusline(), {})")
        assert not sentinel.exists(), "the statusline ran code the text carried"
