"""Editor settings (§7): parsed from ``initializationOptions`` and
``workspace/didChangeConfiguration``, validated, and turned into harness values.

Settings are camelCase: ``provider {name, model, baseUrl, apiKeyEnv}``, ``storePath``,
``tokenBudget``, ``maxSteps``, ``contextBudget {maxTokens, share}``, ``policy``, ``trusted``
(the client's own workspace-trust verdict, §6.3; unset: the user config decides). Either the
settings object itself or ``{"harness": {...}}`` (what VS Code and Neovim push) is accepted.
A bad value is reported — one line naming the field — and replaced by its default; the rest
of the settings still apply. Unknown keys are ignored (editors keep their own keys, such as
``serverPath``, in the same section). The API key is never a setting: it is read from the
server's environment when a run starts.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from harness.contract import ContextBudgetOverrides, ContractOverrides
from harness.errors import ConfigError
from harness.policy import parse_layer
from harness.provider import ProviderConfig, config_from_env

SECTION = "harness"
MAX_FIXES = 50

ProviderName = Literal["openai", "anthropic", "openrouter", "ollama", "scripted"]
Positive = Annotated[int, Field(ge=1, le=2**63 - 1)]


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
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None


class ContextBudgetSettings(_Model):
    max_tokens: Positive | None = None
    share: Annotated[float, Field(gt=0.0, le=1.0)] | None = None


class Settings(_Model):
    provider: ProviderSettings = Field(default_factory=ProviderSettings)
    store_path: str | None = None
    token_budget: Positive | None = None
    max_steps: Positive | None = None
    context_budget: ContextBudgetSettings = Field(default_factory=ContextBudgetSettings)
    policy: dict[str, Any] | None = None
    trusted: bool | None = None

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
        )

    @property
    def store_file(self) -> Path | None:
        """The store path setting, or None for the default (``$HARNESS_STORE`` or data dir)."""
        return Path(self.store_path).expanduser() if self.store_path else None


def settings_section(raw: object) -> object:
    """The harness settings inside what an editor sent: ``{"harness": {...}}`` or the object."""
    if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
        return raw[SECTION]
    return raw


def parse_settings(raw: object) -> tuple[Settings, list[str]]:
    """Settings from an editor's object, and one problem line per value replaced by default."""
    section = settings_section(raw)
    if section is None:
        return Settings(), []
    if not isinstance(section, Mapping):
        return Settings(), [f"settings must be an object, not {type(section).__name__}"]
    data: dict[str, Any] = copy.deepcopy(dict(section))
    problems: list[str] = []
    settings: Settings | None = None
    for _ in range(MAX_FIXES):
        try:
            settings = Settings.model_validate(data)
            break
        except ValidationError as exc:
            progressed = False
            for err in exc.errors(include_url=False, include_input=False):
                loc = tuple(str(p) for p in err["loc"])
                problems.append(f"`{'.'.join(loc)}`: {err['msg']}")
                progressed |= _drop(data, loc)
            if not progressed:
                break
    if settings is None:
        return Settings(), [*problems, "settings could not be read"]
    settings, more = _check_values(settings)
    return settings, problems + more


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


def _check_values(settings: Settings) -> tuple[Settings, list[str]]:
    """What the shape cannot say: a usable provider, an absolute store path, a valid policy."""
    problems: list[str] = []
    try:
        settings.provider_config(os.environ)
    except ConfigError as exc:
        problems.append(f"`provider`: {exc}")
        settings = settings.model_copy(update={"provider": ProviderSettings()})
    store = settings.store_file
    if store is not None and not store.is_absolute():
        problems.append(f"`storePath`: {settings.store_path!r} must be an absolute path")
        settings = settings.model_copy(update={"store_path": None})
    if settings.policy is not None:
        try:
            parse_layer(settings.policy, "editor settings (policy)", name="editor")
        except ConfigError as exc:
            problems.append(f"`policy`: {exc}")
            settings = settings.model_copy(update={"policy": None})
    return settings, problems


__all__ = [
    "ContextBudgetSettings",
    "ProviderSettings",
    "Settings",
    "parse_settings",
    "settings_section",
]
