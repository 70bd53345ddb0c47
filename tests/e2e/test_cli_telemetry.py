"""Runs exported over OpenTelemetry (issue 25, §12): the real CLI against the fake Chat
Completions server, exporting over OTLP/HTTP to a real receiver on 127.0.0.1 that decodes
each ``ExportTraceServiceRequest`` with ``opentelemetry-proto``.

One trace per run (every span shares the run span's trace id and has it as parent), the
GenAI attributes of §12, no key in any attribute or event (the run uses a recognisable fake
key the model echoes and a file holds), content only with ``capture_content``; a dead
collector — a closed port, a server that never answers — changes nothing the user sees."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeFakeLLM
from tests.support.otlp_receiver import OtlpReceiver, Received, closed_port

from .cli import call, calls, harness, run_args

KEY = "sk-otel-FAKE-KEY-0123456789abcdefghijklmnopqrstuv"  # 48 chars: pieces redacted too
GOAL = "Summarise notes.txt for the release"
CONTENT_KEYS = (
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
)


def turns() -> list[dict[str, Any]]:
    return [
        calls(call("read_file", path="notes.txt"), call("read_file", path=".env")),
        calls(call("exec", argv=["true"])),  # no approver (no --yes, no terminal): refused
        calls(call("read_file", path="missing.txt")),  # fails
        {"content": f"Done. The key was {KEY[:20]}… and notes say hello."},
    ]


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    ws = tmp_path / "shop"
    ws.mkdir()
    (ws / ".git").mkdir()
    (ws / ".env").write_text("TOKEN=never\n")
    (ws / "notes.txt").write_text(f"hello\nthe key in a file: {KEY}\n")
    return ws


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "config" / "harness").mkdir(parents=True)
    return {
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "OPENAI_API_KEY": KEY,
    }


def exported_run(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM, **env: str
) -> tuple[Any, list[Received]]:
    fake = fake_llm(turns())
    args = run_args(GOAL, fake.url, shop, tmp_path / f"s{time.monotonic_ns()}.db")
    args[args.index("--model") + 1] = "gpt-4o"  # a priced model: the spans carry dollars
    with OtlpReceiver() as otlp:
        out = harness(*args, **home, OTEL_EXPORTER_OTLP_ENDPOINT=otlp.url, **env)
        assert out.code == 0, out.stderr
        assert fake.headers[0].get("authorization") == f"Bearer {KEY}"  # the key was used
        # The CLI flushes before it exits: everything is there already.
        spans = otlp.wait_for(lambda s: any(x.name.startswith("invoke_agent") for x in s), 1)
        headers = {k.lower(): v for k, v in otlp.headers[0].items()}
        assert headers["content-type"] == "application/x-protobuf"
    return out, spans


def by_name(spans: list[Received], prefix: str) -> list[Received]:
    return [s for s in spans if s.name.startswith(prefix)]


def test_a_run_is_one_trace_of_genai_spans_with_no_key_and_no_content(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    out, spans = exported_run(shop, tmp_path, home, fake_llm)
    result = out.json()
    [root] = by_name(spans, "invoke_agent")
    chats, tools = by_name(spans, "chat "), by_name(spans, "execute_tool ")
    assert len(spans) == 1 + len(chats) + len(tools)
    assert len(chats) == 4 and len(tools) == 4

    # One trace per run, every span a child of the run span, inside its time.
    assert {s.trace_id for s in spans} == {root.trace_id}
    assert root.parent_span_id == ""
    for span in chats + tools:
        assert span.parent_span_id == root.span_id
        assert root.start_ns <= span.start_ns <= span.end_ns <= root.end_ns

    assert root.resource["service.name"] == "harness-lsp"
    assert root.resource["service.version"]
    assert root.scope == "harness" and root.schema_url.startswith("https://opentelemetry.io/")
    assert root.kind == 1  # INTERNAL
    a = root.attributes
    assert a["gen_ai.operation.name"] == "invoke_agent"
    assert a["gen_ai.agent.name"] == "harness"
    assert a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.request.model"] == "gpt-4o"
    assert a["gen_ai.conversation.id"] == str(result["runId"])
    assert a["harness.run.id"] == result["runId"]
    assert a["harness.run.outcome"] == "finished" and root.status_code != 2
    assert a["harness.run.spent_tokens"] == result["spentTokens"]
    assert a["harness.cost.usd"] == pytest.approx(result["costUsd"])
    assert a["gen_ai.usage.input_tokens"] == sum(
        c.attributes["gen_ai.usage.input_tokens"] for c in chats
    )

    chat = chats[0].attributes
    assert chats[0].name == "chat gpt-4o" and chats[0].kind == 3  # CLIENT
    assert chat["gen_ai.operation.name"] == "chat"
    assert chat["gen_ai.request.model"] == "gpt-4o"
    assert chat["gen_ai.provider.name"] == "openai"
    assert chat["gen_ai.usage.input_tokens"] > 0 and chat["gen_ai.usage.output_tokens"] > 0
    assert "gen_ai.usage.cache_read.input_tokens" in chat
    assert chat["harness.cost.usd"] > 0
    assert sum(c.attributes["harness.cost.usd"] for c in chats) == pytest.approx(
        result["costUsd"], rel=1e-4
    )
    assert any(c.attributes.get("gen_ai.usage.cache_read.input_tokens") for c in chats[1:])

    status = {
        (s.attributes["gen_ai.tool.name"], s.attributes["harness.tool.status"]) for s in tools
    }
    assert status == {
        ("read_file", "ok"),
        ("read_file", "refused"),  # .env: the secrets layer
        ("exec", "refused"),  # no one to ask
        ("read_file", "failed"),  # missing.txt
    }
    for span in tools:
        t = span.attributes
        assert span.name == f"execute_tool {t['gen_ai.tool.name']}"
        assert t["gen_ai.operation.name"] == "execute_tool"
        assert t["gen_ai.tool.call.id"]
        if t["harness.tool.status"] == "ok":
            assert "error.type" not in t and span.status_code != 2
        else:
            assert t["error.type"] == t["harness.tool.status"] and span.status_code == 2

    texts = [text for span in spans for text in span.texts()]
    assert not any(KEY[:12] in t or KEY[-12:] in t for t in texts)
    for span in spans:  # content only when asked
        assert not set(CONTENT_KEYS) & set(span.attributes), span.name
    assert not any(GOAL in t or "hello" in t for t in texts)


def test_with_capture_content_prompts_and_results_are_exported_redacted(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    config = Path(home["XDG_CONFIG_HOME"]) / "harness" / "policy.toml"
    config.write_text("[telemetry]\ncapture_content = true\n")
    _, spans = exported_run(shop, tmp_path, home, fake_llm)
    [root] = by_name(spans, "invoke_agent")
    assert GOAL in root.attributes["gen_ai.input.messages"]
    assert "notes say hello" in root.attributes["gen_ai.output.messages"]
    chat = by_name(spans, "chat ")[1].attributes
    messages = json.loads(chat["gen_ai.input.messages"])
    assert messages[0]["role"] == "user" and GOAL in messages[0]["parts"][0]["content"]
    assert any(m["role"] == "tool" for m in messages)
    assert "You are a coding agent" in chat["gen_ai.system_instructions"]
    assert "tool_call" in chat["gen_ai.output.messages"]
    [read] = [
        s
        for s in by_name(spans, "execute_tool read_file")
        if s.attributes["harness.tool.status"] == "ok"
    ]
    assert json.loads(read.attributes["gen_ai.tool.call.arguments"]) == {"path": "notes.txt"}
    assert "hello" in read.attributes["gen_ai.tool.call.result"]
    assert "[redacted]" in read.attributes["gen_ai.tool.call.result"]

    texts = [text for span in spans for text in span.texts()]
    assert not any(KEY[:12] in t or KEY[-12:] in t for t in texts)


def test_a_dead_collector_costs_the_run_nothing_visible(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    def run(**env: str) -> tuple[Any, float]:
        fake = fake_llm(turns())
        store = tmp_path / f"s{time.monotonic_ns()}.db"
        started = time.monotonic()
        out = harness(*run_args(GOAL, fake.url, shop, store), **home, **env)
        return out, time.monotonic() - started

    plain, took_plain = run()
    with OtlpReceiver(hang=True) as hung:
        dead = {
            "closed port": {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{closed_port()}"},
            "hung collector": {"OTEL_EXPORTER_OTLP_ENDPOINT": hung.url},
        }
        for why, env in dead.items():
            out, took = run(**env)
            assert out.code == plain.code == 0, (why, out.stderr)
            assert out.json() == plain.json(), why  # same outcome, words, counts
            assert out.stderr == plain.stderr, why  # the same progress, no warning
            assert "telemetry" not in out.stderr.lower() and "export" not in out.stderr
            # The exit waits for the flush at most its bound (2 s; a failed export: 0.2 s).
            print(f"{why}: {took:.2f} s, without telemetry {took_plain:.2f} s")
            assert took < took_plain + 2.0 + 3.0, (why, took)  # + the bound + slack (load)
        assert hung.requests >= 1  # the export was tried, and hung


def test_a_chat_exports_each_turn_in_one_conversation(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    """``harness chat`` exports like ``harness run`` (seen: it exported nothing): each turn
    a run span of the same conversation, flushed when the chat ends."""
    fake = fake_llm([{"content": "First answer."}, {"content": "Second answer."}])
    args = run_args("unused", fake.url, shop, tmp_path / "chat.db")
    args[args.index("--model") + 1] = "gpt-4o"
    args = ["chat", *(a for a in args[2:] if a != "--json")]  # the goals typed
    with OtlpReceiver() as otlp:
        out = harness(*args, stdin="first question\nsecond question\n", **home,
                      OTEL_EXPORTER_OTLP_ENDPOINT=otlp.url)  # fmt: skip
        assert out.code == 0, out.stderr
        spans = otlp.wait_for(lambda s: len(by_name(s, "invoke_agent")) == 2, 1)
    runs = sorted(by_name(spans, "invoke_agent"), key=lambda s: s.attributes["harness.run.id"])
    first, second = (r.attributes for r in runs)
    assert first["gen_ai.conversation.id"] == second["gen_ai.conversation.id"]
    assert first["gen_ai.conversation.id"] == str(first["harness.run.id"])
    assert (first["harness.conversation.turn"], second["harness.conversation.turn"]) == (1, 2)
    assert "Second answer." in out.stdout + out.stderr
