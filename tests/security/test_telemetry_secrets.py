"""Attack: what the model chooses reaches the collector (issue 30, finding 9; §12). A tool
name holding the API key, a tool name and a call id carrying a file's secret, a
100,000-character name: with content capture off none of it is exported (an unknown tool is
``unknown``, a call id its hash); with it on, names are redacted and cut, like every
attribute. The real CLI, the fake Chat Completions server, a real OTLP/HTTP receiver."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from harness.telemetry.content import ATTRIBUTE_CHARS, CONTENT_CHARS, NAME_CHARS
from tests.conftest import MakeFakeLLM
from tests.e2e.cli import call, calls, harness, run_args
from tests.support.otlp_receiver import OtlpReceiver, Received

KEY = "sk-otel-FAKE-KEY-9f8e7d6c5b4a3210zyxwvutsrqponmlk"
FILE_SECRET = "file-secret-4d7a1c9e2b8f"
HUGE = "x" * 100_000


def turns() -> list[dict[str, Any]]:
    return [
        calls(
            call(f"k_{KEY}"),  # the key, echoed as a tool name
            {**call(f"leak_{FILE_SECRET}"), "id": f"id_{FILE_SECRET}"},
            call(HUGE),
            {**call("read_file", path="notes.txt"), "id": "c" * 100_000},
        ),
        {"content": "Done."},
    ]


def exported(tmp_path: Path, fake_llm: MakeFakeLLM, capture: bool) -> list[Received]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / ".git").mkdir(exist_ok=True)
    (ws / "notes.txt").write_text(f"the secret is {FILE_SECRET}\n")
    (tmp_path / "config" / "harness").mkdir(parents=True, exist_ok=True)
    if capture:
        policy = tmp_path / "config" / "harness" / "policy.toml"
        policy.write_text("[telemetry]\ncapture_content = true\n")
    home: dict[str, Any] = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "OPENAI_API_KEY": KEY}
    fake = fake_llm(turns())
    args = run_args("go", fake.url, ws, tmp_path / f"s{time.monotonic_ns()}.db")
    with OtlpReceiver() as otlp:
        out = harness(*args, **home, OTEL_EXPORTER_OTLP_ENDPOINT=otlp.url)
        assert out.code == 0, out.stderr
        spans = otlp.wait_for(lambda s: any(x.name.startswith("invoke_agent") for x in s), 1)
    return spans


def tools(spans: list[Received]) -> list[Received]:
    return [s for s in spans if s.name.startswith("execute_tool")]


def every_text(span: Received) -> list[str]:
    return [span.name, *span.texts(), *map(str, span.attributes.values())]


def test_without_content_what_the_model_chose_is_not_exported(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    spans = exported(tmp_path, fake_llm, capture=False)
    executed = tools(spans)
    assert len(executed) == 4
    names = sorted(s.name for s in executed)
    assert names == ["execute_tool read_file"] + ["execute_tool unknown"] * 3
    for span in spans:
        for text in every_text(span):
            assert KEY[:12] not in text and KEY[-12:] not in text
            assert FILE_SECRET not in text and "xxxxxxxxxxxx" not in text
            assert len(text) <= ATTRIBUTE_CHARS, (span.name, len(text))
    ids = [s.attributes["gen_ai.tool.call.id"] for s in executed]
    assert all(i.startswith("sha256:") and len(i) == 23 for i in ids)
    assert len(set(ids)) == 4  # still one per call


def test_with_content_names_and_ids_are_redacted_and_cut(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    spans = exported(tmp_path, fake_llm, capture=True)
    executed = tools(spans)
    assert len(executed) == 4
    for span in executed:
        assert len(span.name) <= len("execute_tool ") + NAME_CHARS, len(span.name)
        assert len(span.attributes["gen_ai.tool.call.id"]) <= ATTRIBUTE_CHARS
    assert any(s.name == "execute_tool read_file" for s in executed)
    assert any(f"leak_{FILE_SECRET}" in s.name for s in executed)  # asked for: shown
    for span in spans:
        for text in every_text(span):
            assert KEY[:12] not in text and KEY[-12:] not in text, span.name
            assert len(text) <= CONTENT_CHARS, (span.name, len(text))
