"""Benchmark: durable memory's per-turn recall and ``remember`` at the cap (issue 4), against
a naive baseline in the same process that re-reads and re-normalises every note every turn.

Stores of 64, 512 and 4,096 notes (~20 words each, drawn Zipf-like from a 2,000-word
vocabulary), every note recalled by 20 runs. A turn is ``RunMemory.block`` with a goal and a
200-observation touched list (paths and grep patterns from the same vocabulary), one new
observation per turn, at two ceilings: 24,000 chars (the default request's quarter share)
and 6,000 chars (a tight one, so selection runs at every size). ``remember`` writes a new key
into a full store (one eviction each), a fifth of them restating an existing note.

The baseline is the implementation you would write without the index: list the notes from
the store, normalise every note's key and value and every touched target, score by set
intersection, sort everything, fill, render. It uses the same ranking rule, so both must
produce the same block byte for byte — that, and the same evictions and restatements, is
what is asserted. Durations are printed, never asserted.
"""

from __future__ import annotations

import random
import shutil
import statistics
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.contract import MemoryLimits
from harness.memory import GLOBAL, RunMemory, jaccard, words
from harness.memory.block import fill, full_chars, render, render_line, selection_reserve, split
from harness.memory.notes import MemoryNote
from harness.memory.text import RESTATEMENT_THRESHOLD, topic_words
from harness.store import Store
from tests.support.steps import commit_bare_step

from .conftest import record

SIZES = (64, 512, 4_096)
CEILINGS = (24_000, 6_000)
RECALL_RUNS = 20
TOUCHED = 200
TURNS = 40
REMEMBERS = 40
VOCABULARY = 2_000


def _vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    found: set[str] = set()
    while len(found) < VOCABULARY:
        found.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 9))))
    return sorted(found)


class Corpus:
    """Deterministic note values, touched targets and goals, all drawn (with ``seed``) from
    one Zipf-like vocabulary shared by every corpus."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.vocab = _vocabulary(random.Random(0))
        weights = [1 / (rank + 1) for rank in range(len(self.vocab))]
        total = 0.0
        self.cum: list[float] = []
        for w in weights:
            total += w
            self.cum.append(total)

    def pick(self, k: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum, k=k)

    def value(self) -> str:
        return " ".join(self.pick(self.rng.randint(14, 26)))

    def target(self, i: int) -> str:
        a, b, c = self.pick(3)
        return f"src/{a}/{b}_{c}.py" if i % 3 else f"def {a}_{b}\\("


def _commit_recalls(store: Store, run_id: int, pairs: Sequence[tuple[str, str]]) -> None:
    commit_bare_step(store, run_id, 1, recalls=pairs)


def _new_run(store: Store, ws: Path) -> int:
    return store.create_run(goal="g", workspace=str(ws), provider="p", model="m", contract="{}")


@dataclass
class Fixture:
    store_path: Path
    ws: Path
    limits: MemoryLimits
    corpus: Corpus


def _build(tmp: Path, n: int) -> Fixture:
    ws = tmp / "ws"
    ws.mkdir(parents=True)
    corpus = Corpus(seed=n)
    limits = MemoryLimits(max_entries=n, max_chars=n * 2_000, max_entry_chars=2_000)
    path = tmp / "memory.db"
    with Store(path) as store:
        writer = _new_run(store, ws)
        for i in range(n):
            a, b = corpus.pick(2)
            store.memory_write(
                ws, f"{a}-{b}-{i}", corpus.value(), writer, 1, "fact", limits=limits, similar=False
            )
        pairs = [(str(ws.resolve()), note.key) for note in store.memory_list(ws)]
        for _ in range(RECALL_RUNS):
            _commit_recalls(store, _new_run(store, ws), pairs)
    return Fixture(path, ws, limits, corpus)


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Fixture]:
    return {n: _build(tmp_path_factory.mktemp(f"mem{n}"), n) for n in SIZES}


# -- the naive baseline ---------------------------------------------------------------------


def naive_block(
    store: Store, ws: Path, max_chars: int, goal: str, touched: Sequence[str]
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Everything from scratch: read, normalise, render, score, sort, fill, print."""
    ws_key = str(ws.resolve())
    ws_notes = store.memory_list(ws)
    taken = {n.key for n in ws_notes}
    gl_notes = [n for n in store.memory_list(GLOBAL) if n.key not in taken]

    @dataclass
    class L:
        id: int
        key: str
        line: str
        operator: bool

    def line(n: MemoryNote) -> L:
        text = render_line(n.key, n.value, kind=n.kind, pinned=n.pinned, origin=n.origin)
        return L(n.id, n.key, text, n.by_operator)

    ws_lines = {n.id: line(n) for n in ws_notes}
    gl_lines = {n.id: line(n) for n in gl_notes}
    if not ws_notes and not gl_notes:
        return "", ()

    total = full_chars(split(list(ws_lines.values()), list(gl_lines.values())))
    if total <= max_chars:
        ws_sel, gl_sel = ws_notes, gl_notes
    else:
        turn = set(topic_words(goal))
        for target in touched:
            turn |= topic_words(target)
        ranked = []
        for scope, notes in ((0, ws_notes), (1, gl_notes)):
            for n in notes:
                score = len((words(n.key) | words(n.value)) & turn)
                ranked.append(((-score, -n.recall_runs, scope, -n.seq), scope, n))
        ranked.sort(key=lambda t: t[0])
        lines = (ws_lines, gl_lines)
        chosen = fill(
            ((scope, lines[scope][n.id]) for _, scope, n in ranked),
            max_chars - selection_reserve(),
            min(len(x.line) for x in [*ws_lines.values(), *gl_lines.values()]),
        )
        ws_sel = [n for n in ws_notes if n.id in chosen[0]]
        gl_sel = [n for n in gl_notes if n.id in chosen[1]]
    dropped = len(ws_notes) + len(gl_notes) - len(ws_sel) - len(gl_sel)
    sections = split([ws_lines[n.id] for n in ws_sel], [gl_lines[n.id] for n in gl_sel])
    text = render(sections, dropped)
    scopes = (ws_key, ws_key, GLOBAL, GLOBAL)
    recalled = tuple((sc, n.key) for sc, ns in zip(scopes, sections, strict=True) for n in ns)
    return text, recalled


