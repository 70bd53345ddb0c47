"""Provider configuration: presets, the API key's sources, the environment, make_provider."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.provider import (
    PRESETS,
    PROVIDER_NAMES,
    ProviderConfig,
    RetryPolicy,
    Timeouts,
    config_from_env,
    make_provider,
    resolve_api_key,
)
from harness.provider.scripted import ScriptedProvider

KEY = "sk-test-0123456789abcdef"


def test_every_provider_name_has_a_preset() -> None:
    assert set(PROVIDER_NAMES) == set(PRESETS)
    assert PRESETS["openrouter"].base_url == "https://openrouter.ai/api/v1"
    assert PRESETS["ollama"].base_url == "http://127.0.0.1:11434/v1"
    assert PRESETS["ollama"].key_env is None


@pytest.mark.parametrize(
    ("name", "wire", "url"),
    [
        pytest.param("openai", "openai", "https://api.openai.com/v1", id="openai"),
        pytest.param("anthropic", "anthropic", "https://api.anthropic.com", id="anthropic"),
        pytest.param("openrouter", "openai", "https://openrouter.ai/api/v1", id="openrouter"),
        pytest.param("ollama", "openai", "http://127.0.0.1:11434/v1", id="ollama"),
    ],
)
def test_defaults_and_base_url_override(name: str, wire: str, url: str) -> None:
    config = ProviderConfig(name=name)
    assert config.wire == wire
    assert config.effective_base_url == url
    assert config.effective_model == PRESETS[name].model
    custom = ProviderConfig(name=name, base_url="http://localhost:8000/v1/", model="m")
    assert custom.effective_base_url == "http://localhost:8000/v1"
    assert custom.effective_model == "m"


def test_bad_settings_are_config_errors_naming_them() -> None:
    with pytest.raises(ConfigError, match="unknown provider 'gemini'; choose one of openai"):
        ProviderConfig(name="gemini")
    with pytest.raises(ConfigError, match="must start with http"):
        ProviderConfig(base_url="localhost:8080")
    with pytest.raises(ConfigError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ConfigError, match="timeout read"):
        Timeouts(read=0)


@pytest.mark.parametrize(
    ("name", "environ", "api_key_env", "expected"),
    [
        pytest.param("openai", {"OPENAI_API_KEY": "a"}, None, "a", id="usual-variable"),
        pytest.param(
            "openai", {"HARNESS_API_KEY": "h", "OPENAI_API_KEY": "a"}, None, "h", id="harness-wins"
        ),
        pytest.param("anthropic", {"ANTHROPIC_API_KEY": "c"}, None, "c", id="anthropic"),
        pytest.param("openrouter", {"OPENROUTER_API_KEY": "r"}, None, "r", id="openrouter"),
        pytest.param(
            "openai", {"MY_KEY": "m", "OPENAI_API_KEY": "a"}, "MY_KEY", "m", id="api-key-env"
        ),
        pytest.param("ollama", {}, None, None, id="ollama-needs-none"),
        pytest.param("scripted", {"HARNESS_API_KEY": "h"}, None, None, id="scripted-none"),
        pytest.param(
            "openai", {"HARNESS_API_KEY": " ", "OPENAI_API_KEY": "a"}, None, "a", id="blank-unset"
        ),
    ],
)
def test_resolve_api_key(
    name: str, environ: dict[str, str], api_key_env: str | None, expected: str | None
) -> None:
    config = ProviderConfig(name=name, api_key_env=api_key_env)
    assert resolve_api_key(config, environ) == expected


@pytest.mark.parametrize(
    ("name", "variables"),
    [
        pytest.param("openai", "HARNESS_API_KEY or OPENAI_API_KEY", id="openai"),
        pytest.param("anthropic", "HARNESS_API_KEY or ANTHROPIC_API_KEY", id="anthropic"),
        pytest.param("openrouter", "HARNESS_API_KEY or OPENROUTER_API_KEY", id="openrouter"),
    ],
)
def test_missing_key_for_a_hosted_api_is_a_one_line_config_error(name: str, variables: str) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_api_key(ProviderConfig(name=name), {})
    message = str(caught.value)
    assert variables in message
    assert "\n" not in message


def test_a_custom_base_url_needs_no_key() -> None:
    local = ProviderConfig(name="openai", base_url="http://127.0.0.1:8000/v1")
    assert resolve_api_key(local, {}) is None
    assert resolve_api_key(local, {"OPENAI_API_KEY": "a"}) == "a"  # sent if the user has one
    explicit_default = ProviderConfig(name="openai", base_url="https://api.openai.com/v1/")
    with pytest.raises(ConfigError):
        resolve_api_key(explicit_default, {})


def test_config_from_env_and_explicit_arguments_win() -> None:
    environ = {
        "HARNESS_PROVIDER": "anthropic",
        "HARNESS_MODEL": "claude-x",
        "HARNESS_BASE_URL": "http://127.0.0.1:9/",
    }
    config = config_from_env(environ)
    assert (config.name, config.model, config.effective_base_url) == (
        "anthropic",
        "claude-x",
        "http://127.0.0.1:9",
    )
    flags = config_from_env(environ, name="ollama", model="qwen", base_url="http://h:1/v1")
    assert (flags.name, flags.model, flags.base_url) == ("ollama", "qwen", "http://h:1/v1")
    assert config_from_env({}).name == "openai"
    assert config_from_env({}).model is None


def test_switching_the_name_keeps_defaults_per_preset() -> None:
    openai = ProviderConfig(name="openai")
    anthropic = replace(openai, name="anthropic")
    assert anthropic.effective_model == PRESETS["anthropic"].model
    assert anthropic.effective_base_url == PRESETS["anthropic"].base_url


def test_make_provider_scripted(tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps({"model": "demo", "turns": [{"content": "hi"}]}))
    provider = make_provider(ProviderConfig(name="scripted", script=script))
    assert isinstance(provider, ScriptedProvider)
    assert provider.model == "demo"
    with pytest.raises(ConfigError, match="--script"):
        make_provider(ProviderConfig(name="scripted"))


async def test_make_provider_http_names_and_repr_hide_the_key() -> None:
    for name in ("openai", "anthropic", "openrouter", "ollama"):
        provider = make_provider(ProviderConfig(name=name), KEY)
        try:
            assert provider.name == name
            assert provider.model == PRESETS[name].model
            assert KEY not in repr(provider)
            assert KEY not in repr(vars(provider).get("config"))
        finally:
            await provider.aclose()
