"""Editor settings: camelCase, validated field by field; a bad value is reported (naming the
field, never echoing the value) and only that field is replaced by its default while the rest
still applies — except where the run goes (``provider``, ``provider.name``,
``provider.baseUrl``): a bad value there refuses runs instead of falling back to the hosted
API (issue 9, seen 8)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.redact import redact
from server.lsp.settings import Settings, parse_settings
from server.lsp.wire.section import pasted_key


def test_no_settings_are_the_defaults() -> None:
    assert parse_settings(None) == (Settings(), [])
    assert parse_settings({}) == (Settings(), [])


def test_good_settings_in_either_shape() -> None:
    raw = {
        "provider": {"name": "openai", "model": "m", "baseUrl": "http://127.0.0.1:9/v1"},
        "storePath": "/tmp/s.db",
        "tokenBudget": 1000,
        "maxSteps": 5,
        "contextBudget": {"maxTokens": 3000, "share": 0.25, "lowWater": 0.4},
        "contextWire": "flat",
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
        assert settings.context_budget.low_water == 0.4 and settings.context_wire == "flat"
        assert settings.refusals == ()
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
            {"contextBudget": {"maxTokens": 0, "share": 0.3}},
            "`contextBudget.maxTokens`",
            lambda s: s.context_budget.max_tokens is None and s.context_budget.share == 0.3,
            id="max-tokens",
        ),
        pytest.param(
            {"contextBudget": {"lowWater": 0, "share": 0.3}},
            "`contextBudget.lowWater`",
            lambda s: s.context_budget.low_water is None and s.context_budget.share == 0.3,
            id="low-water-0",
        ),
        pytest.param(
            {"contextBudget": {"lowWater": 1.5}},
            "`contextBudget.lowWater`",
            lambda s: s.context_budget.low_water is None,
            id="low-water-big",
        ),
        pytest.param(
            {"contextBudget": 7},
            "`contextBudget`",
            lambda s: s.context_budget.max_tokens is None,
            id="cb-int",
        ),
        pytest.param(
            {"contextWire": "xml"}, "`contextWire`", lambda s: s.context_wire is None, id="wire"
        ),
        pytest.param(
            {"provider": {"name": "ollama", "model": 5}},
            "`provider.model`",
            lambda s: s.provider.model is None and s.provider.name == "ollama",
            id="model-int",
        ),
        pytest.param(
            {"provider": {"name": "ollama", "apiKeyEnv": "MY KEY"}},
            "`provider.apiKeyEnv`",
            lambda s: s.provider.api_key_env is None and s.provider.name == "ollama",
            id="key-env-space",
        ),
        pytest.param(
            {"provider": {"name": "ollama", "apiKeyEnv": "A" * 65}},
            "`provider.apiKeyEnv`",
            lambda s: s.provider.api_key_env is None and s.provider.name == "ollama",
            id="key-env-long",
        ),
        pytest.param(
            {"provider": {"name": "ollama", "apiKeyEnv": "9LIVES"}},
            "`provider.apiKeyEnv`",
            lambda s: s.provider.api_key_env is None,
            id="key-env-digit",
        ),
        pytest.param(
            {"storePath": "relative.db"}, "`storePath`", lambda s: s.store_path is None, id="rel"
        ),
        pytest.param(
            {"storePath": 5}, "`storePath`", lambda s: s.store_path is None, id="store-int"
        ),
        pytest.param({"trusted": "yes"}, "`trusted`", lambda s: s.trusted is None, id="trusted"),
        pytest.param(
            {"policy": ["allow"]}, "`policy`", lambda s: s.policy is None, id="policy-list"
        ),
        pytest.param(
            {
                "policy": {
                    "defaults": {"exec": "deny"},
                    "rules": [
                        {"act": "read", "effect": "deny", "glob": "*.lock"},
                        {"act": "write", "effect": "deny"},
                    ],
                }
            },
            "`policy.rules.1`: glob",
            lambda s: (
                s.policy
                == {
                    "defaults": {"exec": "deny"},
                    "rules": [{"act": "read", "effect": "deny", "glob": "*.lock"}],
                }
            ),
            id="policy-rule",
        ),
        pytest.param(
            {"policy": {"defaults": {"fly": "allow", "exec": "deny"}}},
            "`policy.defaults.fly`",
            lambda s: s.policy == {"defaults": {"exec": "deny"}},
            id="policy-default",
        ),
        pytest.param(
            {"policy": {"exec": {"sandbox": "never", "network": False}}},
            "`policy.exec.sandbox`",
            lambda s: s.policy == {"exec": {"network": False}},
            id="policy-sandbox",
        ),
        pytest.param(
            {"policy": {"rules": "deny everything", "defaults": {"write": "ask"}}},
            "`policy.rules`",
            lambda s: s.policy == {"defaults": {"write": "ask"}},
            id="policy-rules-str",
        ),
        pytest.param(
            {"policy": {"trusted": ["/"], "defaults": {"write": "ask"}}},
            "`policy.trusted`",
            lambda s: s.policy == {"defaults": {"write": "ask"}},
            id="policy-trusted",
        ),
    ],
)
def test_a_bad_value_is_reported_and_only_it_replaced(
    raw: dict[str, Any], field: str, check: Any
) -> None:
    settings, problems = parse_settings({**raw, "maxSteps": raw.get("maxSteps", 7)})
    assert len(problems) == 1, problems
    assert field in str(problems[0])
    assert check(settings)
    assert settings.refusals == (), "only where the run goes refuses runs"
    if "maxSteps" not in raw:
        assert settings.max_steps == 7, "the good values still apply"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        pytest.param({"provider": {"name": "ollama", "baseUrl": "ftp://x"}}, "provider.baseUrl"),
        pytest.param({"provider": {"name": "ollama", "baseUrl": "http://"}}, "provider.baseUrl"),
        pytest.param({"provider": {"baseUrl": "http://h:99999/v1"}}, "provider.baseUrl"),
        pytest.param({"provider": {"baseUrl": "http://[::1/v1"}}, "provider.baseUrl"),
        pytest.param({"provider": {"baseUrl": "127.0.0.1:8000/v1"}}, "provider.baseUrl"),
        pytest.param({"provider": {"baseUrl": 8000}}, "provider.baseUrl"),
        pytest.param({"provider": {"name": "olama", "model": "q"}}, "provider.name"),
        pytest.param({"provider": {"name": "scripted"}}, "provider.name"),
        pytest.param({"provider": "ollama"}, "provider"),
    ],
)
def test_a_bad_destination_refuses_runs_instead_of_the_hosted_default(
    raw: dict[str, Any], field: str
) -> None:
    # Seen: a bad baseUrl reset the provider to its default and a run meant for a local
    # server went to a public API.
    settings, problems = parse_settings({**raw, "maxSteps": 7})
    (problem,) = problems
    assert problem.field == field and problem.refuses_runs
    assert settings.refusals == (problem,)
    assert settings.max_steps == 7
    if isinstance(raw["provider"], dict) and raw["provider"].get("name") == "ollama":
        assert settings.provider.name == "ollama", "the rest of the provider is kept"


def test_a_key_pasted_into_api_key_env_is_never_echoed_and_is_redacted() -> None:
    key = "sk-proj-PASTED-4fa2c0de-never-echo"
    settings, problems = parse_settings({"provider": {"apiKeyEnv": key}})
    (problem,) = problems
    assert problem.field == "provider.apiKeyEnv"
    assert key not in str(problem) and key[:10] not in str(problem)
    assert settings.provider.api_key_env is None
    assert redact(f"log line quoting {key}") == "log line quoting [redacted]"
    assert pasted_key({"harness": {"provider": {"apiKeyEnv": "MY_KEY"}}}) is None


def test_a_variable_name_is_accepted() -> None:
    settings, problems = parse_settings({"provider": {"apiKeyEnv": "MY_LLM_KEY_2"}})
    assert problems == [] and settings.provider.api_key_env == "MY_LLM_KEY_2"
    assert settings.provider_config({}).key_variables() == ("HARNESS_API_KEY", "MY_LLM_KEY_2")


def test_settings_that_are_not_an_object() -> None:
    settings, problems = parse_settings(["x"])
    assert settings == Settings()
    assert [str(p) for p in problems] == ["`(settings)`: must be an object, not an array"]


def test_the_provider_config_comes_from_settings_then_the_environment() -> None:
    settings, _ = parse_settings({"provider": {"name": "ollama", "model": "qwen"}})
    config = settings.provider_config(
        {"HARNESS_MODEL": "ignored", "HARNESS_BASE_URL": "http://h:1/v1"}
    )
    assert config.name == "ollama" and config.effective_model == "qwen"
    assert config.effective_base_url == "http://h:1/v1"
    default = Settings().provider_config({"HARNESS_PROVIDER": "anthropic"})
    assert default.name == "anthropic"


def test_the_documented_cache_idle_setting_reaches_the_contract() -> None:
    """docs/server.md has long listed ``contextBudget.cacheIdleSeconds``; the settings
    model ignored it (found when the settings table became the declaration's)."""
    settings, problems = parse_settings({"contextBudget": {"cacheIdleSeconds": 120.0}})
    assert problems == []
    assert settings.contract_overrides().context_budget.cache_idle_seconds == 120.0
    _, problems = parse_settings({"contextBudget": {"cacheIdleSeconds": 0}})
    assert [p.field for p in problems] == ["contextBudget.cacheIdleSeconds"]
