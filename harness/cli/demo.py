"""``harness demo``: the main job with no API key. The scripted session runs twice over
fresh copies of a generated project — with the bounded context and with a naive
append-everything baseline — and prints per-step request sizes side by side, writes an SVG
chart, then shows the memory a second run recalls."""

from __future__ import annotations

import argparse
import asyncio
import shutil
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from harness.contract import DEFAULT_TOKEN_BUDGET
from harness.demo.chart import line_chart
from harness.demo.driver import ScenarioResult, run_scenario
from harness.store import Store


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="scripted demo: bounded vs naive context, and memory")
    p.add_argument("--steps", type=int, default=20, help="steps in the session (default 20)")
    p.add_argument("--out", default="demo-out", help="directory for the workspaces, store, chart")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    steps = max(12, min(args.steps, 200))
    out = Path(args.out).resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    return asyncio.run(_demo(out, steps))


async def _demo(out: Path, steps: int) -> int:
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)
    store = Store(out / "demo.db")
    console.print(f"[bold]harness demo[/] · {steps} scripted steps · store {out / 'demo.db'}")
    bounded = await run_scenario(out / "bounded", store, steps=steps, naive=False)
    naive = await run_scenario(out / "naive", store, steps=steps, naive=True)
    _table(console, bounded, naive)
    chart = out / "context.svg"
    chart.write_text(
        line_chart(
            "Request size per step (estimated tokens)",
            {
                "naive": [s.est_tokens for s in naive.steps],
                "bounded": [s.est_tokens for s in bounded.steps],
                "ceiling of the observation section": [s.ceiling for s in bounded.steps],
            },
        )
    )
    console.print(f"chart: {chart}")
    await _memory(console, out, store)
    store.close()
    return 0 if bounded.outcome.ok and naive.outcome.ok else 1


def _table(console: Console, bounded: ScenarioResult, naive: ScenarioResult) -> None:
    table = Table(title="Request size per step: bounded vs naive", box=None)
    for column in (
        "step",
        "bounded chars",
        "~tokens",
        "ceiling",
        "carried",
        "stubbed",
        "re-read",
        "naive chars",
        "~tokens",
    ):
        table.add_column(column, justify="right")
    for b, n in zip(bounded.steps, naive.steps, strict=False):
        table.add_row(
            str(b.step),
            f"{b.request_chars:,}",
            f"{b.est_tokens:,}",
            f"{b.ceiling:,}",
            str(b.carried),
            str(b.stubbed),
            str(b.reread),
            f"{n.request_chars:,}",
            f"{n.est_tokens:,}",
        )
    table.add_row(
        "total",
        f"{bounded.total_chars:,}",
        f"{bounded.total_tokens:,}",
        "",
        "",
        "",
        "",
        f"{naive.total_chars:,}",
        f"{naive.total_tokens:,}",
        style="bold",
    )
    console.print(table)
    ratio = bounded.total_chars / max(1, naive.total_chars)
    console.print(
        f"bounded run {bounded.run_id}: {bounded.outcome.value}, "
        f"{bounded.spent_tokens:,} tokens spent · naive run {naive.run_id}: "
        f"{naive.outcome.value}, {naive.spent_tokens:,} tokens spent\n"
        f"bounded/naive request chars = {ratio:.2f}; the bounded run re-read "
        f"{sum(s.reread for s in bounded.steps)} stale files for the model (its own edits and "
        "the user's save of src/calc/lexer.py) — the naive run kept sending the old text",
        highlight=False,
    )
    if naive.spent_tokens > DEFAULT_TOKEN_BUDGET:
        console.print(
            f"the naive run needed {naive.spent_tokens:,} tokens: with the default budget of "
            f"{DEFAULT_TOKEN_BUDGET:,} it would have stopped with budget_exhausted",
            highlight=False,
        )


async def _memory(console: Console, out: Path, store: Store) -> None:
    """A second run over the bounded workspace: its first request carries the notes."""
    second = await run_scenario(
        out / "bounded",
        store,
        steps=2,
        naive=False,
        create=False,
        turns=[{"content": "The notes say how to run the tests; nothing else to do."}],
    )
    first = second.requests[0]
    start = first.find("## ")
    end = first.find("# Observations")
    block = first[start:end].strip() if 0 <= start < end else "(no notes recalled)"
    console.print(f"\n[bold]Memory recalled by run {second.run_id}[/] (its first request):")
    console.print(block, markup=False, highlight=False)
