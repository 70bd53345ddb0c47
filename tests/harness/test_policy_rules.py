"""The rules of the policy: the built-in secrets layer (case-insensitive, the full list),
deny-first evaluation across layers, explain naming the rule and layer, defaults, and glob
semantics (case-sensitive outside the builtin layer)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.policy import SECRET_GLOBS, Layer, Policy, Rule, RuleSet
from harness.types import Act, Effect
from harness.workspace import PathGlob
from tests.support.wire_schemas import wire_schemas_dir

R, W, X = Act.READ, Act.WRITE, Act.EXEC
ALLOW, ASK, DENY = Effect.ALLOW, Effect.ASK, Effect.DENY


def test_the_secrets_list_is_the_spec_list():
    """Read from SPEC.md itself (the "Built-in secrets layer" item), not a copy of it."""
    spec = (wire_schemas_dir().parent / "SPEC.md").read_text(encoding="utf-8")
    item = spec[spec.index("**Built-in secrets layer**") :]
    listed = item[item.index("):") : item.index(".\n")]
    assert tuple(re.findall(r"`([^`]+)`", listed)) == SECRET_GLOBS
    assert len(SECRET_GLOBS) == 15


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
        pytest.param("store.p12", "*.p12", id="p12"),
        pytest.param("a/b.pfx", "*.pfx", id="pfx"),
        pytest.param("id_dsa", "id_dsa", id="id-dsa"),
        pytest.param("home/.ssh/id_ecdsa", "id_ecdsa", id="id-ecdsa"),
        pytest.param(".netrc", ".netrc", id="netrc"),
        pytest.param("web/.npmrc", ".npmrc", id="npmrc"),
        pytest.param(".pypirc", ".pypirc", id="pypirc"),
        pytest.param(".pgpass", ".pgpass", id="pgpass"),
        pytest.param(".git-credentials", ".git-credentials", id="git-credentials"),
    ],
)
def test_builtin_layer_denies_secrets(act: Act, target: str, glob: str):
    verdict = Policy().explain(act, target)
    assert verdict.effect is DENY
    assert verdict.layer == "builtin"
    assert verdict.rule == Rule(act, DENY, glob)


@pytest.mark.parametrize("act", [R, W], ids=["read", "write"])
@pytest.mark.parametrize(
    ("target", "glob"),
    [
        pytest.param(".ENV", ".env", id="ENV"),
        pytest.param("ID_RSA", "id_rsa", id="ID_RSA"),
        pytest.param("cert.PEM", "*.pem", id="cert.PEM"),
        pytest.param("sub/.Netrc", ".netrc", id="sub/.Netrc"),
        pytest.param(".Env.Production", ".env.*", id="Env.Production"),
        pytest.param("Keys/Server.KEY", "*.key", id="Server.KEY"),
    ],
)
def test_builtin_layer_ignores_case(act: Act, target: str, glob: str):
    verdict = Policy().explain(act, target)
    assert (verdict.effect, verdict.layer, verdict.rule) == (DENY, "builtin", Rule(act, DENY, glob))


@pytest.mark.parametrize(
    "target",
    ["env", "my.env", "README.md", "src/keys.py", "id_rsa.pub", "pem", ".npmrc.txt"],
)
def test_builtin_layer_leaves_other_files_alone(target: str):
    assert Policy().explain(R, target).effect is ALLOW


def test_other_layers_stay_case_sensitive():
    policy = Policy([Layer("user", (Rule(R, DENY, "private/*"),))])
    assert policy.explain(R, "private/a").effect is DENY
    assert policy.explain(R, "PRIVATE/a").effect is ALLOW


def test_builtin_layer_cannot_be_replaced_or_lifted():
    allow_all = Layer("builtin", (Rule(R, ALLOW, "*"),))
    workspace = Layer("workspace", (Rule(R, ALLOW, ".env"), Rule(R, ALLOW, ".ENV")))
    policy = Policy([allow_all, workspace])
    assert [layer.name for layer in policy.layers] == ["builtin", "workspace"]
    assert policy.explain(R, ".env").effect is DENY
    assert policy.explain(R, ".ENV").effect is DENY


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
        pytest.param(
            [Layer("user", (Rule(R, DENY, "*.md"),)), Layer("editor", (Rule(R, DENY, "docs/*"),))],
            DENY,
            "user",
            id="first-layer-named-when-two-deny",
        ),
        pytest.param([], ALLOW, "default", id="default"),
    ],
)
def test_deny_first_across_layers(layers: list[Layer], expected: Effect, layer: str):
    verdict = Policy(layers).explain(R, "docs/guide.md")
    assert (verdict.effect, verdict.layer) == (expected, layer)


def test_a_secret_is_named_by_the_builtin_layer_even_when_another_denies_it():
    policy = Policy([Layer("user", (Rule(R, DENY, "*"),))])
    verdict = policy.explain(R, "deploy.KEY")
    assert (verdict.layer, verdict.rule) == ("builtin", Rule(R, DENY, "*.key"))


def test_explain_names_rule_and_layer():
    policy = Policy([Layer("workspace", (Rule(X, ALLOW, "pytest*"),))])
    verdict = policy.explain(X, "pytest -q tests")
    assert verdict.rule == Rule(X, ALLOW, "pytest*")
    assert verdict.layer == "workspace"
    assert verdict.reason == "rule `pytest*` in layer workspace"


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
    assert verdict.reason == f"the default for {act.value}"


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
        pytest.param("rm", X, "'unbalanced", False, id="exec-unparsable"),
        pytest.param("[ab].py", R, "b.py", True, id="char-class"),
    ],
)
def test_glob_semantics(glob: str, act: Act, target: str, matches: bool):
    policy = Policy([Layer("user", (Rule(act, DENY, glob),))])
    assert (policy.explain(act, target).effect is DENY) is matches


GLOB_CHARS = st.sampled_from(["a", "b", ".", "/", "*", "?", "[a]", "[!b]", "A"])
SUBJECT_CHARS = st.sampled_from(["a", "b", ".", "/", "A", "c"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    globs=st.lists(st.lists(GLOB_CHARS, min_size=1, max_size=5).map("".join), max_size=6),
    subjects=st.lists(st.lists(SUBJECT_CHARS, min_size=1, max_size=8).map("".join), max_size=8),
    ignore_case=st.booleans(),
)
def test_the_one_regex_fast_path_agrees_with_each_glob(
    globs: list[str], subjects: list[str], ignore_case: bool
):
    """Merging globs into one regex per (act, effect) never changes what matches."""
    rules = RuleSet([Layer("user", tuple(Rule(R, DENY, g) for g in globs), ignore_case)])
    for subject in subjects:
        key = subject.casefold() if ignore_case else subject
        each = [PathGlob(g.casefold() if ignore_case else g) for g in globs]
        expected = any(glob.matches(key) for glob in each)
        assert (rules.explain(R, subject).effect is DENY) is expected, (globs, subject)
