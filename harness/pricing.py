"""Dollars for a model call (§11 "Cost"): the usage the provider reported, priced by the
provider's name and the model's name — whatever the base URL, since gateways in front of a
provider are common — from the ``genai-prices`` table, or from a ``prices`` override.

A model neither the table nor the override knows (a local server's) has no price: ``None``,
never a guess. A call whose usage the provider did not report has no price either.

``cached_usd`` is the part of ``usd`` paid for the prompt tokens the provider reported as
read from its cache (cache reads at the cache-read price), so ``usd - cached_usd`` is what
the rest of the call cost. It is not what the cache saved.
``genai_prices`` (a large table) is imported on first use, never at import time.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import platformdirs

from harness.errors import ConfigError
from harness.types import Usage

PRICE_FIELDS = ("input", "output", "cacheRead", "cacheWrite")
"""A ``prices`` entry's keys, each US dollars per million tokens."""

_GENAI_PROVIDER = {"openai": "openai", "anthropic": "anthropic", "openrouter": "openrouter"}
_MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class ModelPrices:
    """One model's prices, US dollars per million tokens. ``cache_read`` / ``cache_write``
    None: those tokens are priced as input."""

    input: Decimal
    output: Decimal
    cache_read: Decimal | None = None
    cache_write: Decimal | None = None

    def usd(self, usage: Usage) -> Decimal:
        read, write = usage.cache_read_tokens or 0, usage.cache_write_tokens or 0
        fresh = max(0, (usage.prompt_tokens or 0) - read - write)
        total = (
            fresh * self.input
            + read * (self.input if self.cache_read is None else self.cache_read)
            + write * (self.input if self.cache_write is None else self.cache_write)
            + (usage.completion_tokens or 0) * self.output
        )
        return total / _MILLION


@dataclass(frozen=True)
class Cost:
    """What one call (or a run so far) cost, in US dollars."""

    usd: float
    cached_usd: float

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.usd + other.usd, self.cached_usd + other.cached_usd)


def parse_prices(raw: object, source: str) -> dict[str, ModelPrices]:
    """A ``prices`` table ``{model: {input, output, cacheRead?, cacheWrite?}}`` (also
    ``cache_read`` / ``cache_write``); ``ConfigError`` naming the bad entry."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: `prices` must be a table of models, got {raw!r}")
    return {
        str(model): _model_prices(entry, f"{source}: prices.{model}")
        for model, entry in raw.items()
    }


def _model_prices(entry: object, where: str) -> ModelPrices:
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where} must be a table with input and output, got {entry!r}")
    values = {_snake(str(k)): v for k, v in entry.items()}
    unknown = set(values) - {"input", "output", "cache_read", "cache_write"}
    if unknown:
        raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}; expected {PRICE_FIELDS}")
    for needed in ("input", "output"):
        if needed not in values:
            raise ConfigError(f"{where}: `{needed}` (dollars per million tokens) is missing")
    prices = {k: _dollars(v, f"{where}.{k}") for k, v in values.items()}
    return ModelPrices(
        prices["input"], prices["output"], prices.get("cache_read"), prices.get("cache_write")
    )


def _snake(key: str) -> str:
    return {"cacheRead": "cache_read", "cacheWrite": "cache_write"}.get(key, key)


def _dollars(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where} must be a number of dollars per million tokens, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{where} must be a number >= 0, got {value!r}")
    return Decimal(str(value))


def default_prices_file() -> Path:
    """``<user config dir>/harness/prices.toml`` (beside the user's ``policy.toml``)."""
    return Path(platformdirs.user_config_dir("harness")) / "prices.toml"


def user_prices(config: Path) -> dict[str, ModelPrices]:
    """The user's price overrides: one table per model (``["gpt-4o"]`` with ``input``,
    ``output``, ``cacheRead``, ``cacheWrite``); empty when the file is absent."""
    try:
        raw = tomllib.loads(config.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"prices file {config} cannot be read: {exc}") from exc
    return parse_prices(raw, f"prices file {config}")


class RunCost:
    """A run's dollars so far, call by call: None once a call could not be priced."""

    def __init__(self, pricer: Pricer | None) -> None:
        self.pricer = pricer
        self.total: Cost | None = Cost(0.0, 0.0) if pricer is not None and pricer.known else None

    def add(self, usage: Usage) -> None:
        if self.total is not None and self.pricer is not None:
            call = self.pricer.cost(usage)
            self.total = None if call is None else self.total + call

    @property
    def usd(self) -> float | None:
        return None if self.total is None else round(self.total.usd, 6)

    @property
    def cached_usd(self) -> float | None:
        return None if self.total is None else round(self.total.cached_usd, 6)


class Pricer:
    """Prices the calls of one provider and model: a ``prices`` override for the model (by
    name) wins over the genai-prices table."""

    def __init__(
        self, provider: str, model: str, overrides: Mapping[str, ModelPrices] | None = None
    ) -> None:
        self.provider, self.model = provider, model
        self.override = (overrides or {}).get(model)
        self._table = None if self.override else _table_provider(provider, model)

    @property
    def known(self) -> bool:
        return self.override is not None or self._table is not None

    def cost(self, usage: Usage) -> Cost | None:
        """The call's cost, or None: an unknown model, or usage the provider did not report."""
        if not self.known or usage.estimated or usage.prompt_tokens is None:
            return None
        read = usage.cache_read_tokens or 0
        cached = Usage(prompt_tokens=read, cache_read_tokens=read)
        return Cost(float(self._usd(usage)), float(self._usd(cached)) if read else 0.0)

    def _usd(self, usage: Usage) -> Decimal:
        if self.override is not None:
            return self.override.usd(usage)
        from genai_prices import Usage as TableUsage
        from genai_prices import calc_price

        counts = {
            "input_tokens": usage.prompt_tokens or 0,
            "output_tokens": usage.completion_tokens or 0,
            "cache_read_tokens": usage.cache_read_tokens or 0,
            "cache_write_tokens": usage.cache_write_tokens or 0,
        }
        return calc_price(TableUsage(**counts), self.model, provider_id=self._table).total_price


@cache
def _table_provider(provider: str, model: str) -> str | None:
    """The genai-prices provider id under which the table prices ``model``, or None."""
    table_id = _GENAI_PROVIDER.get(provider)
    if table_id is None or not model:
        return None
    from genai_prices import data_snapshot  # a large table: loaded on use

    try:
        data_snapshot.get_snapshot().find_provider_model(model, None, table_id, None)
    except LookupError:
        return None
    return table_id


__all__ = [
    "PRICE_FIELDS",
    "Cost",
    "ModelPrices",
    "Pricer",
    "RunCost",
    "default_prices_file",
    "parse_prices",
    "user_prices",
]
