"""Pricing a model call (§11 "Cost"): the genai-prices table by provider and model name,
cache reads and writes as reported, a ``prices`` override, and no price for an unknown
model (never a guess)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from genai_prices import Usage as TableUsage
from genai_prices import calc_price

from harness.errors import ConfigError
from harness.pricing import ModelPrices, Pricer, parse_prices, user_prices
from harness.types import Usage

USAGE = Usage(
    prompt_tokens=10_000,
    completion_tokens=500,
    total_tokens=10_500,
    cache_read_tokens=6_000,
    cache_write_tokens=1_000,
)


@pytest.mark.parametrize(
    ("provider", "model", "dollars_per_mtok"),
    [
        # input, cache read, cache write (none on OpenAI: priced as input), output
        pytest.param("openai", "gpt-4o", (2.5, 1.25, 2.5, 10), id="openai-gpt-4o"),
        pytest.param("anthropic", "claude-sonnet-4-0", (3, 0.3, 3.75, 15), id="anthropic-sonnet-4"),
        pytest.param("openrouter", "openai/gpt-4o", (2.5, 1.25, 2.5, 10), id="openrouter"),
    ],
)
def test_a_table_model_is_priced_from_the_usage_reported(
    provider: str, model: str, dollars_per_mtok: tuple[float, ...]
) -> None:
    fresh_in, read_in, write_in, out = dollars_per_mtok
    by_hand = (3_000 * fresh_in + 6_000 * read_in + 1_000 * write_in + 500 * out) / 1e6
    cost = Pricer(provider, model).cost(USAGE)
    assert cost is not None
    assert cost.usd == pytest.approx(by_hand)
    assert cost.cached_usd == pytest.approx(6_000 * read_in / 1e6)
    table = calc_price(
        TableUsage(
            input_tokens=10_000,
            output_tokens=500,
            cache_read_tokens=6_000,
            cache_write_tokens=1_000,
        ),
        model,
        provider_id=provider,
    ).total_price
    assert Decimal(str(cost.usd)) == pytest.approx(table)


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        pytest.param("openai", "qwen2.5-coder:7b", id="local-model-on-openai-wire"),
        pytest.param("openai", "claude-sonnet-4-0", id="another-providers-model"),
        pytest.param("ollama", "llama3", id="ollama"),
        pytest.param("scripted", "scripted", id="scripted"),
        pytest.param("openai", "", id="no-model"),
    ],
)
def test_an_unknown_model_has_no_price(provider: str, model: str) -> None:
    pricer = Pricer(provider, model)
    assert not pricer.known
    assert pricer.cost(USAGE) is None


def test_usage_the_provider_did_not_report_has_no_price() -> None:
    estimated = Usage(prompt_tokens=1_000, completion_tokens=10, estimated=True)
    assert Pricer("openai", "gpt-4o").cost(estimated) is None


def test_an_override_wins_over_the_table_and_prices_a_local_model() -> None:
    overrides = parse_prices(
        {
            "gpt-4o": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 1.5},
            "qwen2.5-coder:7b": {"input": 0.1, "output": 0.2},
        },
        "test",
    )
    cost = Pricer("openai", "gpt-4o", overrides).cost(USAGE)
    assert cost is not None
    assert cost.usd == pytest.approx((3_000 * 1 + 6_000 * 0.5 + 1_000 * 1.5 + 500 * 2) / 1e6)
    assert cost.cached_usd == pytest.approx(6_000 * 0.5 / 1e6)
    local = Pricer("openai", "qwen2.5-coder:7b", overrides).cost(USAGE)
    assert local is not None  # cache reads and writes without a price of their own: input
    assert local.usd == pytest.approx((10_000 * 0.1 + 500 * 0.2) / 1e6)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param([1, 2], id="not-a-table"),
        pytest.param({"m": 3}, id="entry-not-a-table"),
        pytest.param({"m": {"input": 1}}, id="no-output"),
        pytest.param({"m": {"input": 1, "output": -2}}, id="negative"),
        pytest.param({"m": {"input": "1", "output": 2}}, id="a-string"),
        pytest.param({"m": {"input": True, "output": 2}}, id="a-bool"),
        pytest.param({"m": {"input": float("nan"), "output": 2}}, id="nan"),
        pytest.param({"m": {"input": 1, "output": 2, "cached": 1}}, id="unknown-key"),
    ],
)
def test_a_bad_prices_table_is_a_config_error_naming_it(raw: object) -> None:
    with pytest.raises(ConfigError, match="prices"):
        parse_prices(raw, "settings")


def test_the_users_prices_file(tmp_path: Path) -> None:
    config = tmp_path / "prices.toml"
    assert user_prices(config) == {}
    config.write_text('["my-model"]\ninput = 0.5\noutput = 1.5\ncache_read = 0.05\n')
    assert user_prices(config) == {
        "my-model": ModelPrices(Decimal("0.5"), Decimal("1.5"), Decimal("0.05"))
    }
    config.write_text("m = 1\n")
    with pytest.raises(ConfigError, match=r"prices\.m"):
        user_prices(config)