def naive_remember(
    store: Store, ws: Path, run_id: int, key: str, value: str, limits: MemoryLimits
) -> tuple[list[str], list[str]]:
    """The restatement check by normalising every note in the scope, then the write."""
    mine = words(value)
    similar = []
    for n in store.memory_list(ws):
        if n.key != key and jaccard(mine, words(n.value)) >= RESTATEMENT_THRESHOLD:
            similar.append(n.key)
    result = store.memory_write(ws, key, value, run_id, 2, "fact", limits=limits, similar=False)
    gone = {n.key for n in result.evicted}
    return [k for k in similar if k not in gone], [n.key for n in result.evicted]


# -- the measurements -------------------------------------------------------------------------


def _turns(corpus: Corpus) -> Iterator[tuple[str, list[str]]]:
    """The same goal; 200 touched targets, one new one each turn."""
    goal = "Refactor the " + " and the ".join(corpus.pick(3)) + " handling"
    touched = [corpus.target(i) for i in range(TOUCHED)]
    i = TOUCHED
    while True:
        yield goal, list(touched)
        touched = [*touched[1:], corpus.target(i)]
        i += 1


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def _timed(fast: list[float], slow: list[float], target_ms: float) -> tuple[str, str]:
    """How the measured times went (median against its target, 90th percentile) and how the
    baseline's did (median, and how many times slower)."""
    f, s = statistics.median(fast), statistics.median(slow)
    p90 = sorted(fast)[int(len(fast) * 0.9)]
    return (
        f"median {f:6.3f} ms (target <= {target_ms}), p90 {p90:6.3f} ms",
        f"baseline {s:7.2f} ms; {s / f:6.1f}x",
    )


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("ceiling", CEILINGS)
def test_recall_per_turn(fixtures: dict[int, Fixture], n: int, ceiling: int) -> None:
    fx = fixtures[n]
    with Store(fx.store_path) as store:
        memory = RunMemory(store, fx.ws, _new_run(store, fx.ws), fx.limits)
        turns = _turns(Corpus(seed=n + 1))
        goal, touched = next(turns)
        t0 = time.perf_counter()
        memory.block(max_chars=ceiling, goal=goal, touched=touched, step=1)
        cold = _ms(t0)
        fast, slow = [], []
        for step in range(2, TURNS + 2):
            goal, touched = next(turns)
            t0 = time.perf_counter()
            block = memory.block(max_chars=ceiling, goal=goal, touched=touched, step=step)
            fast.append(_ms(t0))
            t0 = time.perf_counter()
            text, recalled = naive_block(store, fx.ws, ceiling, goal, touched)
            slow.append(_ms(t0))
            assert block.text == text and block.recalled == recalled
            assert len(block.text) <= ceiling
        assert (block.dropped > 0) == (n * 150 > ceiling)  # selection ran when over the share
    measured, baseline = _timed(fast, slow, target_ms={64: 0.5, 512: 2.0, 4_096: 10.0}[n])
    record(
        "memory_recall",
        f"{n:>5} notes, ceiling {ceiling:>6,} chars: {measured}, first turn {cold:6.2f} ms;"
        f" {baseline}; carried {len(block.recalled)}, dropped {block.dropped}",
    )


@pytest.mark.parametrize("n", SIZES)
def test_remember_at_the_cap(fixtures: dict[int, Fixture], n: int, tmp_path: Path) -> None:
    fx = fixtures[n]
    copy = tmp_path / "baseline.db"
    shutil.copy(fx.store_path, copy)
    corpus = Corpus(seed=n + 2)
    with Store(fx.store_path) as store, Store(copy) as base:
        memory = RunMemory(store, fx.ws, _new_run(store, fx.ws), fx.limits)
        base_run = _new_run(base, fx.ws)
        existing = [note.value for note in store.memory_list(fx.ws)]
        memory.block(max_chars=24_000, goal="warm", touched=[], step=1)  # the run's index
        fast, slow, restated = [], [], 0
        for i in range(REMEMBERS):
            key = f"new-{i}"
            if i % 5 == 0:  # restate an existing note, one word changed
                value = " ".join([*corpus.rng.choice(existing).split()[1:], "zzzz"])
            else:
                value = corpus.value()
            t0 = time.perf_counter()
            outcome = memory.remember(key, value, "workspace", 2)
            fast.append(_ms(t0))
            t0 = time.perf_counter()
            similar, evicted = naive_remember(base, fx.ws, base_run, key, value, fx.limits)
            slow.append(_ms(t0))
            assert outcome.ok and "evicted" in outcome.text
            written = outcome.events[0].detail
            assert written["similar"] == similar
            assert [e.detail["key"] for e in outcome.events[1:]] == evicted
            restated += bool(similar)
        assert restated >= REMEMBERS // 5 // 2
        assert len(store.memory_list(fx.ws)) == n
    measured, baseline = _timed(fast, slow, target_ms={64: 1.0, 512: 5.0, 4_096: 25.0}[n])
    record(
        "memory_remember",
        f"{n:>5} notes at the cap: {measured}; {baseline};"
        f" {restated} of {REMEMBERS} reported a restatement",
    )
