"""Lists and reverts scoped to the client's folders, and one file's changes and revert
(issue 22; §7, §11 "Changes", "Scope"), through the real server and the real CLI.

Seen: from one VS Code window, Revert Run offered a CLI run of another repository, its
confirm named only relative paths, and clicking it rewrote files there."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from server.lsp.errors import CONFLICT, INVALID_PARAMS, NOT_FOUND
from tests.e2e.cli import call, calls, harness, script, user_config
from tests.e2e.lsp import HarnessClient, initialize_params, settings, wait_watching
from tests.e2e.test_server_changes import open_dirty
from tests.support.fake_llm import FakeLLM


@dataclass(frozen=True)
class Folders:
    one: Path
    two: Path
    other: Path  # not open in the client; its run was made by the CLI in the same store
    runs: dict[str, int]  # folder name -> run id


def cli_run(tmp: Path, ws: Path, store: Path, *turns: dict[str, Any]) -> int:
    """A CLI run with the after-edit diagnostics off (``user_config``): no test here is about
    diagnostics, and jedi-language-server made each of the module's three runs ~2.5 s longer."""
    path = script(tmp / f"{ws.name}-turns.json", *turns, {"content": "done"})
    config = str(user_config(tmp / "config").parents[1])
    args = ("run", "edit", "--script", path, "-w", ws, "--store", store, "--json")
    out = harness(*args, XDG_CONFIG_HOME=config)
    assert out.code == 0, out.stderr
    run_id: int = out.json()["runId"]
    return run_id


@dataclass(frozen=True)
class Made:
    live: Path  # the folders and the store the tests use, at the same paths every test
    pristine: Path  # their copy as the three CLI runs left them
    runs: dict[str, int]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    """The three folders and their CLI runs, made once for the module (three editing runs
    are most of a test's time); each test gets them back as they were, at the same paths
    (the store records them)."""
    base = tmp_path_factory.mktemp("scope")
    live, store = base / "live", base / "live" / "store" / "harness.db"
    runs = {}
    for name in ("one", "two", "other"):
        ws = live / name
        ws.mkdir(parents=True)
        (ws / "a.py").write_text(f"A = '{name}'\n")
        (ws / "b.py").write_text("B = 1\n")
        runs[name] = cli_run(
            base,
            ws,
            store,
            calls(call("edit_file", path="a.py", old="A =", new="A_RENAMED =")),
            calls(call("write_file", path="new/c.py", content="C = 1\n")),
        )
    shutil.copytree(live, base / "pristine", symlinks=True)
    return Made(live, base / "pristine", runs)


@pytest.fixture
async def folders(bare: HarnessClient, fake: FakeLLM, made: Made) -> Folders:
    shutil.rmtree(made.live)
    shutil.copytree(made.pristine, made.live, symlinks=True)
    one, two, other = (made.live / name for name in ("one", "two", "other"))
    store = made.live / "store" / "harness.db"
    await bare.initialize_session(initialize_params([one, two], settings(fake, store)))
    await wait_watching(bare)
    return Folders(one, two, other, dict(made.runs))


async def refused(client: HarnessClient, code: int, name: str, *arguments: Any) -> str:
    with pytest.raises(JsonRpcException) as caught:
        await client.command(name, *arguments)
    assert caught.value.code == code, caught.value
    return str(caught.value)


async def test_trace_runs_lists_the_clients_folders_unless_asked_for_all(
    bare: HarnessClient, folders: Folders
) -> None:
    runs = folders.runs
    listed = await bare.command("harness.trace.runs")
    assert [r["runId"] for r in listed] == [runs["two"], runs["one"]]
    every = await bare.command("harness.trace.runs", {"workspaceFolder": "*"})
    assert [r["runId"] for r in every] == [runs["other"], runs["two"], runs["one"]]
    named = await bare.command(
        "harness.trace.runs", {"workspaceFolder": folders.other.as_uri(), "limit": 5}
    )
    assert [(r["runId"], r["workspace"]) for r in named] == [
        (runs["other"], str(folders.other.resolve()))
    ]
    limited = await bare.command("harness.trace.runs", {"limit": 1})
    assert [r["runId"] for r in limited] == [runs["two"]]


