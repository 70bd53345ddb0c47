"""Benchmark: the ``grep`` tool against ``grep -rn`` over 10,000 files / ~50 MB.

Run with ``.venv/bin/pytest tests/bench/test_bench_grep.py -s``. Both searches run in the same
process on the same tree, warm cache, a few repetitions each; the medians and their ratio are
printed. Only the structure is asserted (the same number of matching lines as ``grep -rn``),
never durations: those depend on the machine.
"""

from __future__ import annotations

import asyncio
import os
import platform
import random
import re
import statistics
import subprocess
import time
from pathlib import Path

import pytest

from harness.policy import Gate, Policy, YesApprover
from harness.tools.base import ToolContext
from harness.tools.search import Grep, GrepArgs
from harness.workspace import Workspace

FILES = 10_000
FILE_CHARS = 5_000  # 10,000 x 5,000 = ~50 MB
REPEATS = 5
WORDS = [
    *[
        "alpha",
        "beta",
        "gamma",
        "delta",
        "value",
        "result",
        "config",
        "parser",
        "token",
        "buffer",
        "index",
        "count",
    ],
    *[
        "handle",
        "request",
        "response",
        "client",
        "server",
        "module",
        "import",
        "return",
        "yield",
        "async",
        "await",
    ],
    *["self", "data", "items", "key", "error", "retry", "limit", "cache", "store"],
]

# Patterns valid as both Python re and GNU grep -E with the same meaning on ASCII text.
PATTERNS = [
    pytest.param("TODO", id="literal-rare"),
    pytest.param("handle_[a-z]+_request", id="class-rare"),
    pytest.param("retry limit cache", id="phrase"),
    pytest.param("import (os|sys)", id="alternation-common"),
    pytest.param("count.*error", id="dotstar-common"),
    # No literal prefix for Python's re to skip ahead with: the slow case (GNU \b extension).
    pytest.param(r"\bcount\b.*\berror\b", id="word-boundary-common"),
]


def _generate(root: Path) -> int:
    """A deterministic tree: 100 packages x 10 modules x 10 files of word salad."""
    rng = random.Random(20_240_601)
    total = 0
    for i in range(FILES):
        folder = root / f"pkg{i // 100:03d}" / f"sub{(i // 10) % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        lines, size = [], 0
        while size < FILE_CHARS:
            line = "    " + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 12)))
            roll = rng.random()
            if roll < 0.002:
                line += f"  # TODO handle_{rng.choice(WORDS)}_request"
            elif roll < 0.01:
                line = f"import {rng.choice(['os', 'sys', 're', 'json'])}"
            lines.append(line)
            size += len(line) + 1
        data = "\n".join(lines) + "\n"
        (folder / f"mod{i:05d}.py").write_text(data)
        total += len(data)
    return total


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    root = tmp_path_factory.mktemp("bench-grep")
    return root, _generate(root)


def _grep_rn(root: Path, pattern: str) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(
        ["grep", "-rnE", pattern, "."],
        cwd=root,
        capture_output=True,
        env={**os.environ, "LC_ALL": "C"},
        check=False,
    )
    elapsed = time.perf_counter() - started
    return elapsed, done.stdout.count(b"\n")


def _ours(ctx: ToolContext, pattern: str) -> tuple[float, int]:
    started = time.perf_counter()
    result = asyncio.run(Grep().run(GrepArgs(pattern=pattern), ctx))
    elapsed = time.perf_counter() - started
    return elapsed, _stated_total(result.text)


def _stated_total(text: str) -> int:
    """Lines shown plus the stated count of the rest."""
    lines = text.splitlines()[1:]
    shown = sum(1 for line in lines if re.match(r"^[^\s:]+:\d+: ", line))
    rest = re.search(r"… ([\d,]+) more matching lines", text)
    return shown + (int(rest.group(1).replace(",", "")) if rest else 0)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_bench_grep(tree: tuple[Path, int], pattern: str) -> None:
    root, size = tree
    ctx = ToolContext(
        workspace=Workspace(root),
        gate=Gate(Policy(), YesApprover(), run_id=0),
        run_id=0,
        step=0,
        read_limit_chars=12_000,
    )
    _grep_rn(root, pattern), _ours(ctx, pattern)  # warm the page cache and imports
    theirs = [_grep_rn(root, pattern) for _ in range(REPEATS)]
    ours = [_ours(ctx, pattern) for _ in range(REPEATS)]
    assert {count for _, count in ours} == {theirs[0][1]}, "match counts differ from grep -rn"
    t_grep = statistics.median(t for t, _ in theirs)
    t_ours = statistics.median(t for t, _ in ours)
    print(
        f"\n[bench grep] {pattern!r}: {FILES:,} files, {size / 1e6:.1f} MB, "
        f"{theirs[0][1]:,} matching lines | grep -rn {t_grep * 1000:.0f} ms, "
        f"ours {t_ours * 1000:.0f} ms, ratio {t_ours / t_grep:.2f}x "
        f"(median of {REPEATS}; {os.cpu_count()} cores, {platform.machine()}, "
        f"Python {platform.python_version()})"
    )
