"""Any LSP editor, driven as Helix drives a language server (issue 37): a client with
Helix's capabilities — no ``experimental.harness.approvals``, no ``window.showMessage``,
and ``window/showMessageRequest`` answered with MethodNotFound (helix#4699).

An approval such a client cannot answer is **unavailable**: refused, recorded, the model
told, the run goes on, the server still answering. Code actions offered on a diagnostic and
on a selection start a run with that context attached."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Union

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from tests.e2e.lsp import (
    SERVER_COMMAND,
    HarnessClient,
    call,
    client_factory,
    close,
    plain,
    server_env,
    settings,
    turn,
    wait_watching,
)
from tests.support.fake_llm import FakeLLM
from tests.support.transcript import request_text

PRINT_RAN = [sys.executable, "-c", "print('the command ran')"]
FIX = "Harness: fix this diagnostic"
ASK = "Harness: ask about the selection…"


def helix_capabilities() -> types.ClientCapabilities:
    """What Helix declares (helix-lsp/src/client.rs), in the parts the harness reads."""
    kinds = ["", "quickfix", "refactor", "refactor.extract", "refactor.rewrite", "source"]
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_folders=True,
            configuration=True,
            execute_command=types.ExecuteCommandClientCapabilities(dynamic_registration=False),
        ),
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=kinds)
                ),
                is_preferred_support=True,
                data_support=True,
            ),
        ),
        window=types.WindowClientCapabilities(work_done_progress=True),
    )


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND,
        client_factory=lambda: client_factory(dialogs=False),
        server_env=server_env(),
    ),
    name="helix",
)
async def helix_fixture(
    lsp_client: HarnessClient, ws: Path, fake: FakeLLM, store: Path
) -> AsyncIterator[None]:
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=helix_capabilities(),
            client_info=types.ClientInfo(name="helix", version="25.07"),
            root_uri=ws.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=ws.as_uri(), name=ws.name)],
            initialization_options=settings(fake, store),
        )
    )
    await wait_watching(lsp_client)
    yield
    await close(lsp_client)


def approvals_of(client: HarnessClient, run_id: int) -> list[dict[str, Any]]:
    return [
        e
        for e in client.events
        if e["runId"] == run_id and e["kind"] == "approval" and "decision" in e
    ]


async def test_an_approval_helix_cannot_answer_is_refused_as_unavailable(
    helix: HarnessClient, fake: FakeLLM
) -> None:
    fake.add_turns(
        turn(call("exec", argv=PRINT_RAN)),
        turn(call("exec", argv=[*PRINT_RAN, "again"])),
        {"content": "done"},
    )
    run_id = (await helix.command("harness.run", {"goal": "run it"}))["runId"]
    finished = await helix.wait_finished(run_id)
    assert finished["outcome"] == "finished", "the run goes on"

    decided = approvals_of(helix, run_id)
    assert [e["decision"] for e in decided] == ["unavailable", "unavailable"], "recorded"
    assert len(helix.approvals) == 1, "MethodNotFound once: the server does not ask again"
    step = await helix.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "approval was not available" in step["result"]
    assert "exit code" not in step["result"], "it never ran"
    assert "approval was not available" in request_text(fake.requests[1]), "the model is told"
    assert any("cannot answer approvals" in w for w in helix.warnings()), helix.warnings()
    status = await helix.command("harness.status")
    assert status["runs"] == [], "the server still answers, nothing waits"


def open_file(client: HarnessClient, path: Path) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=path.read_text()
            )
        )
    )
    return uri


def whole(line_from: int, line_to: int) -> types.Range:
    return types.Range(
        start=types.Position(line=line_from, character=0),
        end=types.Position(line=line_to, character=0),
    )


def read_actions_as_lsp_does(client: HarnessClient) -> None:
    """lsprotocol reads every ``{command: …}`` as a Command, even a CodeAction whose
    ``command`` is an object (its ``_code_action_hook``); LSP tells them apart by the type
    of ``command``, as Helix and every editor do."""
    converter = client.protocol._converter

    def structure(value: Any, _: Any) -> types.Command | types.CodeAction:
        if isinstance(value.get("command"), str):
            return converter.structure(value, types.Command)
        return converter.structure(value, types.CodeAction)

    converter.register_structure_hook(types.Command | types.CodeAction, structure)
    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007


async def actions(
    client: HarnessClient, uri: str, where: types.Range, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    read_actions_as_lsp_does(client)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=where,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def run_action(client: HarnessClient, action: types.CodeAction) -> int:
    assert action.command is not None and action.command.command == "harness.codeAction"
    started = await client.command("harness.codeAction", *plain(action.command.arguments))
    run_id: int = started["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    return run_id


async def test_fix_this_diagnostic_starts_a_run_with_the_diagnostic_and_the_lines(
    helix: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    fake.add_turns({"content": "fixed"})
    uri = open_file(helix, ws / "src" / "a.py")
    bug = types.Diagnostic(
        range=types.Range(
            start=types.Position(line=1, character=11), end=types.Position(line=1, character=16)
        ),
        message="add() subtracts its arguments",
        source="reviewer",
        code="W42",
    )
    cursor = types.Range(start=bug.range.start, end=bug.range.start)
    offered = await actions(helix, uri, cursor, [bug])
    (fix,) = [a for a in offered if a.title == FIX]
    assert fix.kind == types.CodeActionKind.QuickFix
    assert ASK not in [a.title for a in offered], "a cursor is no selection"

    run_id = await run_action(helix, fix)
    told = [m.message for m in helix.messages if m.type == types.MessageType.Info]
    assert f"harness: run {run_id} finished · 1 step: fixed" in told, "the end is announced"
    sent = request_text(fake.requests[0])
    assert "add() subtracts its arguments" in sent, "the diagnostic reached the model"
    assert "W42" in sent and "reviewer" in sent
    assert "return a - b  # BUG" in sent, "the lines it is on are attached"


async def test_ask_about_the_selection_without_dialogs_uses_a_default_goal(
    helix: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    fake.add_turns({"content": "it subtracts"})
    uri = open_file(helix, ws / "src" / "a.py")
    offered = await actions(helix, uri, whole(0, 2), [])
    (ask,) = [a for a in offered if a.title == ASK]
    assert FIX not in [a.title for a in offered], "no diagnostic, nothing to fix"

    await run_action(helix, ask)
    sent = request_text(fake.requests[0])
    assert "src/a.py" in sent and "lines 1–2" in sent, "the selection is named"
    assert "def add(a, b):" in sent and "return a - b" in sent, "and attached"


async def test_a_harness_comment_on_the_line_is_the_goal(
    helix: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    fake.add_turns({"content": "renamed"})
    source = ws / "src" / "a.py"
    source.write_text("def add(a, b):  # harness: rename add to plus everywhere\n    return a\n")
    uri = open_file(helix, source)
    (ask,) = [a for a in await actions(helix, uri, whole(0, 1), []) if a.title == ASK]

    run_id = await run_action(helix, ask)
    assert "rename add to plus everywhere" in request_text(fake.requests[0])
    assert helix.approvals == [], "nothing was asked: the comment said it"
    runs = await helix.command("harness.trace.runs", {})
    goal = next(r["goal"] for r in runs if r["runId"] == run_id)
    assert goal.startswith("rename add to plus everywhere")


async def test_the_run_reports_progress_with_steps_and_tokens(
    helix: HarnessClient, fake: FakeLLM
) -> None:
    fake.add_turns(turn(call("read_file", path="src/a.py")), {"content": "read"})
    run_id = (await helix.command("harness.run", {"goal": "read a"}))["runId"]
    await helix.wait_finished(run_id)
    (token,) = helix.progress_reports
    values = helix.progress_reports[token]
    assert isinstance(values[0], types.WorkDoneProgressBegin)
    assert isinstance(values[-1], types.WorkDoneProgressEnd)
    reports = [v.message or "" for v in values if isinstance(v, types.WorkDoneProgressReport)]
    assert any(r.startswith("step 2/") and "tokens" in r for r in reports), reports


async def test_ask_in_an_editor_with_dialogs_runs_the_chosen_question_or_nothing(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    fake.add_turns({"content": "no bugs"})
    uri = open_file(client, ws / "src" / "a.py")
    (ask,) = [a for a in await actions(client, uri, whole(0, 2), []) if a.title == ASK]
    assert ask.command is not None
    client.answers = [None, "Find bugs"]  # dismissed first: no run
    assert await client.command("harness.codeAction", *plain(ask.command.arguments)) is None
    assert fake.requests == []

    run_id = await run_action(client, ask)
    asked = client.approvals[-1]
    assert [a.title for a in asked.actions or []] == [
        "Explain it",
        "Find bugs",
        "Write tests",
        "Simplify it",
    ]
    assert "src/a.py, lines 1–2" in asked.message
    runs = await client.command("harness.trace.runs", {})
    goal = next(r["goal"] for r in runs if r["runId"] == run_id)
    assert goal == "Find the bugs in the code in src/a.py, lines 1–2 and fix them."
