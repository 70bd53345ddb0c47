"""``harness demo``: the main job with no API key, as a first contact. A scripted two-turn
conversation over a generated project in the live view of ``harness run`` (the model's
words, a row per call with ✓/✗ and why, the user's save re-read, the diff of what changed;
the follow-up and the notes it recalls); then the cost against the honest baseline in three
lines, and the commands to go further — each printed as it can be typed from here.

``--table``: the benchmark behind those three lines. The scripted session runs twice over
fresh copies of the project — with the bounded context and with the honest naive baseline
(every result appended, nothing already sent changed, the trailer last) — printing, per
step and in total, each request's characters, the prefix it shares with the request before,
and its cache-priced cost, side by side; the memory a second run recalls; and how to explore
the bounded run. Both write the SVG chart.

The package is the demo too: the generated workspace (``workspace``), the scripted session
over it (``session``, ``conversation``), the driver the context benchmarks use too
(``driver``), the cache-priced cost (``pricing``), the side-by-side table (``table``) and
the SVG (``chart``).
"""

from __future__ import annotations

import argparse
import math
import shlex
import shutil
import sys
import textwrap
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.defaults import DEFAULT_TOKEN_BUDGET
from harness.escape import printable

if TYPE_CHECKING:  # the demo's machinery loads when it runs, not to parse the arguments
    from rich.console import Console

    from harness.cli.demo.conversation import Turn
    from harness.cli.demo.driver import ScenarioResult
    from harness.cli.summary import RunTally
    from harness.store import Store

MIN_STEPS, MAX_STEPS = 12, 100


def register(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="scripted demo, no API key: bounded vs naive context, cost with caching, memory",
    )
    p.add_argument(
        "--steps",
        type=int,
        default=20,
        help=f"steps in the session, {MIN_STEPS} to {MAX_STEPS} (default: 20)",
    )
    p.add_argument(
        "--table",
        action="store_true",
        help="the full benchmark: bounded vs naive per step, and the memory a later run "
        "recalls (default: the conversation, then the cost in three lines)",
    )
    p.add_argument(
        "--out",
        default="demo-out",
        help="directory for the workspaces, the store and the chart (default: demo-out)",
    )
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    steps = max(MIN_STEPS, min(args.steps, MAX_STEPS))
    out = Path(args.out).resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    import asyncio

    return asyncio.run(_demo(out, steps) if args.table else _first_contact(out, steps))


def invoked() -> str:
    """How this ``harness`` was started, as it can be typed again here: ``harness`` when
    that is what PATH finds, else the program's path (``.venv/bin/harness``), or
    ``python -m harness`` with this interpreter."""
    program = Path(sys.argv[0])
    if program.name == "__main__.py":
        return f"{shlex.quote(sys.executable)} -m harness"
    found = shutil.which("harness")
    if found is not None and Path(found).resolve() == program.resolve():
        return "harness"
    return shlex.quote(shown(program.absolute()))


