"""A long ``harness run`` against the fake Anthropic server (real HTTP on 127.0.0.1, its cache
following Anthropic's documented rules: tests/support/fake_cache.py): 64 steps of the refactor
benchmark session at a 6,000-token ceiling, so the window slides and edited files go stale.
Every request after the first reads from the cache; one that changed nothing already sent
reads back everything the request before it stored; one that did (a slide, a stale read)
reads back to the deepest prefix an earlier request marked before the first changed block —
never just the system block (issue 21, rule 7)."""

from __future__ import annotations

import itertools
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bench.context_sessions import REFACTOR
from tests.conftest import MakeFakeLLM
from tests.e2e.cli import user_config
from tests.support.fake_cache import MIN_CACHED_TOKENS, anthropic_blocks

STEPS = 64


def harness_run_args(
    workspace: Path, store: Path, wire: str, url: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    """The run with the after-edit diagnostics off (a user config beside the store): the
    rule is the cache's, and jedi-language-server's 1 s debounce after each editing turn was
    most of the run's time."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["HARNESS_API_KEY"] = "sk-test-breakpoints"
    env["XDG_CONFIG_HOME"] = str(user_config(store.parent / "config").parents[1])
    argv = [sys.executable, "-m", "harness", "run", REFACTOR.goal, "-w", str(workspace)]
    argv += ["--provider", wire, "--base-url", url, "--store", str(store), "--json", "--yes"]
    return subprocess.run(
        [*argv, *extra], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def _blocks(body: dict[str, Any]) -> tuple[list[str], list[int], list[bool]]:
    """The block texts as the fake's cache sees them, each prefix's length, the markers."""
    pairs = anthropic_blocks(body)
    texts = [t for t, _ in pairs]
    return texts, list(itertools.accumulate(map(len, texts))), [m for _, m in pairs]


def _slides(store: Path) -> int:
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT detail FROM context_events WHERE kind = 'assembled'").fetchall()
    return sum('"slide"' in detail for (detail,) in rows)


def _expected_floor(history: list[dict[str, Any]], body: dict[str, Any]) -> tuple[int, bool]:
    """What ``body`` must at least read (tokens), and whether it changed text already sent:
    the deepest of its blocks, before the first one that differs from every earlier request,
    where an earlier request put a breakpoint (with at least the cacheable minimum)."""
    texts = _blocks(body)[0]
    before, _, _ = _blocks(history[-1])
    changed = texts[: len(before) - 1] != before[:-1]  # the trailer is the last block
    floor = 0
    for earlier in history:
        e_texts, e_ends, e_marks = _blocks(earlier)
        for k, marked in enumerate(e_marks):
            same = marked and k < len(texts) and e_texts[: k + 1] == texts[: k + 1]
            if same and e_ends[k] // 4 >= MIN_CACHED_TOKENS:
                floor = max(floor, e_ends[k] // 4)
    return floor, changed


@pytest.mark.timeout(600)  # 64 steps, most running the tests in the sandbox
async def test_every_request_of_a_long_run_with_slides_reads_what_came_before(
    fake_llm: MakeFakeLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    REFACTOR.create(workspace)
    fake = fake_llm(REFACTOR.turns(STEPS), wire="anthropic")
    store = tmp_path / "harness.db"
    done = harness_run_args(
        workspace, store, "anthropic", fake.url, "--max-steps", str(STEPS),
        "--context-max-tokens", "6000", "--token-budget", "10000000",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _slides(store) >= 1, "the window slid at least once"
    usages = [u for u in fake.usages if u is not None]
    assert len(usages) == len(fake.requests) == STEPS
    breaks = 0
    for i in range(1, STEPS):
        body, usage, before = fake.requests[i], usages[i], usages[i - 1]
        read = usage["cache_read_input_tokens"]
        floor, changed = _expected_floor(fake.requests[:i], body)
        assert read > 0, f"request {i + 1} read nothing"
        assert read >= floor, f"request {i + 1}: read {read}, an earlier mark held {floor}"
        if not changed:
            stored = before["cache_read_input_tokens"] + before["cache_creation_input_tokens"]
            assert read == stored, f"request {i + 1} lost what request {i} stored"
        breaks += changed
    assert breaks >= 1
