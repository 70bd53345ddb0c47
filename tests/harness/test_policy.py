"""The permission policy: deny-first layers, explain, defaults, loading, the gate and the
approvers (real approver objects; the terminal prompt is an injected function)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.errors import ConfigError
from harness.policy import (
    Gate,
    Layer,
    Policy,
    Rule,
    TerminalApprover,
    UnavailableApprover,
    YesApprover,
    default_approver,
)
from harness.types import Act, Approval, ApprovalRequest, Effect

R, W, X = Act.READ, Act.WRITE, Act.EXEC
ALLOW, ASK, DENY = Effect.ALLOW, Effect.ASK, Effect.DENY


@pytest.mark.parametrize("act", [R, W], ids=["read", "write"])
@pytest.mark.parametrize(
    ("target", "glob"),
    [
        pytest.param(".env", ".env", id="env"),
        pytest.param("config/.env", ".env", id="env-nested"),
        pytest.param(".env.local", ".env.*", id="env-local"),
        pytest.param("x.pem", "*.pem", id="pem"),
        pytest.param("certs/deep/x.pem", "*.pem", id="pem-nested"),
        pytest.param("server.key", "*.key", id="key"),
        pytest.param("id_rsa", "id_rsa", id="id-rsa"),
        pytest.param(".ssh/id_ed25519", "id_ed25519", id="id-ed25519"),
    ],
)
def test_builtin_layer_denies_secrets(act: Act, target: str, glob: str):
    verdict = Policy().explain(act, target)
    assert verdict.effect is DENY
    assert verdict.layer == "builtin"
    assert verdict.rule == Rule(act, DENY, glob)


def test_builtin_layer_cannot_be_replaced_or_lifted():
    allow_all = Layer("builtin", (Rule(R, ALLOW, "*"),))
    workspace = Layer("workspace", (Rule(R, ALLOW, ".env"),))
    policy = Policy([allow_all, workspace])
    assert [layer.name for layer in policy.layers] == ["builtin", "workspace"]
    assert policy.explain(R, ".env").effect is DENY


@pytest.mark.parametrize(
    ("layers", "expected", "layer"),
    [
        pytest.param(
            [
                Layer("user", (Rule(R, ALLOW, "docs/*"),)),
                Layer("workspace", (Rule(R, DENY, "*.md"),)),
            ],
            DENY,
            "workspace",
            id="deny-in-later-layer-beats-allow",
        ),
        pytest.param(
            [Layer("user", (Rule(R, DENY, "*.md"),)), Layer("editor", (Rule(R, ALLOW, "docs/*"),))],
            DENY,
            "user",
            id="deny-in-earlier-layer-beats-allow",
        ),
        pytest.param(
            [
                Layer("user", (Rule(R, ALLOW, "docs/*"),)),
                Layer("workspace", (Rule(R, ASK, "*.md"),)),
            ],
            ASK,
            "workspace",
            id="ask-beats-allow",
        ),
        pytest.param(
            [Layer("user", (Rule(R, ASK, "docs/*"), Rule(R, DENY, "*.md")))],
            DENY,
            "user",
            id="deny-beats-ask-in-one-layer",
        ),
        pytest.param([], ALLOW, "default", id="default"),
    ],
)
def test_deny_first_across_layers(layers: list[Layer], expected: Effect, layer: str):
    verdict = Policy(layers).explain(R, "docs/guide.md")
    assert (verdict.effect, verdict.layer) == (expected, layer)


def test_explain_names_rule_and_layer():
    policy = Policy([Layer("workspace", (Rule(X, ALLOW, "pytest*"),))])
    verdict = policy.explain(X, "pytest -q tests")
    assert verdict.rule == Rule(X, ALLOW, "pytest*")
    assert verdict.layer == "workspace"
    assert "pytest*" in verdict.reason and "workspace" in verdict.reason


@pytest.mark.parametrize(
    ("defaults", "act", "expected"),
    [
        pytest.param(None, R, ALLOW, id="read-allow"),
        pytest.param(None, W, ALLOW, id="write-allow"),
        pytest.param(None, X, ASK, id="exec-ask"),
        pytest.param({X: ALLOW}, X, ALLOW, id="exec-configured"),
        pytest.param({W: ASK}, W, ASK, id="write-configured"),
        pytest.param({W: ASK}, R, ALLOW, id="others-kept"),
    ],
)
def test_defaults(defaults: dict[Act, Effect] | None, act: Act, expected: Effect):
    verdict = Policy(defaults=defaults).explain(act, "src/a.py")
    assert verdict.effect is expected
    assert verdict.rule is None and verdict.layer == "default"


@pytest.mark.parametrize(
    ("glob", "act", "target", "matches"),
    [
        pytest.param("src/*.py", R, "src/a/b.py", True, id="star-crosses-slash"),
        pytest.param("*.py", R, "a/b/c.py", True, id="basename"),
        pytest.param("secrets", R, "a/secrets", True, id="basename-exact"),
        pytest.param("src/*.py", R, "lib/a.py", False, id="no-match"),
        pytest.param("pytest*", X, "pytest -q tests", True, id="exec-command-line"),
        pytest.param("rm", X, "/bin/rm -rf build", True, id="exec-program-basename"),
        pytest.param("git push*", X, "git push origin main", True, id="exec-prefix"),
        pytest.param("git push*", X, "git status", False, id="exec-other"),
        pytest.param("rm", X, "echo rm", False, id="exec-argument-is-not-program"),
        pytest.param("sh", X, "'sh' -c 'echo '\"'\"'x'", True, id="exec-quoted"),
    ],
)
def test_glob_semantics(glob: str, act: Act, target: str, matches: bool):
    policy = Policy([Layer("user", (Rule(act, DENY, glob),))])
    assert (policy.explain(act, target).effect is DENY) is matches


# -- the gate and approvers ------------------------------------------------------------------


class ScriptedPrompt:
    """A terminal user: answers in order, records the questions."""

    def __init__(self, *answers: str | type[BaseException]) -> None:
        self.answers = list(answers)
        self.questions: list[str] = []

    def __call__(self, question: str) -> str:
        self.questions.append(question)
        answer = self.answers.pop(0)
        if isinstance(answer, type):
            raise answer()
        return answer


EXEC_ASK = Policy()  # exec asks by default


@pytest.mark.parametrize(
    ("answer", "allowed", "detail"),
    [
        pytest.param("a", True, "asked: allow", id="allow-once"),
        pytest.param("y", True, "asked: allow", id="yes"),
        pytest.param("r", True, "asked: allow_run", id="allow-run"),
        pytest.param("d", False, "asked: deny", id="deny"),
        pytest.param("", False, "asked: deny", id="default-deny"),
        pytest.param("what?", False, "asked: deny", id="unknown-deny"),
        pytest.param(EOFError, False, "asked: unavailable", id="closed-stdin"),
    ],
)
async def test_terminal_approver_answers(answer: Any, allowed: bool, detail: str):
    prompt = ScriptedPrompt(answer)
    gate = Gate(EXEC_ASK, TerminalApprover(prompt), run_id=3)
    decision = await gate.check(X, "make test")
    assert decision.allowed is allowed
    assert decision.event is not None
    assert (decision.event.effect, decision.event.detail) == (ASK, detail)
    assert decision.event.allowed is allowed
    assert "make test" in prompt.questions[0]
    if not allowed:
        assert "make test" in decision.message


async def test_allow_for_run_is_remembered_for_that_target_only():
    prompt = ScriptedPrompt("r", "d")
    gate = Gate(EXEC_ASK, TerminalApprover(prompt), run_id=1)
    assert (await gate.check(X, "make test")).allowed
    again = await gate.check(X, "make test")
    assert again.allowed and again.event is None  # not asked twice
    assert not (await gate.check(X, "make lint")).allowed
    assert len(prompt.questions) == 2


async def test_allow_once_asks_again():
    prompt = ScriptedPrompt("a", "a")
    gate = Gate(EXEC_ASK, TerminalApprover(prompt), run_id=1)
    await gate.check(X, "ls")
    await gate.check(X, "ls")
    assert len(prompt.questions) == 2


async def test_unavailable_approver_refuses_and_says_why():
    gate = Gate(EXEC_ASK, UnavailableApprover(), run_id=1)
    decision = await gate.check(X, "make")
    assert not decision.allowed
    assert "approval was not available" in decision.message
    assert "--yes" in decision.message and ".harness/policy.toml" in decision.message
    assert decision.event is not None and decision.event.detail == "asked: unavailable"


async def test_yes_approver_allows_and_records_the_ask():
    gate = Gate(EXEC_ASK, YesApprover(), run_id=1)
    decision = await gate.check(X, "make")
    assert decision.allowed
    assert decision.event is not None and decision.event.effect is ASK


async def test_deny_message_names_rule_and_layer():
    gate = Gate(Policy(), YesApprover(), run_id=1)
    decision = await gate.check(W, ".env")
    assert not decision.allowed
    assert decision.message == "refused by policy: deny write `.env` (rule `.env`, layer builtin)"
    event = decision.event
    assert event is not None
    assert (event.rule, event.layer, event.effect, event.allowed) == (
        ".env",
        "builtin",
        DENY,
        False,
    )


async def test_default_deny_message():
    gate = Gate(Policy(defaults={X: DENY}), YesApprover(), run_id=1)
    decision = await gate.check(X, "ls")
    assert decision.message == "refused by policy: deny exec `ls` (the default for exec)"


async def test_plain_allow_records_nothing():
    decision = await Gate(Policy(), UnavailableApprover(), run_id=1).check(R, "src/a.py")
    assert decision.allowed and decision.event is None


async def test_failing_approver_refuses():
    class Broken:
        async def __call__(self, request: ApprovalRequest) -> Approval:
            raise RuntimeError("dialog crashed")

    decision = await Gate(EXEC_ASK, Broken(), run_id=1).check(X, "ls")
    assert not decision.allowed and "not available" in decision.message


async def test_approval_request_carries_run_and_reason():
    seen: list[ApprovalRequest] = []

    class Recording:
        async def __call__(self, request: ApprovalRequest) -> Approval:
            seen.append(request)
            return Approval.DENY

    policy = Policy([Layer("workspace", (Rule(W, ASK, "*.lock"),))])
    decision = await Gate(policy, Recording(), run_id=42).check(W, "poetry.lock")
    assert not decision.allowed and "denied" in decision.message
    assert seen[0].run_id == 42 and seen[0].act is W and seen[0].target == "poetry.lock"
    assert "*.lock" in seen[0].reason and "workspace" in seen[0].reason


async def test_check_nowait_never_asks():
    prompt = ScriptedPrompt()  # any question would fail: no answers
    gate = Gate(EXEC_ASK, TerminalApprover(prompt), run_id=1)
    refused = gate.check_nowait(X, "make")
    assert not refused.allowed and "needs approval" in refused.message
    assert refused.event is not None and not refused.event.allowed
    assert gate.check_nowait(R, "src/a.py").allowed
    assert not gate.check_nowait(R, ".env").allowed
    gate.grant_run(X, "make")
    assert gate.check_nowait(X, "make").allowed
    assert prompt.questions == []


async def test_grant_never_lifts_a_deny():
    gate = Gate(Policy(), YesApprover(), run_id=1)
    gate.grant_run(R, ".env")
    assert not (await gate.check(R, ".env")).allowed
    assert not gate.check_nowait(R, ".env").allowed


@pytest.mark.parametrize(
    ("yes", "interactive", "kind"),
    [
        pytest.param(True, True, YesApprover, id="yes-wins"),
        pytest.param(True, False, YesApprover, id="yes"),
        pytest.param(False, True, TerminalApprover, id="terminal"),
        pytest.param(False, False, UnavailableApprover, id="nobody"),
    ],
)
def test_default_approver(yes: bool, interactive: bool, kind: type):
    assert isinstance(default_approver(yes, interactive), kind)


# -- loading ---------------------------------------------------------------------------------

WORKSPACE_TOML = """
[defaults]
exec = "deny"

