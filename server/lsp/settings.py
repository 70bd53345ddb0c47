"""Editor settings (§7): parsed from ``initializationOptions`` and
``workspace/didChangeConfiguration``, validated field by field, and turned into harness
values.

Settings are camelCase: ``provider {name, model, baseUrl, apiKeyEnv}``, ``storePath``,
``tokenBudget``, ``maxSteps``, ``contextBudget {maxTokens, share, lowWater}``,
``contextWire``, ``policy``, ``trusted`` (the client's own workspace-trust verdict, §6.3;
unset: the user config decides), ``prices`` (per model: ``input``, ``output``, ``cacheRead``,
``cacheWrite``, dollars per million tokens, §11; over the user's ``prices.toml``). Either
the settings object itself or ``{"harness": {...}}`` (what VS Code and Neovim push) is
accepted. Unknown keys are ignored (editors keep their own,
such as ``serverPath``, in the same section).

A bad value is a ``Problem`` naming the field — never echoing the value, which may be a key
pasted into the wrong box — and only that field falls back to its default; the rest still
applies (``policy`` is checked entry by entry, ``server.lsp.editor_policy``; ``prices`` model by
model: a bad model's entry is dropped, the others apply). The exception is
where the run goes: the default of a bad ``provider``, ``provider.name`` or
``provider.baseUrl`` would be the provider's hosted API instead of the server the user
meant, so such a problem *refuses runs* until it is fixed (``Settings.refusals``). The API
key is never a setting: it is read from the server's environment when a run starts.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from harness.contract import ContextBudgetOverrides, ContractOverrides
from harness.errors import ConfigError
from harness.pricing import ModelPrices, parse_prices
from harness.provider import ProviderConfig, config_from_env
from server.lsp.editor_policy import clean_policy
from server.lsp.wire.section import is_variable_name, register_pasted_key, settings_section

MAX_FIXES = 50
MAX_URL_CHARS = 2048

# A bad value here would send the run to the provider's hosted default: runs are refused.
ROUTING_FIELDS = frozenset({"provider", "provider.name", "provider.baseUrl"})

ProviderName = Literal["openai", "anthropic", "openrouter", "ollama"]  # not ``scripted``
# The cost caps are bounded: a repository's settings (a trusted one, or an editor that
# passes workspace values on) must not lift them out of reach. Past a bound the value is a
# bad setting, reported, and the default applies (§7) — not clamped, which would run a
# budget nobody chose. The bounds are far above any real run.
MAX_TOKEN_BUDGET = 1_000_000_000
MAX_STEPS = 10_000
MAX_CONTEXT_TOKENS = 10_000_000
TokenBudget = Annotated[int, Field(ge=1, le=MAX_TOKEN_BUDGET)]
Steps = Annotated[int, Field(ge=1, le=MAX_STEPS)]
ContextTokens = Annotated[int, Field(ge=1, le=MAX_CONTEXT_TOKENS)]
Fraction = Annotated[float, Field(gt=0.0, le=1.0)]


@dataclass(frozen=True)
class Problem:
    """One bad setting: which field (camelCase path) and what is wrong, without the value."""

    field: str
    message: str

    @property
    def refuses_runs(self) -> bool:
        return self.field in ROUTING_FIELDS

    def __str__(self) -> str:
        return f"`{self.field}`: {self.message}"


class _Model(BaseModel):
    model_config = ConfigDict(
        strict=True, extra="ignore", frozen=True, alias_generator=to_camel, populate_by_name=True
    )

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        # Editors show an empty text box for "not set"; it means the default.
        return None if isinstance(value, str) and not value.strip() else value


class ProviderSettings(_Model):
    name: ProviderName | None = None
    model: Annotated[str, Field(max_length=500)] | None = None
    base_url: str | None = None
    api_key_env: str | None = None

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not is_http_url(value):
            raise PydanticCustomError(
                "http_url", "must be an http:// or https:// URL with a host (at most 2048 chars)"
            )
        return value

    @field_validator("api_key_env")
    @classmethod
    def _variable_name(cls, value: str | None) -> str | None:
        if value is not None and not is_variable_name(value):
            raise PydanticCustomError(
                "variable_name",
                "must be the name of an environment variable (letters, digits and _, not "
                "starting with a digit, at most 64 characters), not the key itself; the key "
                "is read from that variable of the server's environment",
            )
        return value


class ContextBudgetSettings(_Model):
    max_tokens: ContextTokens | None = None
    share: Fraction | None = None
    low_water: Fraction | None = None
    cache_idle_seconds: Annotated[float, Field(gt=0.0, le=86_400.0)] | None = None


class Settings(_Model):
    provider: ProviderSettings = Field(default_factory=ProviderSettings)
    store_path: str | None = None
    token_budget: TokenBudget | None = None
    max_steps: Steps | None = None
    context_budget: ContextBudgetSettings = Field(default_factory=ContextBudgetSettings)
    context_wire: Literal["transcript", "flat"] | None = None
    policy: dict[str, Any] | None = None
    trusted: bool | None = None
    prices: dict[str, Any] | None = None
    _refusals: tuple[Problem, ...] = PrivateAttr(default=())

    @property
    def refusals(self) -> tuple[Problem, ...]:
        """The bad settings that refuse runs until fixed (where the run would go)."""
        return self._refusals

    def provider_config(self, environ: Mapping[str, str]) -> ProviderConfig:
        """Settings win over ``HARNESS_PROVIDER`` / ``HARNESS_MODEL`` / ``HARNESS_BASE_URL``."""
        p = self.provider
        return config_from_env(
            environ, name=p.name, model=p.model, base_url=p.base_url, api_key_env=p.api_key_env
        )

    def contract_overrides(self) -> ContractOverrides:
        """The contract values these settings give (``None``: not set)."""
        return ContractOverrides(
            token_budget=self.token_budget,
            max_steps=self.max_steps,
            context_budget=ContextBudgetOverrides(**self.context_budget.model_dump()),
            context_wire=self.context_wire,
        )

    @property
    def model_prices(self) -> dict[str, ModelPrices]:
        """The ``prices`` setting, parsed (checked when the settings were read)."""
        return parse_prices(self.prices or {}, "prices")

    @property
    def store_file(self) -> Path | str | None:
        """The store setting (a path, or a ``postgresql://`` URL), or None for the default
        (``$HARNESS_STORE`` or data dir)."""
        from harness.store import store_location

        return store_location(self.store_path) if self.store_path else None


def is_http_url(value: str) -> bool:
    if len(value) > MAX_URL_CHARS or any(c.isspace() or ord(c) < 32 for c in value):
        return False
    try:
        parts = urlsplit(value)
        _ = parts.port  # raises on a port that is not a number in range
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def parse_settings(raw: object) -> tuple[Settings, list[Problem]]:
    """Settings from an editor's object, and one problem per value replaced by its default
    (or refusing runs: ``Problem.refuses_runs``)."""
    register_pasted_key(raw)  # redacted from every log line from now on
    section = settings_section(raw)
    if section is None:
        return Settings(), []
    if not isinstance(section, Mapping):
        problem = Problem("(settings)", f"must be an object, not {_json_type(section)}")
        return Settings(), [problem]
    data: dict[str, Any] = copy.deepcopy(dict(section))
    problems: list[Problem] = []
    settings: Settings | None = None
    for _ in range(MAX_FIXES):
        try:
            settings = Settings.model_validate(data)
            break
        except ValidationError as exc:
            progressed = False
            for err in exc.errors(include_url=False, include_input=False):
                loc = tuple(str(p) for p in err["loc"])
                problems.append(Problem(".".join(loc), err["msg"]))
                progressed |= _drop(data, loc)
            if not progressed:
                break
    if settings is None:
        return Settings(), [*problems, Problem("(settings)", "could not be read")]
    settings, more = _check_values(settings)
    problems += more
    settings._refusals = tuple(p for p in problems if p.refuses_runs)
    return settings, problems


def _drop(data: dict[str, Any], loc: tuple[str, ...]) -> bool:
    """Remove the deepest key of ``loc`` present in ``data``; False if none was."""
    node: Any = data
    parent: dict[str, Any] | None = None
    key: str | None = None
    for part in loc:
        if not isinstance(node, dict) or part not in node:
            break
        parent, key, node = node, part, node[part]
    if parent is None or key is None:
        return False
    del parent[key]
    return True


def _check_values(settings: Settings) -> tuple[Settings, list[Problem]]:
    """What the shape cannot say: an absolute store path, a valid policy (entry by entry)."""
    problems: list[Problem] = []
    store = settings.store_file
    if isinstance(store, Path) and not store.is_absolute():
        problems.append(
            Problem("storePath", "must be an absolute path (`~` is allowed) or a postgresql:// URL")
        )
        settings = settings.model_copy(update={"store_path": None})
    if settings.policy is not None:
        kept, dropped = clean_policy(settings.policy)
        problems += [Problem(where, message) for where, message in dropped]
        if dropped:
            settings = settings.model_copy(update={"policy": kept})
    if settings.prices is not None:
        prices, bad = _clean_prices(settings.prices)
        problems += bad
        settings = settings.model_copy(update={"prices": prices})
    return settings, problems


def _clean_prices(raw: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The ``prices`` entries that parse; one problem per model whose entry does not."""
    kept: dict[str, Any] = {}
    problems: list[Problem] = []
    for model, entry in raw.items():
        try:
            parse_prices({model: entry}, "prices")
        except ConfigError as exc:
            message = str(exc).removeprefix(f"prices: prices.{model}").lstrip(".: ")
            problems.append(Problem(f"prices.{model}", _without_value(message)))
            continue
        kept[model] = entry
    return kept, problems


def _without_value(message: str) -> str:
    """A price problem without the value (``, got ...``): a setting's value is never echoed."""
    return message.split(", got ", 1)[0]


def _json_type(value: object) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "an array" if isinstance(value, list | tuple) else type(value).__name__


__all__ = [
    "MAX_CONTEXT_TOKENS",
    "MAX_STEPS",
    "MAX_TOKEN_BUDGET",
    "ContextBudgetSettings",
    "Problem",
    "ProviderSettings",
    "Settings",
    "is_http_url",
    "parse_settings",
]
