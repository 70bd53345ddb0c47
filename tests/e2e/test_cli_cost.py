"""Dollars and honest counts from the command line (issue 22, §11 "Cost", §8.1): the real
CLI against the fake providers on 127.0.0.1 (both wires), which report usage with cache
reads and writes as a real server does. The expected dollars are computed here by hand from
the genai-prices table's published prices and the usage the fake server sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeFakeLLM

from .cli import call, calls, harness, harness_pty, run_args, script

TURNS = [
    calls(call("read_file", path="src/pricing.py")),
    calls(call("list_dir")),
    {"content": "Read it."},
]


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    ws = tmp_path / "shop"
    (ws / "src").mkdir(parents=True)
    (ws / ".git").mkdir()
    (ws / ".env").write_text("API_TOKEN=not-for-the-model\n")
    (ws / "src" / "pricing.py").write_text("def total(x):\n    return x\n")
    return ws


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "config" / "harness").mkdir(parents=True)
    return {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}


def with_model(args: list[str], provider: str, model: str) -> list[str]:
    args = list(args)
    args[args.index("--provider") + 1] = provider
    args[args.index("--model") + 1] = model
    return args


def openai_dollars(usages: list[Any], fresh: float, read: float, out: float) -> float:
    """Chat Completions usage: prompt tokens include the cached ones."""
    total = 0.0
    for u in filter(None, usages):
        cached = u["prompt_tokens_details"]["cached_tokens"]
        total += (u["prompt_tokens"] - cached) * fresh + cached * read
        total += u["completion_tokens"] * out
    return total / 1e6


def test_a_priced_openai_model_reports_its_dollars(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm(TURNS)
    args = with_model(run_args("Look", fake.url, shop, tmp_path / "s.db"), "openai", "gpt-4o")
    out = harness(*args, **home)
    assert out.code == 0, out.stderr
    result = out.json()
    # gpt-4o in the table: $2.50 input, $1.25 cached input, $10 output per million tokens
    by_hand = openai_dollars(fake.usages, 2.5, 1.25, 10)
    assert any(u and u["prompt_tokens_details"]["cached_tokens"] for u in fake.usages)
    assert result["costUsd"] == pytest.approx(by_hand, abs=1e-6)
    assert result["costUsd"] > 0

    again = fake_llm(TURNS)  # without --json: the final line shows the dollars
    args[args.index("--base-url") + 1] = again.url
    words = harness(*args[:-1], **home)
    last = words.stdout.splitlines()[-1]
    assert f" · ${openai_dollars(again.usages, 2.5, 1.25, 10):.3g} · " in last, last


def test_a_priced_anthropic_model_prices_cache_reads_and_writes(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm(TURNS, wire="anthropic")
    base = run_args("Look", fake.url, shop, tmp_path / "s.db")
    out = harness(*with_model(base, "anthropic", "claude-sonnet-4-0"), **home)
    assert out.code == 0, out.stderr
    # claude-sonnet-4-0: $3 input, $0.30 cache read, $3.75 cache write, $15 output per MTok
    by_hand = 0.0
    for u in filter(None, fake.usages):
        by_hand += u["input_tokens"] * 3 + u.get("cache_read_input_tokens", 0) * 0.3
        by_hand += u.get("cache_creation_input_tokens", 0) * 3.75 + u["output_tokens"] * 15
    assert any(u and u.get("cache_creation_input_tokens") for u in fake.usages)
    assert out.json()["costUsd"] == pytest.approx(by_hand / 1e6, abs=1e-6)


def test_an_unknown_local_model_shows_no_dollars(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm(TURNS)
    args = with_model(run_args("Look", fake.url, shop, tmp_path / "s.db"), "openai", "qwen-local")
    result = harness(*args, **home)
    assert result.code == 0, result.stderr
    assert result.json()["costUsd"] is None
    words = harness(*args[:-1], **home)
    assert "$" not in words.stdout.splitlines()[-1]


def test_a_prices_override_in_the_user_config_prices_a_local_model(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    config = Path(home["XDG_CONFIG_HOME"]) / "harness" / "prices.toml"
    config.write_text('["qwen-local"]\ninput = 0.4\noutput = 1.6\ncacheRead = 0.1\n')
    fake = fake_llm(TURNS)
    args = with_model(run_args("Look", fake.url, shop, tmp_path / "s.db"), "openai", "qwen-local")
    out = harness(*args, **home)
    assert out.code == 0, out.stderr
    assert out.json()["costUsd"] == pytest.approx(
        openai_dollars(fake.usages, 0.4, 0.1, 1.6), abs=1e-6
    )

    config.write_text('["qwen-local"]\ninput = "cheap"\noutput = 1\n')
    bad = harness(*args, **home)
    assert bad.code == 2, "a bad price is a configuration error"
    assert "prices.qwen-local.input" in bad.stderr


def test_one_refused_one_denied_one_failed_call_are_counted(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    turns = script(
        tmp_path / "turns.json",
        calls(call("read_file", path=".env")),  # refused by the builtin rule
        calls(call("exec", argv=["pytest", "-q"])),  # asked, and denied on the terminal
        calls(call("edit_file", path="src/pricing.py", old="return y", new="return 2")),
        {"content": "Could not do it."},
    )
    screen = harness_pty(
        "run",
        "Try",
        "--script",
        turns,
        "--store",
        tmp_path / "s.db",
        "--json",
        cwd=shop,
        columns=400,
        answers=[("(default: deny)?", "d\n")],
        **home,
    )
    assert screen.code == 0, screen.text
    (line,) = [x for x in screen.stream.splitlines() if x.strip().startswith('{"runId"')]
    result = json.loads(line.strip())
    assert (result["refused"], result["denied"], result["failed"]) == (1, 1, 1), result
    assert result["filesChanged"] == []
    assert result["costUsd"] is None, "the scripted provider has no price"

    piped = harness("run", "Try", "--script", turns, "--store", tmp_path / "s.db", cwd=shop, **home)
    last = piped.stdout.splitlines()[-1]
    assert "2 calls refused" in last and "1 call failed" in last, last
