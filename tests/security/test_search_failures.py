"""Still open from issue 30's previous round: "when ripgrep fails on very deep paths
`find`/`grep` answer "no files match"; `grep` with a NUL in the pattern is an internal error
with a traceback".

The real command line replays the calls on a real tree: a file 300 directories down (a
path of 6,300 characters, past Linux's PATH_MAX: rg cannot open it and exits 2) beside an
ordinary one. The answer still lists what rg found, and says it is incomplete and why. A NUL
in the pattern (or in ``path_glob``) is an observation naming the character; the run goes on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.scripted_cli import scripted_run
from tests.support.scripted_turns import call, turn

DEPTH = 300
NAME = "d" * 20


def _deep_tree(ws: Path) -> None:
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "top.py").write_text("needle = 1\n")
    fd = os.open(ws, os.O_RDONLY)
    try:
        for _ in range(DEPTH):  # by directory fd: the path itself is too long to name
            os.mkdir(NAME, dir_fd=fd)
            deeper = os.open(NAME, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = deeper
        out = os.open("deep.py", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
        os.write(out, b"needle = 2\n")
        os.close(out)
    finally:
        os.close(fd)


def test_a_search_rg_could_not_finish_says_so(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _deep_tree(ws)
    turns = [
        turn(call("find", name_glob="deep.py")),
        turn(call("find", name_glob="*.py")),
        turn(call("grep", pattern="needle")),
        {"content": "ok"},
    ]
    run = scripted_run(ws, tmp_path, turns)
    nothing = run.result(1)
    assert "no files match `deep.py`" in nothing
    assert "the answer is incomplete: ripgrep could not search" in nothing, nothing
    assert "File name too long (os error 36)" in nothing, nothing
    some = run.result(2)
    assert "src/top.py" in some and "the answer is incomplete" in some, some
    grep = run.result(3)
    assert "src/top.py:1: needle = 1" in grep and "the answer is incomplete" in grep, grep


def test_a_nul_in_the_pattern_is_an_observation(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("a = 1\n")
    turns = [
        turn(call("grep", pattern="a\0b"), call("grep", pattern="a", path_glob="src\0x")),
        turn(call("read_file", path="src/a.py")),
        {"content": "ok"},
    ]
    run = scripted_run(ws, tmp_path, turns)
    first = run.result(1)
    assert "the pattern holds a NUL character" in first, first
    assert "Traceback" not in first and "internal error" not in first, first
    assert "a = 1" in run.result(2), "the run went on"
    assert json.loads(run.done.stdout)["outcome"] == "finished", run.done.stdout