[[rules]]
act = "exec"
effect = "allow"
glob = "pytest*"

[[rules]]
act = "write"
effect = "ask"
glob = "*.lock"
"""


def _write_policy(root: Path, text: str) -> Path:
    path = root / ".harness" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_load_layers_and_defaults(tmp_path: Path):
    _write_policy(tmp_path, WORKSPACE_TOML)
    user = tmp_path / "user.toml"
    user.write_text('[[rules]]\nact = "read"\neffect = "deny"\nglob = "private/*"\n')
    editor = {
        "defaults": {"write": "ask"},
        "rules": [{"act": "exec", "effect": "deny", "glob": "rm"}],
    }
    policy = Policy.load(tmp_path, user_config=user, editor=editor)
    assert [layer.name for layer in policy.layers] == ["builtin", "user", "workspace", "editor"]
    assert policy.explain(X, "pytest -q").layer == "workspace"
    assert policy.explain(X, "ls").effect is DENY  # workspace default
    assert policy.explain(W, "a.txt").effect is ASK  # editor default
    assert policy.explain(W, "uv.lock").effect is ASK
    assert policy.explain(R, "private/x").layer == "user"
    assert policy.explain(X, "rm -rf /").layer == "editor"


def test_load_editor_defaults_win(tmp_path: Path):
    _write_policy(tmp_path, '[defaults]\nexec = "deny"\n')
    policy = Policy.load(tmp_path, user_config=None, editor={"defaults": {"exec": "allow"}})
    assert policy.explain(X, "ls").effect is ALLOW


def test_load_without_files(tmp_path: Path):
    policy = Policy.load(tmp_path, user_config=tmp_path / "missing.toml")
    assert policy.explain(X, "ls").effect is ASK
    assert [layer.name for layer in policy.layers] == ["builtin", "user", "workspace"]


def test_load_default_user_config_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = tmp_path / "config" / "harness" / "policy.toml"
    path.parent.mkdir(parents=True)
    path.write_text('[defaults]\nread = "ask"\n')
    root = tmp_path / "ws"
    root.mkdir()
    assert Policy.load(root).explain(R, "a.py").effect is ASK


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        pytest.param("[[rules]\n", ["not valid TOML"], id="syntax"),
        pytest.param(
            '[[rules]]\nact = "exec"\neffect = "maybe"\nglob = "x"\n',
            ["rules.0.effect", "allow"],
            id="bad-effect",
        ),
        pytest.param(
            '[[rules]]\nact = "delete"\neffect = "deny"\nglob = "x"\n',
            ["rules.0.act"],
            id="bad-act",
        ),
        pytest.param('[[rules]]\nact = "read"\neffect = "deny"\n', ["rules.0.glob"], id="no-glob"),
        pytest.param(
            '[[rules]]\nact = "read"\neffect = "deny"\nglob = ""\n',
            ["rules.0.glob"],
            id="empty-glob",
        ),
        pytest.param('[defaults]\nexec = "sometimes"\n', ["defaults.exec"], id="bad-default"),
        pytest.param('[defaults]\nnetwork = "deny"\n', ["defaults.network"], id="unknown-act"),
        pytest.param("rulez = []\n", ["rulez"], id="unknown-key"),
        pytest.param('rules = "deny all"\n', ["rules"], id="rules-not-a-list"),
    ],
)
def test_bad_policy_file(tmp_path: Path, text: str, fragments: list[str]):
    path = _write_policy(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        Policy.load(tmp_path, user_config=None)
    message = str(info.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message


def test_bad_editor_settings_are_named(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"editor settings.*rules\.0\.effect"):
        Policy.load(
            tmp_path,
            user_config=None,
            editor={"rules": [{"act": "read", "effect": "x", "glob": "a"}]},
        )


def test_unreadable_policy_file_is_a_config_error(tmp_path: Path):
    (tmp_path / ".harness" / "policy.toml").mkdir(parents=True)  # a directory, not a file
    with pytest.raises(ConfigError, match="cannot be read"):
        Policy.load(tmp_path, user_config=None)


async def test_terminal_prompt_escapes_control_characters():
    prompt = ScriptedPrompt("d")
    gate = Gate(EXEC_ASK, TerminalApprover(prompt), run_id=1)
    await gate.check(X, "rm -rf /\x1b[2K\rls")
    assert "\x1b" not in prompt.questions[0] and "\r" not in prompt.questions[0]
    assert "\\x1b[2K\\rls" in prompt.questions[0]
