"""The semantic tools through the real command line (§14): ``harness run`` with a scripted
model calling them, answered by the real ``jedi-language-server`` the harness starts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.scripted_cli import _env, scripted_run
from tests.support.scripted_turns import call, turn

A = "def total(items):\n    return sum(items)\n\n\nprint(total([1, 2]))\n"
B = "from a import total\n\nx = total([3])  # total\n"


def _ws(tmp: Path) -> Path:
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "a.py").write_text(A)
    (ws / "b.py").write_text(B)
    return ws


def test_rename_and_references_through_the_cli(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    run = scripted_run(
        ws,
        tmp_path,
        [
            turn(call("references", symbol="total", path="a.py", line_content="def total(")),
            turn(
                call(
                    "rename_symbol",
                    symbol="total",
                    new_name="sum_items",
                    path="a.py",
                    line_content="def total(items):",
                )
            ),
            {"content": "done"},
        ],
        "--yes",
    )
    refs = run.result(1)
    (event,) = [e["detail"] for e in run.step(1)["events"] if e["kind"] == "semantic"]
    assert (event["backend"], event["server"]) == ("server", "jedi-language-server")
    assert event["query"] == {"symbol": "total", "path": "a.py", "line_content": "def total("}
    assert set(event["listed"]) == {"a.py", "b.py"}, "the hashes the staleness check compares"
    assert refs.splitlines()[0] == "[references total (a.py)]"
    assert "a.py:1: def total(items):  (definition)" in refs
    assert "b.py:3: x = total([3])  # total" in refs
    renamed = run.result(2)
    assert renamed.startswith("[renamed total → sum_items] 4 places in 2 files"), renamed
    assert (ws / "b.py").read_text() == "from a import sum_items\n\nx = sum_items([3])  # total\n"
    assert (ws / "a.py").read_text() == A.replace("total", "sum_items")


def test_diagnostics_once_after_a_turn_that_broke_the_syntax(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    (tmp_path / "config" / "harness").mkdir(parents=True)
    (tmp_path / "config" / "harness" / "policy.toml").write_text(
        "[semantic]\ndiagnosticsWaitMs = 20000\n"
    )
    run = scripted_run(
        ws,
        tmp_path,
        [
            turn(call("read_file", path="b.py")),
            turn(call("edit_file", path="a.py", old="def total(items):", new="def total(items:")),
            turn(call("read_file", path="b.py")),
            {"content": "done"},
        ],
        "--yes",
    )
    assert "[diagnostics]" not in run.prompt_text(2)  # a turn that wrote nothing adds none
    entry = "[diagnostics] (after the writes at step 2)\na.py:1:1 error compile: SyntaxError"
    assert entry in run.prompt_text(3), run.prompt_text(3)
    assert run.prompt_text(4).count("[diagnostics]") == 1  # once, not again per turn


def test_harness_revert_undoes_a_rename(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    run = scripted_run(
        ws,
        tmp_path,
        [
            turn(
                call(
                    "rename_symbol",
                    symbol="total",
                    new_name="sum_items",
                    path="b.py",
                    line_content="x = total([3])",
                )
            ),
            {"content": "done"},
        ],
        "--yes",
    )
    assert (ws / "a.py").read_text() != A
    done = subprocess.run(
        [run.python, "-m", "harness", "revert", "1", "--store", str(run.store), "--json"],
        capture_output=True, text=True, env=_env(tmp_path), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (ws / "a.py").read_text() == A
    assert (ws / "b.py").read_text() == B


def test_an_unchanged_references_answer_again_is_a_pointer(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    again = call("references", symbol="total", path="a.py", line_content="def total(")
    run = scripted_run(ws, tmp_path, [turn(again), turn(again), {"content": "done"}], "--yes")
    prompt = run.prompt_text(3)
    assert prompt.count("b.py:3: x = total([3])  # total") == 1, prompt
    assert "[references total (a.py)] (unchanged since the references at step 1" in prompt


def test_a_references_answer_whose_listed_file_changed_is_refreshed(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    refs = call("references", symbol="total", path="a.py", line_content="def total(")
    moved = call(
        "edit_file",
        path="b.py",
        old="from a import total\n",
        new="import os\nfrom a import total\n",
    )
    run = scripted_run(
        ws,
        tmp_path,
        [turn(refs), turn(moved), turn(call("read_file", path="a.py")), {"content": "done"}],
        "--yes",
    )
    prompt = run.prompt_text(3)
    head = (
        "[references total (a.py)] (refreshed at step 2: b.py changed since the answer at step 1)"
    )
    assert head in prompt, prompt
    refreshed = prompt[prompt.index(head) :]
    assert "b.py:4: x = total([3])  # total" in refreshed, "the new line numbers"
    assert "b.py:2: from a import total" in refreshed
    assert prompt.count("b.py:3: x = total([3])  # total") <= 1, "the old copy is not repeated"
    # a turn that changed none of its files asks nothing again
    later = run.prompt_text(4)
    assert later.count("(refreshed at step") == prompt.count("(refreshed at step"), later


def test_a_read_the_rename_changed_is_refreshed_in_one_line(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    rename = call(
        "rename_symbol",
        symbol="total",
        new_name="sum_items",
        path="a.py",
        line_content="def total(",
    )
    run = scripted_run(
        ws,
        tmp_path,
        [turn(call("read_file", path="b.py")), turn(rename), {"content": "done"}],
        "--yes",
    )
    prompt = run.prompt_text(3)
    assert "[read b.py] (refreshed at step 3: your rename at step 2 changed lines 1–3)" in prompt, (
        prompt
    )


RENAME = call(
    "rename_symbol", symbol="total", new_name="sum_items", path="a.py", line_content="def total("
)


def test_references_after_the_agents_own_rename_point_at_the_answer(tmp_path: Path) -> None:
    """Issue 34: a references answer the agent's own rename made stale is asked again by the
    new name; the places are the same, so the refresh is one line pointing at the answer
    (before: the old name was asked again and the refresh was an error)."""
    ws = _ws(tmp_path)
    refs = call("references", symbol="total", path="a.py", line_content="def total(")
    run = scripted_run(ws, tmp_path, [turn(refs), turn(RENAME), {"content": "done"}], "--yes")
    prompt = run.prompt_text(3)
    line = (
        "[references sum_items (a.py)] (refreshed at step 2: your rename at step 2 renamed "
        "total to it; the same places as listed at step 1)"
    )
    assert line + "\n" in prompt + "\n", prompt
    assert "does not occur" not in prompt, "not the old name asked again"
    assert prompt.count("b.py:3: ") == 1, "the places are not listed again"


def test_references_after_a_rename_that_moved_lines_are_listed_again(tmp_path: Path) -> None:
    """The same, but an edit in the same turn moved b.py's lines: the new places are
    listed, under a head saying the earlier answer is out of date."""
    ws = _ws(tmp_path)
    refs = call("references", symbol="total", path="a.py", line_content="def total(")
    moved = call("edit_file", path="b.py", old="\nx = ", new="\n\nx = ")
    turns = [turn(refs), turn(RENAME, moved), {"content": "done"}]
    prompt = scripted_run(ws, tmp_path, turns, "--yes").prompt_text(3)
    head = (
        "[references sum_items (a.py)] (refreshed at step 2: your rename at step 2 renamed "
        "total to it; the answer at step 1 is out of date)\n"
    )
    assert head in prompt, prompt
    assert "b.py:4: x = sum_items([3])  # total" in prompt[prompt.index(head) :]
