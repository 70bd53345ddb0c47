"""Diagnostics after a turn's writes (§14, issue 32) through the real jedi-language-server:
each file's text before and after are asked at once, and all written files at once, so a
turn pays one of jedi's 1 s per-document debounces, not two per file — with the same
report (jedi's diagnostics are ``compile()``'s syntax errors: the text and the file name).

Seen: every CLI run that edited a .py file waited ~3 s more than with
``diagnosticsAfterEdit = "off"`` (4.0 s against 1.1 s)."""

from __future__ import annotations

import time
from collections.abc import Callable

from harness.semantic.after import after_turn
from harness.semantic.config import jedi_server, parse_semantic
from harness.types import FileWrite
from tests.support.tool_env import ToolEnv

DEBOUNCE_S = 1.0  # jedi-language-server publishes a document's diagnostics 1 s after opening
GOOD = b"A = 1\n"
BROKEN = "A = (\n"


async def _warm(env: ToolEnv) -> None:
    """Start the server (its start is not what is measured)."""
    assert env.ctx.semantic is not None
    await env.ctx.semantic.diagnostics("warm.py", "W = 1\n", 5_000)


async def _turn(env: ToolEnv, *writes: FileWrite) -> tuple[str | None, float]:
    start = time.monotonic()
    entry = await after_turn(
        env.ctx.semantic, env.workspace, env.ctx.gate, writes=writes, step=1, wait_ms=5_000
    )
    return (entry.text if entry else None), time.monotonic() - start


async def test_a_turns_files_before_and_after_cost_one_debounce(
    semantic_env: Callable[..., ToolEnv],
) -> None:
    env = semantic_env()
    env.write("a.py", BROKEN)
    env.write("pkg/b.py", "def f(:\n")
    env.write("c.py", "C = 1\n")
    await _warm(env)
    writes = (
        FileWrite("a.py", GOOD, BROKEN.encode()),
        FileWrite("pkg/b.py", GOOD, b"def f(:\n"),
        FileWrite("c.py", None, b"C = 1\n"),
    )
    said, took = await _turn(env, *writes)
    assert said is not None
    assert said.splitlines()[0] == "[diagnostics] (after the writes at step 1)"
    assert "a.py:1" in said and "'(' was never closed (a.py, line 1)" in said
    assert "pkg/b.py:1" in said and "(b.py, line 1)" in said
    assert "c.py" not in said.replace("b.py", "")
    # one after the other this is five debounces (a before, a after, b before, b after, c)
    assert took < 2 * DEBOUNCE_S, took


async def test_an_error_the_file_had_before_is_not_reported_again(
    semantic_env: Callable[..., ToolEnv],
) -> None:
    """The before text is asked under a document of its own at the same time; its
    diagnostics must say the same words as the file's own would, or the old error would
    look new."""
    env = semantic_env()
    env.write("a.py", BROKEN + "X = 2\n")
    await _warm(env)
    said, _ = await _turn(env, FileWrite("a.py", BROKEN.encode(), (BROKEN + "X = 2\n").encode()))
    assert said is None


async def test_a_server_the_user_configured_is_asked_one_text_at_a_time(
    semantic_env: Callable[..., ToolEnv],
) -> None:
    """Whether another server's diagnostics depend on where the document is is unknown, so
    the two texts of one file go to it under the file's own URI, one after the other."""
    bundled = jedi_server()
    assert bundled is not None
    config = parse_semantic(
        {"languages": {"python": {"server": list(bundled.argv), "extensions": [".py"]}}}, "t"
    )
    assert not config.languages[0].text_only_diagnostics
    env = semantic_env(config)
    env.write("a.py", BROKEN)
    await _warm(env)
    said, took = await _turn(env, FileWrite("a.py", GOOD, BROKEN.encode()))
    assert said is not None and "'(' was never closed (a.py, line 1)" in said
    assert took >= 2 * DEBOUNCE_S, took