async def test_reverting_a_run_of_another_folder_needs_that_folder_named(
    bare: HarnessClient, folders: Folders
) -> None:
    other, run_id = folders.other, folders.runs["other"]
    message = await refused(bare, CONFLICT, "harness.run.revert", {"runId": run_id})
    assert str(other.resolve()) in message and '"workspaceFolder"' in message
    # Naming one of the window's own folders does not unlock another's run.
    named_wrong = {"runId": run_id, "workspaceFolder": str(folders.one)}
    await refused(bare, CONFLICT, "harness.run.revert", named_wrong)
    for args in (
        {"runId": run_id, "path": "a.py"},
        {"runId": run_id, "path": "a.py", "force": True},
    ):
        await refused(bare, CONFLICT, "harness.run.revertFile", args)
    assert (other / "a.py").read_text() == "A_RENAMED = 'other'\n", "untouched"
    assert (other / "new" / "c.py").exists()
    assert bare.did_write == []

    result = await bare.command(
        "harness.run.revert", {"runId": run_id, "workspaceFolder": other.as_uri()}
    )
    assert result["workspace"] == str(other.resolve())
    assert (result["restored"], result["deleted"]) == (1, 1)
    assert (other / "a.py").read_text() == "A = 'other'\n"
    assert not (other / "new").exists()


async def test_a_run_of_an_open_folder_reverts_without_naming_it(
    bare: HarnessClient, folders: Folders
) -> None:
    result = await bare.command("harness.run.revert", {"runId": folders.runs["two"]})
    assert result["restored"] == 1
    assert (folders.two / "a.py").read_text() == "A = 'two'\n"


async def test_changes_give_each_file_before_and_now(bare: HarnessClient, folders: Folders) -> None:
    one = folders.one.resolve()
    changes = await bare.command("harness.run.changes", {"runId": folders.runs["one"]})
    assert [c.pop("toReview") for c in changes] == [1, 1]  # each file's hunks: issue 33
    assert [[h["after"] for h in c.pop("hunks")] for c in changes] == [
        ["A_RENAMED = 'one'\n"],
        ["C = 1\n"],
    ]
    assert changes == [
        {
            "path": "a.py",
            "uri": (one / "a.py").as_uri(),
            "status": "modified",
            "before": "A = 'one'\n",
            "after": "A_RENAMED = 'one'\n",
            "runIds": [folders.runs["one"]],
        },
        {
            "path": "new/c.py",
            "uri": (one / "new" / "c.py").as_uri(),
            "status": "added",
            "before": None,
            "after": "C = 1\n",
            "runIds": [folders.runs["one"]],
        },
    ]


async def test_revert_file_refuses_someone_elses_edit_unless_forced(
    bare: HarnessClient, folders: Folders
) -> None:
    one, run_id = folders.one, folders.runs["one"]
    (one / "a.py").write_text("A_RENAMED = 'the user'\n")
    args = {"runId": run_id, "path": "a.py"}
    result = await bare.command("harness.run.revertFile", args)
    assert (result["action"], result["path"]) == ("refused", "a.py")
    assert "changed since the run wrote it" in result["reason"]
    assert (one / "a.py").read_text() == "A_RENAMED = 'the user'\n"
    assert (one / "new" / "c.py").exists(), "one file only"

    forced = await bare.command("harness.run.revertFile", {**args, "force": True})
    assert forced["action"] == "restored"
    assert (one / "a.py").read_text() == "A = 'one'\n"
    created = await bare.command(
        "harness.run.revertFile", {"runId": run_id, "path": (one / "new" / "c.py").as_uri()}
    )
    assert created["action"] == "deleted" and not (one / "new").exists()
    resolved = one.resolve()
    assert bare.did_write == [(resolved / "a.py").as_uri(), (resolved / "new/c.py").as_uri()]
    assert await bare.command("harness.run.changes", {"runId": run_id}) == []


