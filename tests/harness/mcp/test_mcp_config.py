"""Where MCP servers come from and what approves them (§15): the user config's tables, the
workspace's files, names, the approval keyed to what runs, and the policy's `mcp` act."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.mcp.approvals import approval_state, approve, approved
from harness.mcp.config import CONNECT_TIMEOUT_S, Source, user_settings, workspace_servers
from harness.mcp.tools import Offered, choose, tool_name
from harness.policy import Policy
from harness.policy.rules import runs_later
from harness.types import Act, Effect

STARTUP = "`startup_timeout_s` must be a number of seconds above 0 and at most 600"


def test_user_servers_expand_variables_from_the_users_environment(tmp_path: Path) -> None:
    config = tmp_path / "policy.toml"
    config.write_text(
        "[mcp]\nschema_chars = 500\ncall_timeout_s = 5\n"
        '[mcp.servers.t]\ncommand = "${HOME}/bin/t"\nargs = ["--x", "${NOPE}"]\n'
        '[mcp.servers.web]\nurl = "https://h/mcp"\nheaders = { A = "Bearer ${TOK}" }\n'
    )
    settings = user_settings(config, {"HOME": "/home/u", "TOK": "abc"})
    t, web = settings.servers
    assert (t.command, t.args, t.source) == ("/home/u/bin/t", ("--x", ""), Source.USER)
    assert web.url == "https://h/mcp" and web.headers == {"A": "Bearer abc"}
    assert (settings.schema_chars, settings.call_timeout_s) == (500, 5.0)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('command = "a"\nurl = "b"', "needs exactly one of"),
        ("args = []", "needs exactly one of"),
        ('command = "a"\nargs = "x"', "`args` must be a list"),
        ('command = "a"\nenv = { A = 1 }', "`env` must be a table of strings"),
        pytest.param('command = "a"\nstartup_timeout_s = 0', STARTUP, id="startup-zero"),
        pytest.param('command = "a"\nstartup_timeout_s = -1', STARTUP, id="startup-negative"),
        pytest.param('command = "a"\nstartup_timeout_s = 601', STARTUP, id="startup-over-max"),
        pytest.param('command = "a"\nstartup_timeout_s = "5"', STARTUP, id="startup-string"),
        pytest.param('command = "a"\nstartup_timeout_s = true', STARTUP, id="startup-bool"),
        pytest.param('command = "a"\nstartup_timeout_s = nan', STARTUP, id="startup-nan"),
        pytest.param('command = "a"\nstartup_timeout_s = inf', STARTUP, id="startup-inf"),
    ],
)
def test_a_bad_server_table_is_a_config_error_naming_it(
    tmp_path: Path, table: str, problem: str
) -> None:
    config = tmp_path / "policy.toml"
    config.write_text(f"[mcp.servers.bad]\n{table}\n")
    with pytest.raises(ConfigError, match=f"MCP server `bad`: {problem}"):
        user_settings(config, {})


def test_startup_timeout_is_per_server_and_defaults_to_ten_seconds(tmp_path: Path) -> None:
    config = tmp_path / "policy.toml"
    config.write_text(
        '[mcp.servers.quick]\ncommand = "q"\nstartup_timeout_s = 0.5\n'
        '[mcp.servers.slow]\ncommand = "s"\nstartup_timeout_s = 600\n'
        '[mcp.servers.plain]\nurl = "https://h/mcp"\n'
    )
    quick, slow, plain = user_settings(config, {}).servers
    assert (quick.startup_timeout_s, slow.startup_timeout_s) == (0.5, 600.0)
    assert plain.startup_timeout_s == CONNECT_TIMEOUT_S == 10.0
    assert quick.fingerprint() == replace(quick, startup_timeout_s=10.0).fingerprint()


def test_a_workspace_file_cannot_set_the_startup_timeout(tmp_path: Path) -> None:
    spec = {"command": "x", "startup_timeout_s": 600}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": spec}}))
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "mcp.json").write_text(
        json.dumps({"servers": {"b": {"command": "y", "startup_timeout_s": "never"}}})
    )
    servers, problems = workspace_servers(tmp_path)
    assert [s.startup_timeout_s for s in servers] == [CONNECT_TIMEOUT_S] * 2 and problems == ()


def test_workspace_files_read_only_what_runs_and_never_expand(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {"a": {"command": "x", "args": ["${HOME}"], "type": "stdio"}},
                "enableAllProjectMcpServers": True,
            }
        )
    )
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "mcp.json").write_text('{"servers": {"b": {"url": 1}}, "inputs": []}')
    servers, problems = workspace_servers(tmp_path)
    (a,) = servers
    assert a.args == ("${HOME}",) and a.source is Source.WORKSPACE
    assert len(problems) == 1 and "`url` must be a string" in problems[0]


def test_a_workspace_file_that_is_not_json_is_a_problem_line(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text("{nope")
    servers, problems = workspace_servers(tmp_path)
    assert servers == () and "not valid JSON" in problems[0]


def test_approval_is_keyed_to_what_runs(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"a": {"command": "x"}}}')
    (server,) = workspace_servers(tmp_path)[0]
    store = tmp_path / "cfg" / "mcp-approvals.json"
    assert not approved(store, tmp_path, server)
    approve(store, tmp_path, server)
    assert approved(store, tmp_path, server)
    (tmp_path / ".mcp.json").write_text(
        '{"mcpServers": {"a": {"command": "x", "env": {"A": "1"}}}}'
    )
    (changed,) = workspace_servers(tmp_path)[0]
    assert not approved(store, tmp_path, changed)
    assert approval_state(store, tmp_path, changed) == "changed since approved"
    assert not approved(store, tmp_path / "other", server)  # another folder: not approved


def test_names_are_sanitised_and_at_most_64() -> None:
    assert tool_name("my server", "do.it!") == "mcp__my_server__do_it_"
    assert len(tool_name("s" * 40, "t" * 40)) == 64


def test_choose_sorts_allows_budgets_and_refuses_collisions() -> None:
    def offered(tool: str) -> Offered:
        return Offered("s", tool, "d", {"type": "object"})

    chosen = choose("s", [offered("b"), offered("a"), offered("c")], None, 40, {})
    assert [n for n, _ in chosen.tools] == ["mcp__s__a", "mcp__s__b"] and chosen.left_out == ["c"]
    allowed = choose("s", [offered("b"), offered("a")], ["b"], 10_000, {})
    assert [n for n, _ in allowed.tools] == ["mcp__s__b"]
    taken = choose("s", [offered("a")], None, 10_000, {"mcp__s__a": "other/a"})
    assert taken.tools == [] and "other/a" in taken.refused[0]


def test_mcp_act_defaults_to_ask_and_a_user_rule_allows_a_server(tmp_path: Path) -> None:
    user = tmp_path / "user.toml"
    user.write_text('[[rules]]\nact = "mcp"\neffect = "allow"\nglob = "time/*"\n')
    policy = Policy.load(tmp_path, user_config=user)
    assert policy.explain(Act.MCP, "time/get_current_time").effect is Effect.ALLOW
    assert policy.explain(Act.MCP, "git/git_commit").effect is Effect.ASK


def test_a_workspace_policy_cannot_hold_mcp_servers(tmp_path: Path) -> None:
    (tmp_path / ".harness").mkdir()
    (tmp_path / ".harness" / "policy.toml").write_text('[mcp.servers.x]\ncommand = "x"\n')
    with pytest.raises(ConfigError, match="read only from the user config"):
        Policy.load(tmp_path, user_config=None)


def test_mcp_json_is_in_the_runs_later_layer() -> None:
    assert runs_later(".mcp.json") == ".mcp.json"
    assert runs_later("web/.MCP.json") == ".mcp.json"
