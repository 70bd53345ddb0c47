"""The model's ``remember`` and ``forget`` tools, dispatched the way the loop does, over a
real store: results carry the header, the outcome text and the trace events."""

from __future__ import annotations

from pathlib import Path

from harness.contract import MemoryLimits
from harness.memory import RunMemory
from harness.store import Store
from harness.tools import tool_schemas
from harness.tools.memory import MEMORY_TOOLS, Forget, Remember
from tests.harness.tools.conftest import MakeToolEnv, ToolEnv


def with_memory(env: ToolEnv, tmp_path: Path) -> Store:
    store = Store(tmp_path / "store.db")
    run = store.create_run(
        goal="g", workspace=str(env.root), provider="p", model="m", contract="{}"
    )
    env.ctx.run_id = run
    env.ctx.memory = RunMemory(store, env.root, run, MemoryLimits(), trusted=True)
    return store


def test_memory_tools_are_registered_with_their_parameters(tool_env: ToolEnv) -> None:
    assert (Remember, Forget) == MEMORY_TOOLS
    schemas = {s.name: s for s in tool_schemas(tool_env.tools)}
    remember = schemas["remember"].parameters
    assert set(remember["properties"]) == {"key", "value", "scope"}
    assert remember["required"] == ["key", "value"]
    assert remember["properties"]["scope"]["enum"] == ["workspace", "global"]
    assert set(schemas["forget"].parameters["properties"]) == {"key", "scope"}


async def test_remember_writes_a_note_and_reports_it(
    make_tool_env: MakeToolEnv, tmp_path: Path
) -> None:
    env = make_tool_env()
    store = with_memory(env, tmp_path)
    env.ctx.step = 3
    result = await env.call("remember", key="build-command", value="make test")
    assert result.ok and result.name == "remember" and result.target == "build-command"
    assert result.text.startswith("[remember build-command]\nstored `build-command`")
    assert [e.kind for e in result.events] == ["memory_write"]
    assert not result.writes and not result.policy  # not a path act
    note = store.memory_get(env.root, "build-command")
    assert note is not None and (note.run_id, note.step) == (env.ctx.run_id, 3)
    assert not (env.root / ".harness").exists()


async def test_remember_and_forget_of_a_pinned_note_tell_the_model(
    make_tool_env: MakeToolEnv, tmp_path: Path
) -> None:
    env = make_tool_env()
    store = with_memory(env, tmp_path)
    store.memory_write(env.root, "retries", "3", None, None, "decision", pinned=True)
    remembered = await env.call("remember", key="retries", value="5")
    assert not remembered.ok
    assert "`retries` is the user's note (pinned by the user)" in remembered.text
    forgotten = await env.call("forget", key="retries")
    assert (
        not forgotten.ok and "`retries` is the user's note (pinned by the user)" in forgotten.text
    )
    assert [e.kind for e in forgotten.events] == ["memory_refused"]


async def test_forget_and_global_scope(make_tool_env: MakeToolEnv, tmp_path: Path) -> None:
    env = make_tool_env()
    store = with_memory(env, tmp_path)
    await env.call("remember", key="style", value="small diffs", scope="global")
    assert store.memory_get("global", "style") is not None
    missing = await env.call("forget", key="style")
    assert not missing.ok and "there is no note `style`" in missing.text
    gone = await env.call("forget", key="style", scope="global")
    assert gone.ok and gone.text.startswith("[forget style]\nforgot `style`")
    assert store.memory_get("global", "style") is None


async def test_bad_arguments_are_observations(make_tool_env: MakeToolEnv, tmp_path: Path) -> None:
    env = make_tool_env()
    with_memory(env, tmp_path)
    bad_scope = await env.call("remember", key="k", value="v", scope="galaxy")
    assert not bad_scope.ok and "scope" in bad_scope.text
    bad_key = await env.call("remember", key="two\nlines", value="v")
    assert not bad_key.ok and bad_key.target == "two\\nlines"
    assert "control" in bad_key.text
    long_key = await env.call("forget", key="k" * 5_000)
    assert not long_key.ok and len(long_key.target) <= 100


async def test_without_memory_the_tools_say_so(tool_env: ToolEnv) -> None:
    assert tool_env.ctx.memory is None
    for name, args in (("remember", {"key": "k", "value": "v"}), ("forget", {"key": "k"})):
        result = await tool_env.call(name, **args)
        assert not result.ok and "memory is not available" in result.text
