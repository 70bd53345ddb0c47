"""Model providers (§9): configuration, the key, and ``make_provider``.

    make_provider(config, api_key) -> Provider
    ├── scripted     ScriptedProvider: a JSON file of turns (no network, no key)
    ├── openai       OpenAIProvider: Chat Completions (also openrouter, ollama, vLLM, llama.cpp)
    └── anthropic    AnthropicProvider: the Messages API (``breakpoints``: where its
                     cache_control markers go, §3 rule 7)

The HTTP providers share ``http.HttpProvider`` (client, deadline, streaming, retries, one
``Attempt`` per try); ``failure`` classifies errors, ``retry`` times the retries. Importing
this package does not import httpx: the wire modules load when a provider is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.errors import ConfigError
from harness.provider.config import (
    HARNESS_API_KEY,
    PRESETS,
    PROVIDER_NAMES,
    Preset,
    ProviderConfig,
    ProviderName,
    RetryPolicy,
    Timeouts,
    config_from_env,
    resolve_api_key,
)

if TYPE_CHECKING:  # the value types load with a provider, not with its names
    from harness.types import Provider


def make_provider(config: ProviderConfig, api_key: str | None = None, **options: Any) -> Provider:
    """The provider ``config`` describes. ``options`` reach the HTTP providers' constructor
    (``transport``, ``sleep``, ``rng``) — for tests and benchmarks."""
    if config.wire == "scripted":
        if config.script is None:
            raise ConfigError("the scripted provider needs a script: pass --script FILE")
        from harness.provider.scripted import ScriptedProvider

        if config.model:
            return ScriptedProvider.from_file(config.script, model=config.model)
        return ScriptedProvider.from_file(config.script)
    if config.wire == "anthropic":
        from harness.provider.anthropic import AnthropicProvider

        return AnthropicProvider(config, api_key, **options)
    from harness.provider.openai import OpenAIProvider

    return OpenAIProvider(config, api_key, **options)


__all__ = [
    "HARNESS_API_KEY",
    "PRESETS",
    "PROVIDER_NAMES",
    "Preset",
    "ProviderConfig",
    "ProviderName",
    "RetryPolicy",
    "Timeouts",
    "config_from_env",
    "make_provider",
    "resolve_api_key",
]
