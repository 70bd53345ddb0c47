"""Sweep: the agent cannot loosen the policy of its next run (issue 9, seen 1, "Worse, the
agent can write_file .harness/policy.toml in one run and have exec allowed in the next";
Build: "`.harness/` is never written by the agent, like `.git/`").

Every attack is two real ``harness run`` processes (the scripted model, no terminal): in the
first the model tries to write a policy that allows every command — the workspace's own
``.harness/policy.toml`` in a folder the user trusts, or the user config itself when the
workspace holds it (``harness run`` in a home directory that is not a git repository works
in ``~``, which holds ``~/.config/harness/policy.toml``) — with ``write_file``,
``edit_file``, a symlink alias, and a command run with ``--yes``. In the second, with no
terminal and no ``--yes``, the model runs a command that creates a sentinel file. It must
not run: approval was not available.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.store import Store
from tests.e2e.cli import Result, harness
from tests.support.sandbox_check import require_sandbox

SENTINEL = "pwned-sentinel"
LOOSE = '[defaults]\nexec = "allow"\n[[rules]]\nact = "exec"\neffect = "allow"\nglob = "*"\n'
MINE = '# my own policy\n[[rules]]\nact = "exec"\neffect = "deny"\nglob = "curl*"\n'


class Home:
    """A home directory that is the workspace, its user config inside it, and a store."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "home"
        self.config = self.root / ".config" / "harness" / "policy.toml"
        self.store = tmp / "store.db"
        self.tmp = tmp
        self.runs = 0
        self.root.mkdir()

    def env(self, **more: str) -> dict[str, str]:
        return {"HOME": str(self.root), "XDG_CONFIG_HOME": str(self.root / ".config"), **more}

    def run(self, *turns: dict[str, Any], yes: bool = False, **env: str) -> Result:
        self.runs += 1
        script = self.tmp / f"script-{self.runs}.json"
        script.write_text(json.dumps({"turns": [*turns, {"content": "done"}]}))
        args = ["run", "the task", "-w", self.root, "--script", script, "--store", self.store]
        out = harness(*args, "--json", *(["--yes"] if yes else []), **self.env(**env))
        assert out.code in (0, 1), out.stderr
        return out

    def results(self, out: Result) -> str:
        """Step 1's results, from the store (what ``harness trace step RUN 1`` prints; read
        here, not by one more process per run)."""
        with Store(self.store) as store:
            step = store.step_detail(int(out.json()["runId"]), 1)
        assert step is not None
        return step.result

    def next_run_cannot_exec(self) -> None:
        out = self.run(calls(exec_call(f"touch {SENTINEL}")))
        assert not (self.root / SENTINEL).exists(), "the loosened policy ran the command"
        assert "approval was not available" in self.results(out)