def shown(path: Path) -> str:
    """``path`` relative to the current directory when under it (what a user would type)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class Printer:
    """Lines to the terminal, prose wrapped to its width (the table is fitted to it)."""

    def __init__(self, columns: int) -> None:
        self.columns = columns

    def __call__(self, text: str = "", indent: str = "") -> None:
        lines = text.split("\n") if text else [""]
        for line in lines:
            lead = line[: len(line) - len(line.lstrip())]
            wrapped = textwrap.fill(
                line.strip(),
                self.columns,
                initial_indent=lead,
                subsequent_indent=lead + indent,
                break_on_hyphens=False,
                break_long_words=False,
            )
            print(printable(wrapped or "", keep_newlines=True))

    def raw(self, line: str) -> None:
        print(printable(line))


async def _demo(out: Path, steps: int) -> int:
    from harness.cli.demo.driver import run_scenario
    from harness.cli.demo.table import render
    from harness.store import Store

    say = Printer(shutil.get_terminal_size((80, 24)).columns)  # COLUMNS, the terminal, or 80
    store = Store(out / "demo.db")
    say(f"harness demo · {steps} scripted steps, run twice over a generated project")
    bounded = await run_scenario(out / "bounded", store, steps=steps, naive=False)
    naive = await run_scenario(out / "naive", store, steps=steps, naive=True)
    _budgets(say, bounded, naive)
    say()
    for line in render(bounded, naive, say.columns):
        say.raw(line)
    say()
    _summary(say, bounded, naive)
    chart_path = out / "context.svg"
    chart_path.write_text(_chart(bounded, naive))
    say(f"chart: {shown(chart_path)}")
    await _memory(say, out, store)
    store.close()
    say()
    say("Explore the bounded run step by step:")
    say.raw(f"  {invoked()} trace show {bounded.run_id} --store {shown(out / 'demo.db')}")
    return 0 if bounded.outcome.ok and naive.outcome.ok else 1


async def _first_contact(out: Path, steps: int) -> int:
    from rich.console import Console

    from harness.cli.demo import session
    from harness.cli.demo.conversation import FIRST, FOLLOW_UP, SECOND
    from harness.cli.demo.driver import DEMO, run_scenario
    from harness.context import shared_prefix_chars
    from harness.store import Store

    say = Printer(shutil.get_terminal_size((80, 24)).columns)
    store = Store(out / "demo.db")
    live = Console(file=sys.stdout, width=say.columns, highlight=False)
    project = out / "project"
    DEMO.create(project)
    say("harness demo · a scripted model at work on a generated project (no API key)")
    say()
    say(f"You: {session.GOAL}")
    where = f"workspace {shown(project)}"
    shows = partial(_turn, say, project=project, store=store, live=live, where=where)
    first = await shows(session.GOAL, FIRST, user_saves=True)
    say()
    say(f"You: {FOLLOW_UP}")
    second = await shows(FOLLOW_UP, SECOND, conversation_id=first.result.run_id)
    before, after = first.requests[-1], second.requests[0]
    shared = shared_prefix_chars(before.texts(), after.texts())
    kept = sum(map(len, before.texts())) - len(before.trailer)
    say()
    reused = f"all {kept:,}" if shared >= kept else f"{shared:,} of the {kept:,}"
    say(
        f"The follow-up's first request began with {reused} characters the previous request "
        "sent before its last line: the provider's cache already holds them."
    )
    await _recalled(say, out, store, project)
    bounded = await run_scenario(out / "bounded", store, steps=steps, naive=False)
    naive = await run_scenario(out / "naive", store, steps=steps, naive=True)
    store.close()
    (out / "context.svg").write_text(_chart(bounded, naive))
    say()
    _cost(say, bounded, naive)
    say()
    say("Go further:")
    say.raw(f"  {invoked()} trace show {first.result.run_id} --store {shown(out / 'demo.db')}")
    say.raw(f"  {invoked()} demo --table")  # a command is never wrapped: it is copied
    turns_ok = first.result.end.outcome.ok and second.result.end.outcome.ok
    return 0 if turns_ok and bounded.outcome.ok and naive.outcome.ok else 1


async def _recalled(say: Printer, out: Path, store: Store, project: Path) -> None:
    """A new conversation in the project: its first request carries the notes."""
    from harness.cli.demo.conversation import recalled_notes
    from harness.cli.demo.driver import run_scenario

    later = await run_scenario(
        project, store, steps=2, naive=False, create=False, turns=[{"content": "Nothing to do."}]
    )
    say()
    say(f"A new conversation (run {later.run_id}) starts with the notes the first one wrote:")
    for line in recalled_notes(later.requests[0]):
        say("  " + line, indent="    ")


async def _turn(
    say: Printer,
    goal: str,
    turns: list[dict[str, Any]],
    *,
    project: Path,
    store: Store,
    live: Console,
    where: str,
    **options: Any,
) -> Turn:
    """One turn of the conversation in ``harness run``'s live view, then its end."""
    from harness.cli.demo.conversation import run_turn
    from harness.cli.progress import TerminalObserver

    view = TerminalObserver(live, workspace=where, model="a scripted model", fit=True)
    turn = await run_turn(project, store, goal, turns, view=view, on_event=view.event, **options)
    _ended(say, turn, view.tally)
    return turn


def _ended(say: Printer, turn: Turn, tally: RunTally) -> None:
    """A turn's end: its last words, the files changed, the final line, then the diff."""
    from harness.cli.demo.conversation import diff_lines
    from harness.cli.summary import end_lines
    from harness.cli.table import cut

    for line in end_lines(turn.result, tally, turn.changes):
        say(line.plain, indent="  ")
    for line in diff_lines(turn.changes):
        say.raw(cut(line.plain, say.columns))


