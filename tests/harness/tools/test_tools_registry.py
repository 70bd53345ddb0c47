"""The registry and ``dispatch``: schemas as the model sees them, and every kind of bad call
turned into an observation (never an exception, except cancellation)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.tools import all_tools, dispatch, tool_schemas
from harness.tools.base import BaseTool, Tool, ToolArgs, ToolContext
from harness.types import ToolCall, ToolResult
from tests.support import hostile_paths

if TYPE_CHECKING:
    from tests.harness.tools.conftest import ToolEnv

CORE = ["read_file", "grep", "find", "list_dir", "write_file", "edit_file", "exec"]


def test_all_tools_and_schemas():
    tools = all_tools()
    assert list(tools)[: len(CORE)] == CORE
    schemas = {s.name: s for s in tool_schemas(tools)}
    assert set(schemas) == set(tools)
    read = schemas["read_file"]
    assert read.parameters["required"] == ["path"]
    assert set(read.parameters["properties"]) == {"path", "offset", "limit"}
    assert schemas["exec"].parameters["properties"]["argv"]["type"] == "array"
    assert set(schemas["grep"].parameters["properties"]) == {"pattern", "path_glob"}
    assert schemas["find"].parameters["required"] == ["name_glob"]
    assert set(schemas["edit_file"].parameters["required"]) == {"path", "old", "new"}
    for schema in schemas.values():
        assert len(schema.description) > 40


def test_a_description_is_its_docstring_as_one_paragraph_with_the_limits_filled_in():
    tools = all_tools()
    for tool in tools.values():
        assert "\n" not in tool.description and "  " not in tool.description
        assert "{" not in tool.description  # every fact was filled in
    assert "Prints up to 200 sorted relative paths" in tools["find"].description
    assert "at most 50 lines" in tools["grep"].description
    assert "defaults to 120 (max 600)" in tools["exec"].description
    assert "keeps the first 4,000 and last 4,000 chars" in tools["exec"].description


def test_a_tool_without_a_docstring_is_refused_at_import():
    class _Args(ToolArgs):
        pass

    with pytest.raises(RuntimeError, match="tool nameless has no description"):

        class _Nameless(BaseTool, name="nameless", args=_Args):
            pass


@pytest.mark.parametrize(
    ("name", "arguments", "fragments"),
    [
        pytest.param("rm_rf", {}, ["unknown tool `rm_rf`", "read_file", "exec"], id="unknown"),
        pytest.param("read_file", {}, ["`path` is required"], id="missing"),
        pytest.param("read_file", {"path": 3}, ["`path`", "string"], id="ill-typed"),
        pytest.param(
            "read_file", {"path": "a", "offset": "ten"}, ["`offset`", "integer"], id="bad-int"
        ),
        pytest.param("read_file", {"path": "a", "limit": 0}, ["`limit`", "greater"], id="limit-0"),
        pytest.param(
            "read_file", {"path": "a", "lines": 3}, ["`lines` is not a parameter"], id="extra"
        ),
        pytest.param("grep", {"pattern": ""}, ["`pattern`"], id="empty-pattern"),
        pytest.param("edit_file", {"path": "a"}, ["`old` is required", "`new`"], id="edit-missing"),
    ],
)
async def test_bad_calls_are_observations(
    tool_env: ToolEnv, name: str, arguments: dict[str, Any], fragments: list[str]
):
    result = await tool_env.call(name, **arguments)
    assert not result.ok
    assert "error:" in result.text
    for fragment in fragments:
        assert fragment in result.text


async def test_arguments_that_were_not_json(tool_env: ToolEnv):
    call = ToolCall("1", "read_file", {}, arguments_error="Expecting value: line 1 column 1")
    result = await dispatch(call, tool_env.tools, tool_env.ctx)
    assert not result.ok and "not a JSON object" in result.text and "Expecting value" in result.text


class _ExplodingArgs(ToolArgs):
    pass


class Exploding:
    name: ClassVar[str] = "explode"
    description: ClassVar[str] = "raises"
    Args: ClassVar[type[ToolArgs]] = _ExplodingArgs

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        raise self.exc


async def test_unexpected_exception_is_an_internal_error(tool_env: ToolEnv):
    tools: dict[str, Tool] = {"explode": Exploding(KeyError("boom"))}
    result = await dispatch(ToolCall("1", "explode", {}), tools, tool_env.ctx)
    assert not result.ok and "internal error" in result.text and "KeyError" in result.text


async def test_cancellation_propagates(tool_env: ToolEnv):
    tools: dict[str, Tool] = {"explode": Exploding(asyncio.CancelledError())}
    with pytest.raises(asyncio.CancelledError):
        await dispatch(ToolCall("1", "explode", {}), tools, tool_env.ctx)


# -- hostile paths through every path-taking tool --------------------------------------------

SEGMENTS = st.sampled_from([*hostile_paths.SEGMENTS, "out", "out_file", "sentinel.txt", ".env"])
HOSTILE = st.builds(
    lambda lead, parts: lead + "/".join(parts),
    st.sampled_from(["", "/", "../", "~/", "./"]),
    st.lists(SEGMENTS, min_size=1, max_size=5),
)
CALLS = st.sampled_from(["read_file", "write_file", "edit_file", "list_dir", "grep"])


def _tree(path: Path) -> dict[str, bytes | None]:
    return {
        str(p): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
        for p in sorted(path.rglob("*"))
    }


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tool=CALLS, path=HOSTILE)
def test_hostile_paths_never_touch_the_outside(tool_env: ToolEnv, tool: str, path: str):
    outside = tool_env.root.parent / "outside"
    if not outside.exists():
        outside.mkdir()
        (outside / "sentinel.txt").write_text("SENTINEL")
        tool_env.write("src/a.py", "x = 1\n")
        tool_env.write(".env", "SECRET=1\n")
        (tool_env.root / ".git").mkdir()
        (tool_env.root / ".git" / "config").write_text("[core]\n")
        (tool_env.root / "out").symlink_to(outside, target_is_directory=True)
        (tool_env.root / "out_file").symlink_to(outside / "sentinel.txt")
    before = _tree(outside)
    git_before = (tool_env.root / ".git" / "config").read_bytes()
    arguments: dict[str, Any] = {
        "read_file": {"path": path},
        "write_file": {"path": path, "content": "pwned"},
        "edit_file": {"path": path, "old": "x", "new": "pwned"},
        "list_dir": {"path": path},
        "grep": {"pattern": "SENTINEL|SECRET", "path_glob": path},
    }[tool]
    result = asyncio.run(tool_env.call(tool, **arguments))
    assert "SENTINEL" not in result.text.replace(arguments.get("pattern", ""), "")
    assert "SECRET=1" not in result.text
    assert _tree(outside) == before
    assert (tool_env.root / ".git" / "config").read_bytes() == git_before