async def test_revert_file_never_overwrites_an_unsaved_buffer(
    bare: HarnessClient, folders: Folders
) -> None:
    a = folders.one / "a.py"
    open_dirty(bare, a, "# typed, unsaved\n")
    for force in (False, True):
        result = await bare.command(
            "harness.run.revertFile", {"runId": folders.runs["one"], "path": "a.py", "force": force}
        )
        assert result["action"] == "refused"
        assert "unsaved changes in the editor" in result["reason"]
    assert a.read_text() == "A_RENAMED = 'one'\n"


@pytest.mark.parametrize(
    ("name", "arguments", "code", "says"),
    [
        ("harness.run.changes", {"runId": "1"}, INVALID_PARAMS, "`runId`"),
        ("harness.run.changes", {"runId": 999}, NOT_FOUND, "no run 999"),
        ("harness.run.changes", {"runId": 1, "path": "a.py"}, INVALID_PARAMS, "`path`"),
        ("harness.run.revertFile", {"runId": 1}, INVALID_PARAMS, "`path` is required"),
        ("harness.run.revertFile", {"runId": 1, "path": 5}, INVALID_PARAMS, "`path`"),
        ("harness.run.revertFile", {"runId": 1, "path": ""}, INVALID_PARAMS, "`path`"),
        ("harness.run.revertFile", {"runId": 999, "path": "a.py"}, NOT_FOUND, "no run 999"),
        (
            "harness.run.revertFile",
            {"runId": 1, "path": "a.py", "force": "yes"},
            INVALID_PARAMS,
            "`force`",
        ),
        ("harness.trace.runs", {"workspaceFolder": "relative"}, INVALID_PARAMS, "absolute"),
        ("harness.trace.runs", {"workspaceFolder": 3}, INVALID_PARAMS, "`workspaceFolder`"),
    ],
)
async def test_bad_input_is_refused_and_the_server_keeps_serving(
    bare: HarnessClient,
    folders: Folders,
    name: str,
    arguments: dict[str, Any],
    code: int,
    says: str,
) -> None:
    message = await refused(bare, code, name, arguments)
    assert says in message
    assert (await bare.command("harness.status"))["runs"] == []


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "b.py", "new"])
async def test_revert_file_refuses_a_path_the_run_did_not_write(
    bare: HarnessClient, folders: Folders, path: str
) -> None:
    run_id = folders.runs["one"]
    message = await refused(
        bare, INVALID_PARAMS, "harness.run.revertFile", {"runId": run_id, "path": path}
    )
    assert "`path`" in message
    assert (folders.one / "b.py").read_text() == "B = 1\n"
    assert (folders.one / "a.py").read_text() == "A_RENAMED = 'one'\n"


async def test_reads_of_another_folders_run_are_refused_unless_named(
    bare: HarnessClient, folders: Folders
) -> None:
    """Issue 30, finding 15: a window on folders one and two read the events, the steps (the
    prompts, with file contents) and the changes (the current files) of a run in ``other``
    by guessing its id. Refused (Conflict) like a write, unless its folder is named."""
    other = folders.runs["other"]
    reads: list[tuple[str, dict[str, Any]]] = [
        ("harness.run.events", {"runId": other}),
        ("harness.run.events", {"conversationId": other}),
        ("harness.trace.run", {"runId": other}),
        ("harness.trace.step", {"runId": other, "step": 1}),
        ("harness.run.changes", {"runId": other}),
        ("harness.run.changes", {"conversationId": other}),
    ]
    for name, params in reads:
        said = await refused(bare, CONFLICT, name, params)
        assert f"cannot read run {other}" in said and str(folders.other) in said, said
    named = {"workspaceFolder": str(folders.other)}
    for name, params in reads:
        assert await bare.command(name, {**params, **named})
    mine = folders.runs["one"]
    assert await bare.command("harness.trace.step", {"runId": mine, "step": 1})
    assert (await bare.command("harness.run.events", {"runId": mine}))["events"]
