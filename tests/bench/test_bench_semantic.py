"""Semantic tools (issue 32, §14), measured:

- **Rename, semantic agent vs text agent**, on the vendored snapshot of a real project
  (tenacity at the parent of bdc5f6a: tests/data/semantic_commits/README.md names source
  and licence): the real commit's rename done by one ``rename_symbol`` call, and as a text
  agent does it — shaped on the recorded SWE-agent trajectories in ``trajectories/``: a
  grep, a ranged read around each hit, one ``edit_file`` per occurrence, an edit whose
  ``old`` is not unique failing and retried with the next line added. Both through the
  real ``harness run`` (scripted model, real jedi-language-server): tool calls, steps,
  tokens sent, and places wrong against the commit.
- **Headless jedi, cold and warm**, on generated repositories of 100 and 1,000 modules that
  all use one function: the first ``references`` (server start + initialize + answer),
  then warm ``references`` and ``rename`` (computed, not written).
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness.context.snapshot import load
from harness.semantic.config import parse_semantic
from harness.semantic.model import Position, Query
from harness.store import Store
from langservers import HeadlessSemantics
from tests.support.scripted_cli import _env, scripted_run
from tests.support.scripted_turns import call, turn

from .conftest import record

DATA = Path(__file__).resolve().parents[1] / "data" / "semantic_commits" / "tenacity-bdc5f6a"
OLD, NEW = "retry_if_exception", "retry_if_exception_type"
WORD = re.compile(rf"\b{OLD}\b")
ROOT = Path(__file__).resolve().parents[2]


def _copy(side: Path, into: Path) -> list[str]:
    names = []
    for stored in sorted(side.rglob("*.txt")):
        rel = stored.relative_to(side).with_suffix("")
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(stored, into / rel)
        names.append(rel.as_posix())
    return names


def _unique_old(text: str, lines: list[str], i: int) -> tuple[list[str], int]:
    """The ``old`` attempts a text agent makes for line ``i``: the bare line, then the line
    with the next ones added until it is unique (each failed attempt is a call)."""
    tries, n = [], 1
    while True:
        old = "\n".join(lines[i : i + n])
        tries.append(old)
        if text.count(old) == 1 or i + n >= len(lines):
            return tries, n
        n += 1


def _text_agent_turns(ws: Path, files: list[str]) -> list[dict[str, Any]]:
    turns = [turn(call("grep", pattern=rf"\b{OLD}\b"))]
    for rel in files:
        text = (ws / rel).read_text()
        hits = [i for i, line in enumerate(text.split("\n")) if WORD.search(line)]
        for i in hits:  # a ranged read around each hit, as SWE-agent's `open FILE LINE`
            turns.append(turn(call("read_file", path=rel, offset=max(1, i - 4), limit=15)))
        for i in hits:
            lines = text.split("\n")
            tries, n = _unique_old(text, lines, i)
            for old in tries:
                turns.append(turn(call("edit_file", path=rel, old=old, new=WORD.sub(NEW, old))))
            lines[i : i + n] = WORD.sub(NEW, "\n".join(lines[i : i + n])).split("\n")
            text = "\n".join(lines)
    return [*turns, {"content": "renamed"}]


def _semantic_turns() -> list[dict[str, Any]]:
    quote = "class retry_if_exception(object):"
    rename = call("rename_symbol", symbol=OLD, new_name=NEW, path="tenacity.py", line_content=quote)
    return [turn(rename), {"content": "renamed"}]


def _measure(tmp: Path, label: str, make: Any) -> dict[str, Any]:
    ws = tmp / label / "ws"
    ws.mkdir(parents=True)
    files = _copy(DATA / "before", ws)
    started = time.perf_counter()
    run = scripted_run(ws, tmp / label, make(ws, files), "--yes")
    seconds = time.perf_counter() - started
    shown = subprocess.run(
        [sys.executable, "-m", "harness", "trace", "show", "1", "--store", str(run.store), "--json"],
        capture_output=True, text=True, cwd=ROOT, env=_env(tmp / label), check=True, timeout=60,
    )  # fmt: skip
    trace = json.loads(shown.stdout)
    steps = trace["steps"]
    calls = sum(len(s.get("toolCalls") or s.get("calls") or []) for s in steps) or len(steps) - 1
    wrong = 0
    for rel in files:
        want = (DATA / "after" / f"{rel}.txt").read_text().split("\n")
        got = (ws / rel).read_text().split("\n")
        wrong += sum(1 for a, b in zip(want, got, strict=False) if a != b) + abs(
            len(want) - len(got)
        )
    return {
        "calls": calls,
        "steps": trace["run"]["steps"],
        "tokens": trace["run"]["spentTokens"],
        "wrong": wrong,
        "seconds": seconds,
    }


@pytest.mark.timeout(600)
def test_rename_semantic_vs_text_agent(tmp_path: Path) -> None:
    semantic = _measure(tmp_path, "semantic", lambda ws, files: _semantic_turns())
    text = _measure(tmp_path, "text", _text_agent_turns)
    for name, m in (("rename_symbol", semantic), ("text agent", text)):
        record(
            "semantic rename (tenacity bdc5f6a, 2 files, 6 places)",
            f"{name}: {m['calls']} tool calls, {m['steps']} steps, {m['tokens']:,} tokens, "
            f"{m['wrong']} lines wrong vs the commit, {m['seconds']:.1f} s wall",
        )
    ratio = semantic["tokens"] / text["tokens"]
    record("semantic rename (tenacity bdc5f6a, 2 files, 6 places)", f"tokens ratio {ratio:.2f}")
    assert semantic["wrong"] == 0 and semantic["calls"] <= 2
    assert ratio <= 0.3, (semantic, text)


@pytest.mark.timeout(600)
def test_semantic_entries_share_of_the_context(tmp_path: Path) -> None:
    """Issue 34: the semantic tools' entries (references, its refresh after the rename,
    diagnostics) in the last request of a session that uses them — their share of the
    observation section's characters, by kind (the run's context snapshot in the store)."""
    quote = "class retry_if_exception(object):"
    turns = [
        turn(call("references", symbol=OLD, path="tenacity.py", line_content=quote)),
        turn(call("read_file", path="tenacity.py", offset=1, limit=80)),
        turn(call("rename_symbol", symbol=OLD, new_name=NEW, path="tenacity.py", line_content=quote)),
        turn(call("diagnostics")),
        turn(call("references", symbol=NEW, path="tenacity.py", line_content=quote.replace(OLD, NEW))),
        turn(call("grep", pattern=NEW)),
        {"content": "renamed"},
    ]  # fmt: skip
    ws = tmp_path / "ws"
    ws.mkdir()
    _copy(DATA / "before", ws)
    run = scripted_run(ws, tmp_path, turns, "--yes")
    store = Store(run.store)
    snapshot = store.run_context(1)
    store.close()
    assert snapshot is not None
    chars: dict[str, int] = {}
    refresh = 0
    for entry in load(snapshot).state.entries:
        for text in entry.texts:
            chars[entry.kind] = chars.get(entry.kind, 0) + len(text)
            if entry.kind == "references" and "(refreshed at step" in text.split("\n", 1)[0]:
                refresh += len(text)
    total = sum(chars.values())
    shares = ", ".join(f"{k} {v:,} ({v / total:.0%})" for k, v in sorted(chars.items()))
    record("semantic entries in the context (issue 34)", f"{total:,} chars: {shares}")
    record("semantic entries in the context (issue 34)", f"references refresh {refresh:,} chars")
    assert 0 < refresh < chars["references"], "the rename's references refresh is sent, small"
    assert chars["diagnostics"] < 0.05 * total


def _repo(root: Path, n: int) -> str:
    root.mkdir(parents=True)
    core = "def compute(x):\n    return x * 2\n"
    (root / "core.py").write_text(core)
    pkg = root / "pkg"
    pkg.mkdir()
    for i in range(n):
        (pkg / f"mod_{i}.py").write_text(
            f"from core import compute\n\n\ndef f_{i}(y):\n    return compute(y) + {i}\n"
        )
    return core


@pytest.mark.timeout(900)
@pytest.mark.parametrize("n", [100, 1000])
async def test_headless_jedi_cold_and_warm(tmp_path: Path, n: int) -> None:
    root = tmp_path / "ws"
    core = _repo(root, n)
    config = parse_semantic({"semantic": {"semanticTimeoutMs": 600_000}}, "bench")
    port = HeadlessSemantics(root, config)
    refs = Query("references", "core.py", core, Position(0, 4))
    try:
        started = time.perf_counter()
        first = await port.answer(refs)
        cold = time.perf_counter() - started
        warm = []
        for _ in range(3):
            started = time.perf_counter()
            again = await port.answer(refs)
            warm.append(time.perf_counter() - started)
        started = time.perf_counter()
        renamed = await port.answer(Query("rename", "core.py", core, Position(0, 4), "compute2"))
        rename_s = time.perf_counter() - started
    finally:
        await port.close()
    places, files = len(first.locations), len(renamed.edits)
    record(
        "headless jedi-language-server",
        f"{n:,} modules: cold {cold:.2f} s (start + initialize + first references, "
        f"{places:,} of {2 * n + 1:,} places found); warm references p50 "
        f"{statistics.median(warm):.2f} s; rename {rename_s:.2f} s ({files:,} of {n + 1:,} files)",
    )
    # Measured, not required: jedi's reference search stops after a number of files.
    assert 0 < places == len(again.locations) <= 2 * n + 1 and 0 < files <= n + 1
