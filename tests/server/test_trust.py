"""The ``trusted`` setting (a client's own workspace-trust verdict) and the arguments of
``harness.trust``: strict types, a bad value reported and replaced by the default."""

from __future__ import annotations

from typing import Any

import pytest

from server.lsp.commands.trust import TrustParams
from server.lsp.errors import InvalidParams
from server.lsp.params import parse_params
from server.lsp.settings import parse_settings


@pytest.mark.parametrize(
    ("raw", "expected", "problems"),
    [
        pytest.param({}, None, [], id="unset"),
        pytest.param({"trusted": True}, True, [], id="true"),
        pytest.param({"harness": {"trusted": False}}, False, [], id="false-in-section"),
        pytest.param({"trusted": "yes"}, None, ["`trusted`"], id="string-replaced"),
        pytest.param({"trusted": 1}, None, ["`trusted`"], id="number-replaced"),
    ],
)
def test_the_trusted_setting(raw: dict[str, Any], expected: bool | None, problems: list[str]):
    settings, found = parse_settings(raw)
    assert settings.trusted is expected
    assert [str(p).split(":")[0] for p in found] == problems


def test_the_editor_policy_is_checked_with_parse_layer():
    settings, problems = parse_settings({"policy": {"exec": {"sandbox": "never"}}})
    assert settings.policy == {"exec": {}}
    (problem,) = problems
    assert str(problem).startswith("`policy.exec.sandbox`: Input should be")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param([{}], "`trusted` is required", id="missing"),
        pytest.param([{"trusted": "true"}], "`trusted`", id="string"),
        pytest.param([{"trusted": True, "workspaceFolder": ""}], "`workspaceFolder`", id="empty"),
    ],
)
def test_trust_params(arguments: list[Any], message: str):
    with pytest.raises(InvalidParams, match=message):
        parse_params(TrustParams, arguments)
    ok = parse_params(TrustParams, [{"trusted": False, "workspaceFolder": "/w"}])
    assert (ok.trusted, ok.workspace_folder) == (False, "/w")
