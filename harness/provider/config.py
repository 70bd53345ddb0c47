"""Provider configuration: which provider, model and URL, timeouts and retries, and where the
API key comes from (§7, §8, §9).

The key itself is never part of a ``ProviderConfig``: the entry point reads it once with
``resolve_api_key`` and hands it to ``make_provider``; it is never logged or stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from harness.errors import ConfigError, MissingKeyError
from harness.redact import register

ProviderName = Literal["openai", "anthropic", "openrouter", "ollama", "scripted"]
PROVIDER_NAMES: tuple[str, ...] = get_args(ProviderName)
Wire = Literal["openai", "anthropic", "scripted"]

HARNESS_API_KEY = "HARNESS_API_KEY"
MAX_ANSWER_BYTES = 4_000_000  # a longer answer, streamed or whole, is malformed (§6.1, §9)


@dataclass(frozen=True)
class Preset:
    """What a provider name means: its wire format, default URL and model, its key variable."""

    wire: Wire
    base_url: str
    model: str
    key_env: str | None  # the provider's usual key variable; None when it needs no key


PRESETS: Mapping[str, Preset] = {
    "openai": Preset("openai", "https://api.openai.com/v1", "gpt-4.1-mini", "OPENAI_API_KEY"),
    "anthropic": Preset(
        "anthropic", "https://api.anthropic.com", "claude-sonnet-4-5", "ANTHROPIC_API_KEY"
    ),
    "openrouter": Preset(
        "openai",
        "https://openrouter.ai/api/v1",
        "anthropic/claude-sonnet-4.5",
        "OPENROUTER_API_KEY",
    ),
    "ollama": Preset("openai", "http://127.0.0.1:11434/v1", "qwen2.5-coder:7b", None),
    "scripted": Preset("scripted", "", "scripted", None),
}


@dataclass(frozen=True)
class Timeouts:
    """Seconds. ``read`` is the longest silence between bytes (for a non-streaming call, the
    whole wait for the answer); ``total`` is the deadline of one HTTP attempt, streaming
    included, so a stream that trickles forever still ends."""

    connect: float = 10.0
    read: float = 180.0
    total: float = 180.0

    def __post_init__(self) -> None:
        for name in ("connect", "read", "total"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"timeout {name} must be a positive number of seconds")


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter: the n-th retry waits a random time in
    ``[d/2, d]`` with ``d = min(backoff_cap_s, backoff_base_s * 2**(n-1))``; a server's
    ``Retry-After`` replaces that, capped at ``retry_after_cap_s``."""

    max_attempts: int = 5
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 30.0
    retry_after_cap_s: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError("retries: max_attempts must be at least 1")
        if self.backoff_base_s < 0 or self.backoff_cap_s < 0 or self.retry_after_cap_s < 0:
            raise ConfigError("retries: backoff times must not be negative")


@dataclass(frozen=True)
class ProviderConfig:
    """Everything needed to build a provider except the key.

    ``model`` and ``base_url`` left as ``None`` mean the preset's default (see ``PRESETS``);
    read the values in use from ``effective_model`` / ``effective_base_url``.
    """

    name: str = "openai"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    script: Path | None = None
    stream: bool = True
    max_output_tokens: int = 8192  # Anthropic requires it; not sent on the OpenAI wire
    max_answer_bytes: int = MAX_ANSWER_BYTES  # bytes received for one answer, streamed or whole
    timeouts: Timeouts = field(default_factory=Timeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    def __post_init__(self) -> None:
        if self.name not in PRESETS:
            choices = ", ".join(PROVIDER_NAMES)
            raise ConfigError(f"unknown provider {self.name!r}; choose one of {choices}")
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            raise ConfigError(f"base URL {self.base_url!r} must start with http:// or https://")
        if self.max_output_tokens < 1:
            raise ConfigError("max_output_tokens must be at least 1")
        if self.max_answer_bytes < 1:
            raise ConfigError("max_answer_bytes must be at least 1")

    @property
    def preset(self) -> Preset:
        return PRESETS[self.name]

    @property
    def wire(self) -> Wire:
        return self.preset.wire

    @property
    def effective_model(self) -> str:
        return self.model or self.preset.model

    @property
    def effective_base_url(self) -> str:
        return (self.base_url or self.preset.base_url).rstrip("/")

    @property
    def uses_hosted_default(self) -> bool:
        """True when requests go to the provider's own hosted API, which needs a key."""
        return self.preset.key_env is not None and (
            self.base_url is None or self.effective_base_url == self.preset.base_url
        )

    def key_variables(self) -> tuple[str, ...]:
        """The environment variables consulted for the key, in order."""
        names = [HARNESS_API_KEY]
        if self.api_key_env:
            names.append(self.api_key_env)
        elif self.preset.key_env:
            names.append(self.preset.key_env)
        return tuple(names)


def resolve_api_key(config: ProviderConfig, environ: Mapping[str, str]) -> str | None:
    """The API key, read once at the entry point: ``HARNESS_API_KEY``, else ``api_key_env``
    when set, else the provider's usual variable. Empty values count as unset.

    A key is required only for the provider's default hosted URL; a custom base URL (a
    local vLLM or llama.cpp server) and Ollama work without one. A missing required key
    is a ``ConfigError`` naming the variables (never a value).
    """
    if config.wire == "scripted":
        return None
    variables = config.key_variables()
    for name in variables:
        value = environ.get(name, "").strip()
        if value:
            register(value)  # from now on redacted from every text that leaves the process
            return value
    if config.uses_hosted_default:
        raise MissingKeyError(
            f"no API key for {config.name}: set {' or '.join(variables)} "
            f"(or point --base-url at a server that needs none)"
        )
    return None


def config_from_env(
    environ: Mapping[str, str],
    *,
    name: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    script: Path | str | None = None,
    api_key_env: str | None = None,
    stream: bool = True,
) -> ProviderConfig:
    """Build a config from ``HARNESS_PROVIDER``, ``HARNESS_MODEL`` and ``HARNESS_BASE_URL``;
    explicit arguments (CLI flags, editor settings) win over the environment."""

    def pick(explicit: str | None, variable: str) -> str | None:
        if explicit:
            return explicit
        return environ.get(variable, "").strip() or None

    return ProviderConfig(
        name=pick(name, "HARNESS_PROVIDER") or "openai",
        model=pick(model, "HARNESS_MODEL"),
        base_url=pick(base_url, "HARNESS_BASE_URL"),
        api_key_env=api_key_env or None,
        script=Path(script) if script else None,
        stream=stream,
    )