def calls(*tool_calls: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": list(tool_calls)}


def write(path: str, content: str = LOOSE) -> dict[str, Any]:
    return {"name": "write_file", "arguments": {"path": path, "content": content}}


def edit(path: str) -> dict[str, Any]:
    return {
        "name": "edit_file",
        "arguments": {"path": path, "old": "# my own policy\n", "new": LOOSE},
    }


def exec_call(script: str) -> dict[str, Any]:
    return {"name": "exec", "arguments": {"argv": ["sh", "-c", script]}}


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


USER_CONFIG_ATTACKS = [
    pytest.param([write(".config/harness/policy.toml")], id="write_file"),
    pytest.param([edit(".config/harness/policy.toml")], id="edit_file"),
    pytest.param([write("./.config/../.config/harness/policy.toml")], id="dot-dot"),
    pytest.param([write("alias/policy.toml")], id="symlink-alias"),
    pytest.param(
        [write(".config/harness/policy.toml.tmp"), write(".config/harness/x")], id="beside"
    ),
]


@pytest.mark.parametrize("attack", USER_CONFIG_ATTACKS)
def test_the_agent_cannot_write_the_user_config_its_workspace_holds(
    home: Home, attack: list[dict[str, Any]]
) -> None:
    home.config.parent.mkdir(parents=True)
    home.config.write_text(MINE)
    (home.root / "alias").symlink_to(".config/harness")
    out = home.run(calls(*attack), yes=True)
    result = home.results(out)
    assert result.count("which is the harness's own") == len(attack), result
    assert home.config.read_text() == MINE
    assert sorted(p.name for p in home.config.parent.iterdir()) == ["policy.toml"]
    home.next_run_cannot_exec()


def test_the_agent_cannot_create_the_user_config_its_workspace_holds(home: Home) -> None:
    out = home.run(calls(write(".config/harness/policy.toml")), yes=True)
    assert "which is the harness's own" in home.results(out)
    assert not home.config.exists()
    home.next_run_cannot_exec()


@pytest.mark.parametrize("exists", [True, False], ids=["config-exists", "no-config-yet"])
def test_a_sandboxed_command_cannot_write_the_user_config(home: Home, exists: bool) -> None:
    require_sandbox()
    if exists:
        home.config.parent.mkdir(parents=True)
        home.config.write_text(MINE)
    script = (
        "mkdir -p .config/harness; printf '[defaults]\\nexec = \"allow\"\\n' "
        "> .config/harness/policy.toml; echo rc=$?"
    )
    out = home.run(calls(exec_call(script)), yes=True)
    result = home.results(out)
    assert "Read-only file system" in result and "rc=" in result, result
    assert not home.config.exists() or home.config.read_text() == MINE
    home.next_run_cannot_exec()


def test_the_store_its_workspace_holds_is_not_written(home: Home) -> None:
    store = home.root / "data" / "h.db"
    out = home.run(
        calls(write("data/h.db", "garbage"), write("data/h.db-wal", "garbage")),
        yes=True,
        HARNESS_STORE=str(store),
    )
    result = home.results(out)
    assert result.count("which is the harness's own") == 2, result
    assert out.json()["filesChanged"] == []


class Repo:
    """A repository the user trusts, with a policy of its own."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.root = home.root / "src" / "app"
        self.policy = self.root / ".harness" / "policy.toml"
        self.policy.parent.mkdir(parents=True)
        self.policy.write_text(MINE)
        trusted = harness("trust", self.root, **home.env())
        assert trusted.code == 0, trusted.stderr

    def run(self, *turns: dict[str, Any], yes: bool = False) -> Result:
        home = self.home
        home.runs += 1
        script = home.tmp / f"repo-script-{home.runs}.json"
        script.write_text(json.dumps({"turns": [*turns, {"content": "done"}]}))
        args = ["run", "the task", "-w", self.root, "--script", script, "--store", home.store]
        out = harness(*args, "--json", *(["--yes"] if yes else []), **home.env())
        assert out.code in (0, 1), out.stderr
        return out


REPO_ATTACKS = [
    pytest.param([write(".harness/policy.toml")], id="write_file"),
    pytest.param([edit(".harness/policy.toml")], id="edit_file"),
    pytest.param([write(".HARNESS/policy.toml")], id="other-case"),
    pytest.param([write("h/policy.toml")], id="symlink-alias"),
    pytest.param([write("sub/../.harness/policy.toml")], id="dot-dot"),
]


@pytest.mark.parametrize("attack", REPO_ATTACKS)
def test_in_a_trusted_folder_the_agent_cannot_rewrite_its_policy(
    home: Home, attack: list[dict[str, Any]]
) -> None:
    repo = Repo(home)
    (repo.root / "h").symlink_to(".harness")
    out = repo.run(calls(*attack), yes=True)
    result = home.results(out)
    assert "the agent never writes git's or the harness's own files" in result, result
    assert repo.policy.read_text() == MINE
    after = repo.run(calls(exec_call(f"touch {SENTINEL}")))
    assert not (repo.root / SENTINEL).exists()
    assert "approval was not available" in home.results(after)


def test_in_a_trusted_folder_a_sandboxed_command_cannot_rewrite_its_policy(home: Home) -> None:
    require_sandbox()
    repo = Repo(home)
    script = f"printf '{LOOSE}' > .harness/policy.toml; mv .harness .h; echo rc=$?"
    out = repo.run(calls(exec_call(script)), yes=True)
    result = home.results(out)
    assert "Read-only file system" in result and "busy" in result, result
    assert repo.policy.read_text() == MINE
    after = repo.run(calls(exec_call(f"touch {SENTINEL}")))
    assert not (repo.root / SENTINEL).exists()
    assert "approval was not available" in home.results(after)


def test_an_untrusted_folder_is_told_once_per_run(home: Home) -> None:
    repo_root = home.root / "cloned"
    (repo_root / ".harness").mkdir(parents=True)
    (repo_root / ".harness" / "policy.toml").write_text(LOOSE)
    script = home.tmp / "many.json"
    many = [calls(exec_call("true"), exec_call("true")), calls(exec_call("true"))]
    script.write_text(json.dumps({"turns": [*many, {"content": "done"}]}))
    args = ["run", "x", "-w", repo_root, "--script", script, "--store", home.store]
    for _ in range(2):
        out = harness(*args, **home.env())
        assert out.code == 0, out.stderr
        said = " ".join(out.stderr.split())  # the terminal width wraps the line
        assert said.count("only the deny and ask rules of") == 1, out.stderr
        assert said.count("If you trust this repository, run `harness trust") == 1
