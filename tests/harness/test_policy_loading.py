"""Loading the policy: the user config, the workspace file and the editor settings under
workspace trust — what an untrusted folder's file may still do, how defaults and the
``[exec]`` table combine (a workspace only tightens), the exact warnings, and bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.policy import LayerConfig, Policy, Rule, parse_layer
from harness.types import Act, Effect, ExecConfig, SandboxMode

R, W, X = Act.READ, Act.WRITE, Act.EXEC
ALLOW, ASK, DENY = Effect.ALLOW, Effect.ASK, Effect.DENY

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

[[rules]]
act = "read"
effect = "deny"
glob = "private/*"
"""


def _write_policy(root: Path, text: str) -> Path:
    path = root / ".harness" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _user(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "user.toml"
    path.write_text(text)
    return path


def test_load_layers_and_defaults_in_a_trusted_folder(ws: Path, tmp_path: Path):
    _write_policy(ws, WORKSPACE_TOML)
    user = _user(
        tmp_path,
        f'trusted = ["{ws}"]\n[[rules]]\nact = "read"\neffect = "deny"\nglob = "secret/*"\n',
    )
    editor = {
        "defaults": {"write": "ask"},
        "rules": [{"act": "exec", "effect": "deny", "glob": "rm"}],
    }
    policy = Policy.load(ws, user_config=user, editor=editor)
    assert [layer.name for layer in policy.layers] == ["builtin", "user", "workspace", "editor"]
    assert policy.explain(X, "pytest -q").layer == "workspace"
    assert policy.explain(X, "ls").effect is DENY  # the workspace default (no user default)
    assert policy.explain(W, "a.txt").effect is ASK  # editor default
    assert policy.explain(W, "uv.lock").effect is ASK
    assert policy.explain(R, "secret/x").layer == "user"
    assert policy.explain(X, "rm -rf /").layer == "editor"
    assert policy.warnings == ()


def test_an_untrusted_folder_keeps_only_deny_and_ask_and_says_so(ws: Path, tmp_path: Path):
    path = _write_policy(ws, WORKSPACE_TOML)
    policy = Policy.load(ws, user_config=tmp_path / "missing.toml")
    (layer,) = [layer for layer in policy.layers if layer.name == "workspace"]
    assert layer.rules == (Rule(W, ASK, "*.lock"), Rule(R, DENY, "private/*"))
    assert policy.explain(X, "pytest -q").effect is ASK  # the allow is ignored
    assert policy.explain(X, "ls").effect is ASK  # so is the workspace default
    assert policy.explain(R, "private/a").effect is DENY
    assert policy.warnings == (
        f"only the deny and ask rules of {path} apply: this folder is not in your trusted "
        'folders. Ignored: allow exec `pytest*`, [defaults] exec = "deny". If you trust this '
        f"repository, run `harness trust {ws}` (or the editor's trust command).",
    )


def test_nothing_ignored_means_no_warning(ws: Path):
    _write_policy(ws, '[[rules]]\nact = "exec"\neffect = "ask"\nglob = "git push*"\n')
    assert Policy.load(ws, user_config=None).warnings == ()
    assert Policy.load(ws, user_config=None).explain(X, "git push").layer == "workspace"


@pytest.mark.parametrize(
    ("listed", "expected"),
    [
        pytest.param("{ws}", True, id="exactly"),
        pytest.param("{ws}/", True, id="trailing-slash"),
        pytest.param("{ws}/../ws", True, id="dotdot"),
        pytest.param("{parent}", True, id="parent-covers-subfolders"),
        pytest.param("{link}", True, id="through-a-symlink"),
        pytest.param("~/ws", True, id="tilde"),
        pytest.param("{ws}/sub", False, id="a-subfolder-does-not-cover-its-parent"),
        pytest.param("{ws}-other", False, id="a-sibling-with-a-common-prefix"),
    ],
)
def test_which_folders_are_trusted(
    tmp_path: Path, ws: Path, listed: str, expected: bool, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "link").symlink_to(ws)
    _write_policy(ws, '[defaults]\nexec = "allow"\n')
    entry = listed.format(ws=ws, parent=tmp_path, link=tmp_path / "link")
    user = _user(tmp_path, f'trusted = ["{entry}"]\n')
    policy = Policy.load(ws, user_config=user)
    assert (policy.explain(X, "ls").effect is ALLOW) is expected
    assert (policy.warnings == ()) is expected


@pytest.mark.parametrize(
    ("listed", "client", "expected"),
    [
        pytest.param(False, True, True, id="client-trusts"),
        pytest.param(True, False, False, id="client-distrusts-a-listed-folder"),
        pytest.param(True, None, True, id="no-verdict-the-list-decides"),
        pytest.param(False, None, False, id="no-verdict-not-listed"),
    ],
)
def test_a_clients_own_trust_verdict_decides(
    tmp_path: Path, ws: Path, listed: bool, client: bool | None, expected: bool
):
    _write_policy(ws, '[[rules]]\nact = "exec"\neffect = "allow"\nglob = "make*"\n')
    user = _user(tmp_path, f'trusted = ["{ws}"]\n' if listed else "")
    policy = Policy.load(ws, user_config=user, client_trusted=client)
    assert (policy.explain(X, "make test").effect is ALLOW) is expected


def test_the_editor_distrusting_says_how_to_trust(tmp_path: Path, ws: Path):
    path = _write_policy(ws, '[defaults]\nexec = "allow"\n')
    (warning,) = Policy.load(ws, user_config=None, client_trusted=False).warnings
    assert warning == (
        f"only the deny and ask rules of {path} apply: the editor does not trust this folder. "
        'Ignored: [defaults] exec = "allow". If you trust this repository, trust it in the '
        "editor."
    )


@pytest.mark.parametrize(
    ("user", "editor", "workspace", "expected"),
    [
        pytest.param(None, None, "allow", ALLOW, id="workspace-replaces-the-builtin-default"),
        pytest.param("deny", None, "allow", DENY, id="never-loosens-the-user-default"),
        pytest.param("ask", None, "allow", ASK, id="never-loosens-ask"),
        pytest.param("allow", None, "ask", ASK, id="may-tighten"),
        pytest.param("ask", None, "deny", DENY, id="may-tighten-to-deny"),
        pytest.param(None, "deny", "allow", DENY, id="never-loosens-the-editor-default"),
        pytest.param("deny", "allow", None, ALLOW, id="editor-over-user"),
        pytest.param("deny", "allow", "ask", ASK, id="editor-then-tightened"),
    ],
)
def test_defaults_across_layers_in_a_trusted_folder(
    tmp_path: Path,
    ws: Path,
    user: str | None,
    editor: str | None,
    workspace: str | None,
    expected: Effect,
):
    if workspace is not None:
        _write_policy(ws, f'[defaults]\nexec = "{workspace}"\n')
    user_text = f'trusted = ["{ws}"]\n' + (f'[defaults]\nexec = "{user}"\n' if user else "")
    settings = {"defaults": {"exec": editor}} if editor else None
    policy = Policy.load(ws, user_config=_user(tmp_path, user_text), editor=settings)
    assert policy.defaults[X] is expected


def test_a_loosening_default_is_reported(tmp_path: Path, ws: Path):
    path = _write_policy(ws, '[defaults]\nexec = "allow"\nread = "ask"\n')
    user = _user(tmp_path, f'trusted = ["{ws}"]\n[defaults]\nexec = "deny"\n')
    policy = Policy.load(ws, user_config=user)
    assert (policy.defaults[X], policy.defaults[R]) == (DENY, ASK)
    assert policy.warnings == (
        f'{path} may only tighten what you set; ignored: [defaults] exec = "allow" (yours is '
        f'"deny"). Set these in your user config ({user}) or the editor settings.',
    )


# -- the [exec] table ------------------------------------------------------------------------


@pytest.mark.parametrize("trusted", [True, False], ids=["trusted", "untrusted"])
@pytest.mark.parametrize(
    ("user", "workspace", "expected", "ignored"),
    [
        pytest.param("", "", ExecConfig(), None, id="defaults"),
        pytest.param('sandbox = "off"', "", ExecConfig(SandboxMode.OFF, True), None, id="user-off"),
        pytest.param(
            "network = false", "", ExecConfig(SandboxMode.AUTO, False), None, id="user-offline"
        ),
        pytest.param(
            "",
            'sandbox = "required"',
            ExecConfig(SandboxMode.REQUIRED, True),
            None,
            id="workspace-requires",
        ),
        pytest.param(
            "", "network = false", ExecConfig(SandboxMode.AUTO, False), None, id="ws-offline"
        ),
        pytest.param(
            'sandbox = "off"',
            'sandbox = "auto"',
            ExecConfig(SandboxMode.AUTO, True),
            None,
            id="ws-tightens-off-to-auto",
        ),
        pytest.param(
            "",
            'sandbox = "off"',
            ExecConfig(),
            '[exec] sandbox = "off"',
            id="ws-cannot-turn-it-off",
        ),
        pytest.param(
            'sandbox = "required"',
            'sandbox = "auto"',
            ExecConfig(SandboxMode.REQUIRED, True),
            '[exec] sandbox = "auto"',
            id="ws-cannot-relax-required",
        ),
        pytest.param(
            "network = false",
            "network = true",
            ExecConfig(SandboxMode.AUTO, False),
            "[exec] network = true",
            id="ws-cannot-reconnect",
        ),
    ],
)
def test_the_exec_table(
    tmp_path: Path,
    ws: Path,
    trusted: bool,
    user: str,
    workspace: str,
    expected: ExecConfig,
    ignored: str | None,
):
    path = _write_policy(ws, f"[exec]\n{workspace}\n")
    user_path = _user(tmp_path, (f'trusted = ["{ws}"]\n' if trusted else "") + f"[exec]\n{user}\n")
    policy = Policy.load(ws, user_config=user_path)
    assert policy.exec_config == expected
    if ignored is None:
        assert policy.warnings == ()
    else:
        assert policy.warnings == (
            f"{path} may only tighten what you set; ignored: {ignored}. Set these in your user "
            f"config ({user_path}) or the editor settings.",
        )


def test_the_editor_may_turn_the_sandbox_off(ws: Path):
    policy = Policy.load(ws, user_config=None, editor={"exec": {"sandbox": "off"}})
    assert policy.exec_config == ExecConfig(SandboxMode.OFF, True)


# -- parse_layer and bad files --------------------------------------------------------------


def test_parse_layer_reads_every_part():
    config = parse_layer(
        {
            "defaults": {"exec": "deny"},
            "rules": [{"act": "read", "effect": "ask", "glob": "*.csv"}],
            "exec": {"sandbox": "required", "network": False},
        },
        "editor settings (policy)",
        name="editor",
    )
    assert config == LayerConfig(
        "editor",
        "editor settings (policy)",
        (Rule(R, ASK, "*.csv"),),
        {X: DENY},
        SandboxMode.REQUIRED,
        False,
    )


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        pytest.param({"exec": {"sandbox": "never"}}, ["exec.sandbox", "'auto'"], id="sandbox"),
        pytest.param({"exec": {"network": "yes"}}, ["exec.network"], id="network-not-bool"),
        pytest.param({"exec": {"shell": True}}, ["exec.shell"], id="exec-unknown"),
        pytest.param({"trusted": ["/"]}, ["`trusted` is read only from the user config"], id="t"),
    ],
)
def test_parse_layer_names_bad_fields(data: dict[str, object], fragments: list[str]):
    with pytest.raises(ConfigError) as info:
        parse_layer(data, "editor settings (policy)")
    message = str(info.value)
    assert message.startswith("editor settings (policy): ")
    for fragment in fragments:
        assert fragment in message