def _cost(say: Printer, bounded: ScenarioResult, naive: ScenarioResult) -> None:
    """The cost against the honest baseline, in three lines."""
    from harness.cli.demo.pricing import CACHE_READ, CACHE_WRITE

    raw = bounded.total_chars / max(1, naive.total_chars)
    cost = bounded.total_cost / max(1, naive.total_cost)
    say(
        f"Cost, bounded vs the honest baseline ({len(bounded.steps)} scripted steps, every "
        "result appended, nothing sent changed):"
    )
    say(f"  characters sent     {raw:.2f}×  ({bounded.total_chars:,} vs {naive.total_chars:,})")
    say(
        f"  cache-priced cost   {cost:.2f}×  (cache reads at {CACHE_READ}×, writes at "
        f"{CACHE_WRITE}×)"
    )
    say(
        f"  shared prefix       {bounded.shared_share:.0%} vs {naive.shared_share:.0%} of the "
        "characters"
    )


def _budgets(say: Printer, bounded: ScenarioResult, naive: ScenarioResult) -> None:
    if bounded.token_budget == DEFAULT_TOKEN_BUDGET:
        given = f"the default token budget ({DEFAULT_TOKEN_BUDGET:,})"
    else:
        given = (
            f"a token budget of {bounded.token_budget:,}, raised from the default "
            f"{DEFAULT_TOKEN_BUDGET:,} so that {len(bounded.steps)} steps finish at the full "
            "ceiling"
        )
    say(
        f"  bounded run {bounded.run_id}: the bounded context, {given}: "
        f"{bounded.outcome.value} after {len(bounded.steps)} steps, "
        f"{bounded.spent_tokens:,} tokens spent",
        indent="  ",
    )
    say(
        f"  naive run {naive.run_id}: every result appended, nothing already sent changed, no "
        f"budget: {naive.outcome.value} after {len(naive.steps)} steps, "
        f"{naive.spent_tokens:,} tokens spent"
        + (
            f" (the default budget of {DEFAULT_TOKEN_BUDGET:,} would have stopped it)"
            if naive.spent_tokens > DEFAULT_TOKEN_BUDGET
            else ""
        ),
        indent="  ",
    )


def _summary(say: Printer, bounded: ScenarioResult, naive: ScenarioResult) -> None:
    from harness.cli.demo import session
    from harness.cli.demo.pricing import CACHE_READ, CACHE_WRITE

    raw = bounded.total_chars / max(1, naive.total_chars)
    cost = bounded.total_cost / max(1, naive.total_cost)
    refreshes = sum(s.reread for s in bounded.steps)
    slides = sum(s.slid for s in bounded.steps)
    say(f"bounded / naive: {raw:.2f}× the characters, {cost:.2f}× the cache-priced cost")
    say(
        f"shared prefix: {bounded.shared_share:.0%} of the bounded run's characters, "
        f"{naive.shared_share:.0%} of the naive run's"
    )
    say(
        "chars: the request as sent (system prompt, frame, notes, observations, the last "
        "line; not the tool schemas, the same in both) · shared: what it shares from the start "
        f"with the request before · cost: input-token equivalents, the shared part read from "
        f"the cache at {CACHE_READ}× and the rest written to it at {CACHE_WRITE}× (Anthropic's "
        "ratios; 4 chars ≈ 1 token)"
    )
    times = "once" if slides == 1 else f"{slides} times"
    say(
        f"The bounded run appended {refreshes} refreshes of stale reads (the changed lines as "
        f"they are now, after its own edits and the user's save of {session.DISK_EDIT_PATH}) "
        f"and slid its window {times}; the naive run kept sending the old text."
    )


def _chart(bounded: ScenarioResult, naive: ScenarioResult) -> str:
    from harness.cli.demo.chart import chart

    fixed = math.ceil(bounded.fixed_chars / 4)
    return chart(
        "Request size per step: naive vs bounded (estimated tokens)",
        [s.est_tokens for s in naive.steps],
        [s.est_tokens for s in bounded.steps],
        [s.ceiling + fixed for s in bounded.steps],
        rereads=[s.step for s in bounded.steps if s.reread],
        slides=[s.step for s in bounded.steps if s.slid],
    )


async def _memory(say: Printer, out: Path, store: Store) -> None:
    """A second run over the bounded workspace: its first request carries the notes."""
    from harness.cli.demo.driver import run_scenario

    second = await run_scenario(
        out / "bounded",
        store,
        steps=2,
        naive=False,
        create=False,
        turns=[{"content": "The notes say how to run the tests; nothing else to do."}],
    )
    first = second.requests[0]
    lead = first.messages[0].parts if first.messages else ()
    block = next((p for p in lead if p.startswith("## Memory")), "(no notes recalled)")
    say()
    say(f"Memory recalled by run {second.run_id} (its first request):")
    say(block, indent="  ")
