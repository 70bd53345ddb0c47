"""``harness acp`` as Zed, JetBrains and Neovim's agent plugins use it (issue 38), driven by
the ``agent-client-protocol`` package's own client against the fake model: the agent's
writes go through ``fs/write_text_file`` when the client offers it (never a refused one),
a command's output is in its ``tool_call_update``, the prompts are ``/`` commands, the
session has modes (ask, plan, code) whose plan arrives as ``plan`` entries, and
``session/load`` replays the user's resource links."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, RequestError, resource_link_block, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import ClientCapabilities, FileSystemCapabilities, PermissionOption, ToolCallUpdate

from harness.run.toolbox import PLAN_TOOLS
from harness.store import Store
from tests.e2e.acp_client import RecordingClient, acp_agent
from tests.support.fake_llm import FakeLLM
from tests.support.scripted_turns import call, turn

pytestmark = pytest.mark.timeout(120)

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
PLAN = "Here is the plan:\n\n1. Read src/a.py\n2. Fix add() to add\n3. Run the tests\n"


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text(BUGGY)
    prompts = ws / ".github" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "fixit.prompt.md").write_text(
        "---\ndescription: fix the bug in a file\nargument-hint: PATH\n---\n"
        "Fix the bug in $ARGUMENTS and keep its tests green.\n"
    )
    return ws


async def _allow(sid: str, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> str:
    return next(o.option_id for o in options if o.kind == "allow_once")


async def start(conn: ClientSideConnection, ws: Path, *, write: bool) -> str:
    fs = FileSystemCapabilities(read_text_file=True, write_text_file=write)
    await conn.initialize(
        protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities(fs=fs)
    )
    session = await conn.new_session(cwd=str(ws), mcp_servers=[])
    return session.session_id


WRITES = [
    turn(call("edit_file", path="src/a.py", old="a - b", new="a + b")),
    turn(call("write_file", path="src/new.py", content="NEW = 1\n")),
    turn(call("write_file", path=".vscode/settings.json", content="{}\n")),  # asks: denied
    {"content": "Done."},
]


async def test_writes_go_through_the_client_when_it_offers_them(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    ws = workspace(tmp_path)
    store = tmp_path / "store" / "harness.db"
    client = RecordingClient()  # denies every question
    async with acp_agent(client, fake_llm(WRITES).url, store) as conn:
        session_id = await start(conn, ws, write=True)
        done = await conn.prompt(session_id=session_id, prompt=[text_block("Fix add()")])
        assert done.stop_reason == "end_turn"
    assert client.writes == [
        (str(ws / "src" / "a.py"), FIXED),
        (str(ws / "src" / "new.py"), "NEW = 1\n"),
    ], "the two writes went through the editor; the denied one never reached it"
    assert not (ws / ".vscode").exists()
    assert (ws / "src" / "a.py").read_text() == FIXED
    edit = next(c for c in client.calls().values() if c["kind"] == "edit")
    assert any(c["type"] == "diff" for c in edit["content"]), edit
    opened = Store(store)  # the harness's own record, as for any write (revert)
    try:
        (run,) = opened.list_runs()
        edits = opened.run_edits(run.run_id)
    finally:
        opened.close()
    assert [(e.path, e.before, e.after) for e in edits] == [
        ("src/a.py", BUGGY.encode(), FIXED.encode()),
        ("src/new.py", None, b"NEW = 1\n"),
    ]


async def ask_mode(
    conn: ClientSideConnection, client: RecordingClient, sid: str, ws: Path, fake: FakeLLM
) -> None:
    client.updates.clear()
    asked_before = len(fake.requests)
    await conn.set_session_mode(session_id=sid, mode_id="ask")
    done = await conn.prompt(session_id=sid, prompt=[text_block("Does add() add?")])
    assert done.stop_reason == "end_turn"
    (refused,) = client.calls().values()
    assert refused["status"] == "failed" and "ask mode" in json.dumps(refused["content"])
    assert not (ws / "made-in-ask-mode").exists()
    offered = {t["function"]["name"] for t in fake.requests[asked_before]["tools"]}
    assert offered <= PLAN_TOOLS and "exec" not in offered
    assert "# Ask mode" in json.dumps(fake.requests[asked_before])
    assert client.of_kind("plan") == []  # an answer is not a plan
    with pytest.raises(RequestError):
        await conn.set_session_mode(session_id=sid, mode_id="yolo")


async def test_writes_stay_on_the_disk_when_the_client_does_not_offer_them(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    ws = workspace(tmp_path)
    client = RecordingClient()
    async with acp_agent(client, fake_llm(WRITES).url, tmp_path / "s" / "h.db") as conn:
        session_id = await start(conn, ws, write=False)
        await conn.prompt(session_id=session_id, prompt=[text_block("Fix add()")])
    assert client.writes == []
    assert (ws / "src" / "a.py").read_text() == FIXED
    assert (ws / "src" / "new.py").read_text() == "NEW = 1\n"


SESSION = [
    # /fixit src/a.py: a command whose output the editor shows
    turn(call("exec", argv=["sh", "-c", "echo hello-from-exec; echo oops >&2; exit 3"])),
    {"content": "The tests fail."},
    # plan mode: a write is refused, the plan is the answer
    turn(call("write_file", path="src/a.py", content="ruined\n")),
    {"content": PLAN},
    # code mode carries it out
    turn(call("edit_file", path="src/a.py", old="a - b", new="a + b")),
    {"content": "Fixed."},
    # ask mode: a command is refused, the answer is words
    turn(call("exec", argv=["touch", "made-in-ask-mode"])),
    {"content": "add() adds now."},
]


async def test_commands_exec_output_modes_and_plan(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    ws = workspace(tmp_path)
    fake = fake_llm(SESSION)
    client = RecordingClient()
    client.answer = _allow
    store = tmp_path / "s" / "h.db"
    async with acp_agent(client, fake.url, store) as conn:
        fs = FileSystemCapabilities(read_text_file=True)
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities(fs=fs)
        )
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        assert session.modes is not None and session.modes.current_mode_id == "code"
        assert [m.id for m in session.modes.available_modes] == ["ask", "plan", "code"]
        sid = session.session_id
        commands_listed(client)
        await slash_command_with_output(conn, client, sid, fake)
        await plan_mode(conn, client, sid, ws)
        await carried_out(conn, client, sid, ws)
        await ask_mode(conn, client, sid, ws, fake)
    opened = Store(store)  # the trace says whose prompt the first goal was
    try:
        first = min(run.run_id for run in opened.list_runs())
        marks = [e["detail"] for e in opened.context_events(first, "prompt")]
    finally:
        opened.close()
    assert [(m["name"], m["source"]) for m in marks] == [("fixit", "repository")]


def commands_listed(client: RecordingClient) -> None:
    (listed,) = client.of_kind("available_commands_update")
    commands = {c["name"]: c for c in listed["availableCommands"]}
    assert {"plan", "fixit"} <= set(commands)
    fixit = commands["fixit"]
    assert "repository" in fixit["description"] and "fixit.prompt.md" in fixit["description"]
    assert "fix the bug in a file" in fixit["description"]
    assert fixit["input"] == {"hint": "PATH"}


async def slash_command_with_output(
    conn: ClientSideConnection, client: RecordingClient, sid: str, fake: FakeLLM
) -> None:
    done = await conn.prompt(session_id=sid, prompt=[text_block("/fixit src/a.py")])
    assert done.stop_reason == "end_turn"
    asked = json.dumps(fake.requests[0])
    assert "Fix the bug in src/a.py and keep its tests green." in asked
    assert "/fixit" not in asked
    (ran,) = client.calls().values()
    assert ran["kind"] == "execute" and ran["status"] == "failed"
    shown = json.dumps(ran["content"])
    assert "hello-from-exec" in shown and "oops" in shown and "exit" in shown, shown
    texts = [c["content"]["text"] for c in ran["content"] if c["type"] == "content"]
    assert not any(t.startswith(("ok:", "failed:", "refused:")) for t in texts), texts


async def plan_mode(
    conn: ClientSideConnection, client: RecordingClient, sid: str, ws: Path
) -> None:
    client.updates.clear()
    await conn.set_session_mode(session_id=sid, mode_id="plan")
    done = await conn.prompt(session_id=sid, prompt=[text_block("Fix add()")])
    assert done.stop_reason == "end_turn"
    (refused,) = client.calls().values()
    assert refused["status"] == "failed" and "plan mode" in json.dumps(refused["content"])
    assert (ws / "src" / "a.py").read_text() == BUGGY, "the file is untouched"
    (plan,) = client.of_kind("plan")
    assert [e["content"] for e in plan["entries"]] == [
        "Read src/a.py",
        "Fix add() to add",
        "Run the tests",
    ]
    assert {e["status"] for e in plan["entries"]} == {"pending"}


async def carried_out(
    conn: ClientSideConnection, client: RecordingClient, sid: str, ws: Path
) -> None:
    client.updates.clear()
    await conn.set_session_mode(session_id=sid, mode_id="code")
    done = await conn.prompt(session_id=sid, prompt=[text_block("Go ahead")])
    assert done.stop_reason == "end_turn"
    assert (ws / "src" / "a.py").read_text() == FIXED
    plans = client.of_kind("plan")
    assert plans[0]["entries"][0]["status"] == "in_progress"
    assert {e["status"] for e in plans[-1]["entries"]} == {"completed"}


async def test_a_chosen_model_and_a_replay_that_keeps_the_users_resource_links(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    ws = workspace(tmp_path)
    store = tmp_path / "s" / "h.db"
    fake = fake_llm([{"content": "It subtracts."}])
    link = resource_link_block("a.py", (ws / "src" / "a.py").as_uri())
    async with acp_agent(RecordingClient(), fake.url, store, HARNESS_MODELS="m2, m3") as conn:
        fs = FileSystemCapabilities(read_text_file=True)
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities(fs=fs)
        )
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        (model,) = [o.model_dump(by_alias=True) for o in session.config_options or ()]
        assert model["category"] == "model" and model["currentValue"] == "m"
        assert [o["value"] for o in model["options"]] == ["m", "m2", "m3"]
        with pytest.raises(RequestError) as refused:
            await conn.set_config_option(config_id="model", session_id=sid, value="gpt-x")
        assert "not one of m, m2, m3" in json.dumps(refused.value.data)
        await conn.set_config_option(config_id="model", session_id=sid, value="m2")
        await conn.prompt(session_id=sid, prompt=[text_block("What is wrong?"), link])
    assert fake.requests[0]["model"] == "m2"
    replay = RecordingClient()
    async with acp_agent(replay, fake.url, store) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.load_session(cwd=str(ws), session_id=sid, mcp_servers=[])
    said = [u["content"] for u in replay.of_kind("user_message_chunk")]
    assert said[0] == {"type": "text", "text": "What is wrong?"}
    assert said[1]["type"] == "resource_link", said
    assert said[1]["uri"] == (ws / "src" / "a.py").as_uri() and said[1]["name"] == "src/a.py"