def test_load_without_files(tmp_path: Path, ws: Path):
    policy = Policy.load(ws, user_config=tmp_path / "missing.toml")
    assert policy.explain(X, "ls").effect is ASK
    assert [layer.name for layer in policy.layers] == ["builtin", "user", "workspace"]
    assert policy.exec_config == ExecConfig() and policy.warnings == ()


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
        pytest.param('trusted = ["."]\n', ["`trusted` is read only"], id="workspace-trusts"),
    ],
)
def test_bad_policy_file(ws: Path, text: str, fragments: list[str]):
    path = _write_policy(ws, text)
    with pytest.raises(ConfigError) as info:
        Policy.load(ws, user_config=None)
    message = str(info.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        pytest.param('trusted = "/home"\n', "must be a list of folder paths", id="not-a-list"),
        pytest.param("trusted = [1]\n", "must be a list of folder paths", id="not-strings"),
        pytest.param('trusted = ["src/app"]\n', "'src/app' must be an absolute", id="relative"),
    ],
)
def test_bad_trusted_list(tmp_path: Path, ws: Path, text: str, fragment: str):
    user = _user(tmp_path, text)
    with pytest.raises(ConfigError, match=f"user config {user}.*{fragment}"):
        Policy.load(ws, user_config=user)


def test_bad_editor_settings_are_named(ws: Path):
    with pytest.raises(ConfigError, match=r"editor settings.*rules\.0\.effect"):
        Policy.load(
            ws,
            user_config=None,
            editor={"rules": [{"act": "read", "effect": "x", "glob": "a"}]},
        )


def test_unreadable_policy_file_is_a_config_error(ws: Path):
    (ws / ".harness" / "policy.toml").mkdir(parents=True)  # a directory, not a file
    with pytest.raises(ConfigError, match="cannot be read"):
        Policy.load(ws, user_config=None)
