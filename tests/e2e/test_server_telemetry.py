"""The language server's runs exported over OpenTelemetry (issue 25, §12): the real server
(pytest-lsp) with ``OTEL_EXPORTER_OTLP_ENDPOINT`` in its environment and a real OTLP/HTTP
receiver on 127.0.0.1. Two runs are two traces; ``harness.status`` counts what was exported;
the spans a run ends just before the server exits are flushed on ``shutdown``."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.lsp import (
    call,
    initialize_params,
    running,
    server_config,
    server_env,
    settings,
    status_until,
    turn,
    wait_watching,
)
from tests.support.fake_llm import FakeLLM
from tests.support.otlp_receiver import OtlpReceiver


async def test_each_run_is_a_trace_and_shutdown_flushes(
    fake: FakeLLM, ws: Path, store: Path
) -> None:
    fake.add_turns(turn(call("read_file", path="src/a.py")), {"content": "Read it."})
    fake.add_turns(turn(call("list_dir")), {"content": "Listed."})
    with OtlpReceiver() as otlp:
        config = server_config(env=server_env(OTEL_EXPORTER_OTLP_ENDPOINT=otlp.url))
        async with running(config) as client:
            await client.initialize_session(initialize_params([ws], settings(fake, store)))
            await wait_watching(client)
            status = await client.command("harness.status")
            assert status["telemetry"] is None  # read at the first run
            first = (await client.command("harness.run", {"goal": "Read a"}))["runId"]
            await client.wait_finished(first)
            spans = otlp.wait_for(lambda s: any(x.name.startswith("invoke_agent") for x in s))
            status = await status_until(
                client,
                lambda s: (s["telemetry"] or {}).get("spansExported", 0) >= len(spans),
                "harness.status never counted the exported spans",
            )
            assert status["telemetry"]["endpoint"] == f"{otlp.url}/v1/traces"
            assert status["telemetry"]["spansDropped"] == 0
            second = (await client.command("harness.run", {"goal": "List"}))["runId"]
            await client.wait_finished(second)
            # shutdown (by ``running``) flushes the second run's spans before the exit
        spans = otlp.wait_for(
            lambda s: len([x for x in s if x.name.startswith("invoke_agent")]) == 2, 5
        )
    roots = {s.attributes["harness.run.id"]: s for s in spans if s.name.startswith("invoke_agent")}
    assert set(roots) == {first, second}
    assert roots[first].trace_id != roots[second].trace_id
    for run_id, root in roots.items():
        inside = [s for s in spans if s.trace_id == root.trace_id and s is not root]
        assert {s.parent_span_id for s in inside} == {root.span_id}
        assert [s.name for s in inside if s.name.startswith("chat")] == ["chat m", "chat m"]
        assert root.attributes["gen_ai.conversation.id"] == str(run_id)
        assert root.attributes["harness.run.outcome"] == "finished"
    assert root.resource["service.name"] == "harness-lsp"
