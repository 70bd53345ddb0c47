"""Editor settings: camelCase, validated field by field; a bad value is reported (naming the
field) and replaced by its default while the rest still applies."""

from __future__ import annotations

from typing import Any

import pytest

from server.settings import Settings, parse_settings


def test_no_settings_are_the_defaults() -> None:
    assert parse_settings(None) == (Settings(), [])
    assert parse_settings({}) == (Settings(), [])


def test_good_settings_in_either_shape() -> None:
    raw = {
        "provider": {"name": "openai", "model": "m", "baseUrl": "http://127.0.0.1:9/v1"},
        "storePath": "/tmp/s.db",
        "tokenBudget": 1000,
        "maxSteps": 5,
        "contextBudget": {"maxTokens": 3000, "share": 0.25},
        "policy": {
            "defaults": {"exec": "allow"},
            "rules": [{"act": "read", "effect": "deny", "glob": "*.lock"}],
        },
    }
    for shape in (raw, {"harness": raw}):
        settings, problems = parse_settings(shape)
        assert problems == []
        assert settings.provider.base_url == "http://127.0.0.1:9/v1"
        assert settings.token_budget == 1000 and settings.max_steps == 5
        assert settings.context_budget.max_tokens == 3000 and settings.context_budget.share == 0.25
        assert settings.policy is not None
        assert str(settings.store_file) == "/tmp/s.db"


def test_blank_strings_and_unknown_keys_mean_unset() -> None:
    settings, problems = parse_settings(
        {
            "provider": {"model": "", "baseUrl": "  "},
            "storePath": "",
            "serverPath": "/x",
            "trace": {},
        }
    )
    assert problems == []
    assert settings.provider.model is None and settings.provider.base_url is None
    assert settings.store_file is None


@pytest.mark.parametrize(
    ("raw", "field", "check"),
    [
        pytest.param(
            {"tokenBudget": "lots"}, "`tokenBudget`", lambda s: s.token_budget is None, id="str"
        ),
        pytest.param(
            {"tokenBudget": 0}, "`tokenBudget`", lambda s: s.token_budget is None, id="zero"
        ),
        pytest.param({"maxSteps": 2.5}, "`maxSteps`", lambda s: s.max_steps is None, id="float"),
        pytest.param({"maxSteps": True}, "`maxSteps`", lambda s: s.max_steps is None, id="bool"),
        pytest.param(
            {"contextBudget": {"maxTokens": 9000, "share": 3}},
            "`contextBudget.share`",
            lambda s: s.context_budget.share is None and s.context_budget.max_tokens == 9000,
            id="share",
        ),
        pytest.param(
            {"contextBudget": 7},
            "`contextBudget`",
            lambda s: s.context_budget.max_tokens is None,
            id="cb-int",
        ),
        pytest.param(
            {"provider": "openai"},
            "`provider`",
            lambda s: s.provider.name is None,
            id="provider-str",
        ),
        pytest.param(
            {"provider": {"name": "gpt"}},
            "`provider.name`",
            lambda s: s.provider.name is None,
            id="name",
        ),
        pytest.param(
            {"provider": {"name": "ollama", "baseUrl": "ftp://x"}},
            "`provider`: base URL",
            lambda s: s.provider.base_url is None and s.provider.name is None,
            id="base-url",
        ),
        pytest.param(
            {"storePath": "relative.db"}, "`storePath`", lambda s: s.store_path is None, id="rel"
        ),
        pytest.param(
            {"storePath": 5}, "`storePath`", lambda s: s.store_path is None, id="store-int"
        ),
        pytest.param(
            {"policy": ["allow"]}, "`policy`", lambda s: s.policy is None, id="policy-list"
        ),
        pytest.param(
            {"policy": {"rules": [{"act": "write", "effect": "deny"}]}},
            "rules.0.glob",
            lambda s: s.policy is None,
            id="policy-rule",
        ),
        pytest.param(
            {"policy": {"defaults": {"fly": "allow"}}},
            "defaults.fly",
            lambda s: s.policy is None,
            id="pd",
        ),
    ],
)
def test_a_bad_value_is_reported_and_replaced(raw: dict[str, Any], field: str, check: Any) -> None:
    settings, problems = parse_settings({**raw, "maxSteps": raw.get("maxSteps", 7)})
    assert len(problems) == 1, problems
    assert field in problems[0]
    assert check(settings)
    if "maxSteps" not in raw:
        assert settings.max_steps == 7, "the good values still apply"


def test_settings_that_are_not_an_object() -> None:
    settings, problems = parse_settings(["x"])
    assert settings == Settings()
    assert problems == ["settings must be an object, not list"]


def test_the_provider_config_comes_from_settings_then_the_environment() -> None:
    settings, _ = parse_settings({"provider": {"name": "ollama", "model": "qwen"}})
    config = settings.provider_config(
        {"HARNESS_MODEL": "ignored", "HARNESS_BASE_URL": "http://h:1/v1"}
    )
    assert config.name == "ollama" and config.effective_model == "qwen"
    assert config.effective_base_url == "http://h:1/v1"
    default = Settings().provider_config({"HARNESS_PROVIDER": "anthropic"})
    assert default.name == "anthropic"
