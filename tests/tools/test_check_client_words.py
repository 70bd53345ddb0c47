"""The client-words check (issue 31): no code in editors/ applies a regular expression to a
server message. It reports the ways the clients parsed the server's sentences on ec936ce
(VS Code's ``runEndedMessage`` and ``vscodeWords``, Neovim's ``own_words``), lets plain
searches and regexes over other values pass, and keeps its list of known ones shrinking."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import check_client_words as check

# What the clients did on ec936ce, line for line.
OLD_TS = """\
export function vscodeWords(message: string): Words {
  let text = message.replace(
    /^harness: invalid setting `([\\w.]+)`: (.*?) \\(from [\\w/]+\\)/s,
    (_all, key: string) => key,
  );
  return { text };
}
export function runEndedMessage(message: string) {
  const m = /^harness: run (\\d+) ended [a-z_]+: (.*)$/s.exec(message);
}
const said = vscodeWords(error.replace(/^[a-z_]+: /, ""));
"""
OLD_LUA = """\
local function own_words(message)
  message = message:gsub('ended (%l[%l_]*)', 'x')
  return message
end
local m = notify.own_words(tostring(params.message or ''):gsub('^harness: ', ''))
"""
FINE_TS = """\
const label = camel.split(/(?=[A-Z])/);
const parts = message.split("the setting provider.baseUrl");
// message.replace(/x/, "") in a comment
"""
FINE_LUA = """\
local i = message:find('the setting ', 1, true)
local name = path:gsub('%.lua$', '')
"""


def tree(tmp_path: Path, ts: str, lua: str, known_line: bool = False) -> Path:
    src = tmp_path / "editors" / "vscode" / "src"
    lua_dir = tmp_path / "editors" / "nvim" / "lua" / "harness"
    src.mkdir(parents=True)
    lua_dir.mkdir(parents=True)
    (src / "words.ts").write_text(ts)
    (src / "test").mkdir()
    (src / "test" / "words.test.ts").write_text(OLD_TS)  # tests may quote anything
    (lua_dir / "notify.lua").write_text(lua)
    approval = "local id = (params.message or ''):match('^Harness run (%d+)')\n"
    (lua_dir / "approval.lua").write_text(approval if known_line else "local id = nil\n")
    return tmp_path


def test_the_clients_parsing_of_ec936ce_is_reported(tmp_path: Path) -> None:
    found = list(check.findings(tree(tmp_path, OLD_TS, OLD_LUA)))
    assert [f.split(": ", 1)[0] for f in found] == [
        "editors/vscode/src/words.ts:2",
        "editors/vscode/src/words.ts:11",
        "editors/vscode/src/words.ts:9",
        "editors/nvim/lua/harness/notify.lua:5",
        "editors/nvim/lua/harness/notify.lua:2",
    ]


def test_plain_searches_and_other_values_pass(tmp_path: Path) -> None:
    assert list(check.findings(tree(tmp_path, FINE_TS, FINE_LUA))) == []
    assert check.gone(tmp_path) == []


def test_a_known_one_that_is_gone_must_leave_the_list(tmp_path: Path) -> None:
    root = tree(tmp_path, FINE_TS, FINE_LUA)
    assert check.gone(root) == sorted(check.KNOWN)


def test_the_approvals_run_id_read_from_the_dialog_text_is_reported_now(tmp_path: Path) -> None:
    """The last known one (Neovim's approval reading the run id from showMessageRequest's
    text, on 1b7c3e7) is gone: Neovim answers harness/approve, whose params carry it."""
    assert not check.KNOWN
    found = list(check.findings(tree(tmp_path, FINE_TS, FINE_LUA, known_line=True)))
    assert [f.split(": ", 1)[0] for f in found] == ["editors/nvim/lua/harness/approval.lua:1"]


@pytest.mark.parametrize("root", [check.ROOT], ids=["this tree"])
def test_this_tree_parses_no_server_sentence(root: Path) -> None:
    assert list(check.findings(root)) == []
    assert check.gone(root) == []
