"""Benchmark: the ``grep`` tool (on ripgrep) against the hand-written engine it replaced and
against ``grep -rn``, over 10,000 files / ~50 MB, in the same run.

Run with ``make bench`` (or ``.venv/bin/pytest tests/bench/test_bench_grep.py -s``). All
three search the same tree, warm cache, a few repetitions each; the medians and the ratios
to GNU grep are recorded. The old engine is kept below, in this file only, as the baseline
(it walked the tree with pathspec's gitignore rules and searched with Python's ``re``).
Only the structure is asserted (the same number of matching lines from all three), never
durations: those depend on the machine.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import AnyStr

import pytest

from harness.policy import Gate, Policy, YesApprover
from harness.tools.base import ToolContext
from harness.tools.ripgrep import BASE_FLAGS, rg_executable
from harness.tools.search import Grep, GrepArgs
from harness.types import Act
from harness.workspace import Workspace
from tests.bench.conftest import record

FILES = 10_000
FILE_CHARS = 5_000  # 10,000 x 5,000 = ~50 MB
REPEATS = 7
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


# One event loop for every call, as in the harness (a loop per call would time its set-up).
_LOOP = asyncio.new_event_loop()


def _rg_alone(root: Path, pattern: str) -> tuple[float, int]:
    """The floor: the tool's own rg command line, nothing around it."""
    started = time.perf_counter()
    done = subprocess.run(
        [rg_executable(), *BASE_FLAGS, "--count", "--include-zero", "--null", "-e", pattern],
        cwd=root,
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    total = sum(int(line.rpartition(b"\0")[2]) for line in done.stdout.splitlines())
    return elapsed, total


def _ours(ctx: ToolContext, pattern: str) -> tuple[float, int]:
    started = time.perf_counter()
    result = _LOOP.run_until_complete(Grep().run(GrepArgs(pattern=pattern), ctx))
    elapsed = time.perf_counter() - started
    return elapsed, _stated_total(result.text)


def _old(ctx: ToolContext, pattern: str) -> tuple[float, int]:
    """The old tool's path: walk with the gitignore rules, search with ``re`` in a thread,
    the policy asked about files with a hit."""
    started = time.perf_counter()

    def permit(rel: str) -> bool:
        return ctx.gate.check_nowait(Act.READ, rel).allowed

    def work() -> SearchOutcome:
        files = ctx.workspace.walk_files(".")
        return search(ctx.workspace.root, files, compile_pattern(pattern), keep=50, permit=permit)

    outcome = _LOOP.run_until_complete(asyncio.to_thread(work))
    return time.perf_counter() - started, outcome.total_lines


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
    runs: dict[str, list[tuple[float, int]]] = {"grep": [], "rg": [], "ours": [], "old": []}
    measures = {
        "grep": lambda: _grep_rn(root, pattern),
        "rg": lambda: _rg_alone(root, pattern),
        "ours": lambda: _ours(ctx, pattern),
        "old": lambda: _old(ctx, pattern),
    }
    for measure in measures.values():
        measure()  # warm the page cache, imports and the tool's per-run caches
    for _ in range(REPEATS):  # interleaved, so a change of load hits all alike
        for name, measure in measures.items():
            runs[name].append(measure())
    expected = runs["grep"][0][1]
    for name in ("rg", "ours", "old"):
        assert {count for _, count in runs[name]} == {expected}, f"{name}: counts differ"
    t = {name: statistics.median(x for x, _ in got) for name, got in runs.items()}
    record(
        "grep",
        f"{pattern!r}: {FILES:,} files, {size / 1e6:.1f} MB, {expected:,} matching lines | "
        f"grep -rn {t['grep'] * 1000:.0f} ms | rg alone {t['rg'] * 1000:.0f} ms "
        f"({t['rg'] / t['grep']:.2f}x) | grep tool {t['ours'] * 1000:.0f} ms "
        f"({t['ours'] / t['grep']:.2f}x) | old engine {t['old'] * 1000:.0f} ms "
        f"({t['old'] / t['grep']:.2f}x) (median of {REPEATS}, interleaved)",
    )


# -- the old engine (the baseline), as it was before ripgrep -----------------------------------


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


# Files over this size are searched too, but read whole; one read is bounded by it so a
# stray multi-gigabyte file cannot exhaust memory.
MAX_FILE_BYTES = 64 * 1024 * 1024
_CHUNK = 256 * 1024


@dataclass(frozen=True)
class LineHit:
    path: str
    line_no: int
    text: str
    column: int  # where the match starts in ``text``


@dataclass
class SearchOutcome:
    """The first ``keep`` hits in path order, and counts of everything."""

    hits: list[LineHit] = field(default_factory=list)
    total_lines: int = 0
    files_with_hits: int = 0
    files_searched: int = 0
    binary_skipped: int = 0
    unreadable: int = 0
    refused: int = 0  # files with hits that the policy does not let the agent read
    # Files with hits that were not kept, to say how many files hold "the rest".
    files_with_rest: int = 0


@dataclass(frozen=True)
class Matcher:
    """The pattern compiled twice: as ``str`` for Unicode semantics, and as ``bytes`` for
    pure-ASCII files, where both mean the same and no decoding is needed (most source).
    ``literal`` is a substring every match must contain, when the pattern has one."""

    text: re.Pattern[str]
    raw: re.Pattern[bytes] | None
    literal: str | None = None

    @property
    def raw_literal(self) -> bytes | None:
        return self.literal.encode("ascii") if self.literal and self.literal.isascii() else None


def compile_pattern(pattern: str) -> Matcher:
    """``re.MULTILINE`` so ``^`` and ``$`` mean line start and end, as in grep. Raises
    ``re.error`` for a bad pattern."""
    text = re.compile(pattern, re.MULTILINE)
    try:
        raw: re.Pattern[bytes] | None = re.compile(pattern.encode("utf-8"), re.MULTILINE)
    except re.error:
        raw = None  # e.g. `\\u00e9` has no bytes form; such patterns decode every file
    return Matcher(text, raw, required_literal(pattern))


def required_literal(pattern: str) -> str | None:
    """For a pattern that does not start with a literal: the longest run of plain characters
    at its top level (text every match contains), or None. GNU grep's trick: find the
    literal with a fast substring search, then run the regex on that line only, instead of
    trying the regex at every position of the file (slow in ``re`` without a literal
    prefix)."""
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser as sre  # type: ignore[attr-defined]

    parsed = sre.parse(pattern)
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    if parsed.data and parsed.data[0][0] is c.LITERAL:
        return None  # ``re`` already scans for a literal prefix at C speed
    best, run = "", ""
    for op, arg in parsed.data:
        if op is c.LITERAL:
            run += chr(arg)
            best = max(best, run, key=len)
        else:
            run = ""
    return best if len(best) >= 3 and "\n" not in best else None


def search(
    root: Path,
    rels: Iterable[str],
    matcher: Matcher,
    *,
    keep: int,
    permit: Callable[[str], bool] = lambda rel: True,
    stop: threading.Event | None = None,
) -> SearchOutcome:
    """Search ``rels`` (relative to ``root``) in order, keeping the first ``keep`` hits.

    ``permit`` is asked only about files that have a hit (asking about every file would cost
    more than the search); a file it refuses is counted, never shown. ``stop`` ends the
    search early (the caller was cancelled).
    """
    out = SearchOutcome()
    base = str(root)
    for rel in rels:
        if stop is not None and stop.is_set():
            break
        data = _read(os.path.join(base, rel))
        if data is None:
            out.unreadable += 1
            continue
        out.files_searched += 1
        if is_binary(data):
            out.binary_skipped += 1
        elif matcher.raw is not None and data.isascii():
            if matcher.raw_literal is not None:
                _search_lines(
                    rel,
                    data,
                    matcher.raw,
                    matcher.raw_literal,
                    out,
                    nl=b"\n",
                    keep=keep,
                    permit=permit,
                )
            else:
                _search_file(rel, data, matcher.raw, out, nl=b"\n", keep=keep, permit=permit)
        else:
            text = data.decode("utf-8", errors="replace")
            if matcher.literal is not None:
                _search_lines(
                    rel, text, matcher.text, matcher.literal, out, nl="\n", keep=keep, permit=permit
                )
            else:
                _search_file(rel, text, matcher.text, out, nl="\n", keep=keep, permit=permit)
    return out


def _read(path: str) -> bytes | None:
    """os.open/os.read: a third of the cost of ``open().read()`` for many small files."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        chunks: list[bytes] = []
        size = 0
        while size < MAX_FILE_BYTES:
            chunk = os.read(fd, _CHUNK)
            chunks.append(chunk)
            size += len(chunk)
            if len(chunk) < _CHUNK:  # a short read of a regular file is its end
                break
    except OSError:
        return None
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _search_file(
    rel: str,
    text: AnyStr,
    regex: re.Pattern[AnyStr],
    out: SearchOutcome,
    *,
    nl: AnyStr,
    keep: int,
    permit: Callable[[str], bool],
) -> None:
    m = regex.search(text)
    if m is None:
        return
    if not permit(rel):
        out.refused += 1
        return
    counted_from, line_no, lines_here, kept_here = 0, 1, 0, 0
    while m is not None:
        start = m.start()
        line_start = text.rfind(nl, 0, start) + 1
        line_end = text.find(nl, start)
        if line_end < 0:
            line_end = len(text)
        line = text[line_start:line_end]
        column = _column_in_line(regex, m, line, line_start, line_end)
        if column is not None:
            line_no += text.count(nl, counted_from, line_start)
            counted_from = line_start
            lines_here += 1
            out.total_lines += 1
            if len(out.hits) < keep:
                out.hits.append(LineHit(rel, line_no, _as_text(line), column))
                kept_here += 1
        if line_end >= len(text):
            break
        m = regex.search(text, line_end + 1)
    if lines_here:
        out.files_with_hits += 1
        out.files_with_rest += lines_here > kept_here


def _search_lines(
    rel: str,
    text: AnyStr,
    regex: re.Pattern[AnyStr],
    literal: AnyStr,
    out: SearchOutcome,
    *,
    nl: AnyStr,
    keep: int,
    permit: Callable[[str], bool],
) -> None:
    """Only lines holding ``literal`` can match: find them with ``find`` (memchr speed)
    and run the regex on each such line alone (``pos``/``endpos``, so it cannot span)."""
    pos, counted_from, line_no, lines_here, kept_here = 0, 0, 1, 0, 0
    asked = False
    while (idx := text.find(literal, pos)) >= 0:
        line_start = text.rfind(nl, 0, idx) + 1
        line_end = text.find(nl, idx)
        if line_end < 0:
            line_end = len(text)
        m = regex.search(text, line_start, line_end)
        if m is not None:
            if not asked:
                asked = True
                if not permit(rel):
                    out.refused += 1
                    return
            line_no += text.count(nl, counted_from, line_start)
            counted_from = line_start
            lines_here += 1
            out.total_lines += 1
            if len(out.hits) < keep:
                out.hits.append(
                    LineHit(
                        rel, line_no, _as_text(text[line_start:line_end]), m.start() - line_start
                    )
                )
                kept_here += 1
        pos = line_end + 1
    if lines_here:
        out.files_with_hits += 1
        out.files_with_rest += lines_here > kept_here


def _as_text(line: str | bytes) -> str:
    text = line.decode("ascii") if isinstance(line, bytes) else line
    return text.rstrip("\r")


def _column_in_line(
    regex: re.Pattern[AnyStr], m: re.Match[AnyStr], line: AnyStr, line_start: int, line_end: int
) -> int | None:
    """Where the match starts in its line, or None when no match lies within that line."""
    if m.end() <= line_end:
        return m.start() - line_start
    # The match ran past the line end (e.g. `a\s+b` across a newline): grep would not
    # take it, but another match may still lie within the line.
    inner = regex.search(line)
    return inner.start() if inner is not None else None
