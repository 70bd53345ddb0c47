"""Benchmark: what the security sweep (issue 9 acceptance) added to two hot paths, each
against the code it replaced (kept below, in this file only), alternately in the same
process.

- grep's last step: the lines shown come from ``rg --json`` over the files admitted.
  Before, rg was given their names (and followed a symlink swapped in meanwhile); now the
  files are opened race-free first and rg reads ``/proc/self/fd/N``. A 2,000-file tree, 67
  matching files, 50 lines shown.
- ``harness.redact.redact`` on a 100 KB text: before, only the whole key was replaced; now
  heads and tails of 8+ characters too. A clean text, and one holding a 20-character head.

Only the structure is asserted (both give the same lines / the same text where they should
agree), never durations.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness import redact
from harness.policy import Gate, Policy, YesApprover
from harness.tools.grep import GREP_MAX_LINES, LineHit, _parse_match, first_lines, parse_counts
from harness.tools.ripgrep import BASE_FLAGS, run_rg
from harness.tools.scope import Scope, admit
from harness.workspace import Workspace
from tests.bench.conftest import record

ROUNDS = 21


async def old_first_lines(
    ws: Workspace, pattern: str, scope: Scope, counts: dict[str, int]
) -> list[LineHit]:
    """The code before: rg given the admitted files by name."""
    chosen: list[str] = []
    need = GREP_MAX_LINES
    for rel in scope.files:
        if need <= 0:
            break
        if counts.get(rel):
            chosen.append(rel)
            need -= counts[rel]
    args = [*BASE_FLAGS, "--json", "--max-count", str(GREP_MAX_LINES), "-e", pattern, "--"]
    out = await run_rg([*args, *chosen], ws.root)
    by_file: dict[str, list[LineHit]] = {}
    for line in out.stdout.splitlines():
        hit = _parse_match(line)
        if hit is not None and hit.path in counts:
            by_file.setdefault(hit.path, []).append(hit)
    hits: list[LineHit] = []
    for rel in chosen:
        found = sorted(by_file.get(rel, []), key=lambda h: h.line_no)[: counts[rel]]
        hits += found[: GREP_MAX_LINES - len(hits)]
    return hits


def _tree(root: Path) -> None:
    for i in range(2_000):
        d = root / f"pkg{i % 40}" / "sub"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"m{i}.py").write_text("x = 1\n" * 50 + ("needle here\n" if i % 30 == 0 else ""))


def _median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def test_grep_lines_through_fds_against_by_name(tmp_path: Path) -> None:
    _tree(tmp_path)
    ws = Workspace(tmp_path)
    gate = Gate(Policy(), YesApprover(), 1)

    async def measure() -> tuple[list[float], list[float]]:
        out = await run_rg(
            [*BASE_FLAGS, "--count", "--include-zero", "--null", "-e", "needle"], ws.root
        )
        counts = parse_counts(out.stdout)
        scope = admit(ws, gate, sorted(counts), None)
        matched = {rel: n for rel, n in counts.items() if n and rel in scope.files}
        new: list[float] = []
        old: list[float] = []
        for _ in range(ROUNDS):
            for fn, times in ((first_lines, new), (old_first_lines, old)):
                start = time.perf_counter()
                hits = await fn(ws, "needle", scope, matched)
                times.append(time.perf_counter() - start)
                assert len(hits) == GREP_MAX_LINES
        assert [h.path for h in await first_lines(ws, "needle", scope, matched)] == [
            h.path for h in await old_first_lines(ws, "needle", scope, matched)
        ]
        return new, old

    new, old = asyncio.run(measure())
    record(
        "security: grep's shown lines",
        f"through fds {_median_ms(new):.1f} ms, by name {_median_ms(old):.1f} ms, "
        f"ratio {statistics.median(new) / statistics.median(old):.2f} (median of {ROUNDS})",
    )


def old_redact(text: str) -> str:
    for secret in sorted(redact.registered(), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, redact.REDACTED)
    return text


def test_redact_pieces_against_whole_keys_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # One key only: in `make bench` earlier benchmarks have registered theirs in the
    # process-wide registry, and both arms would scan for all of them. Restored afterwards.
    monkeypatch.setattr(redact, "_secrets", set())
    key = "sk-bench-" + secrets.token_hex(23)
    redact.register(key)
    clean = ("lorem ipsum dolor sit amet " * 4_000)[:100_000]
    with_head = clean[:50_000] + key[:20] + clean[50_000:]
    assert redact.redact(clean) == old_redact(clean) == clean

    def timed(fn: Callable[[str], str], text: str) -> float:
        start = time.perf_counter()
        for _ in range(20):
            fn(text)
        return (time.perf_counter() - start) / 20

    for label, text in (("clean 100 KB", clean), ("100 KB with a 20-char head", with_head)):
        new = [timed(redact.redact, text) for _ in range(ROUNDS)]
        old = [timed(old_redact, text) for _ in range(ROUNDS)]
        record(
            "security: redact",
            f"{label}: ours {statistics.median(new) * 1e6:.0f} µs, whole keys only "
            f"{statistics.median(old) * 1e6:.0f} µs",
        )
