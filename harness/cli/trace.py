"""``harness trace runs|show|step``: read back what runs did, step by step (§8.1 shapes)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from harness.cli.common import add_store_arg, open_store, print_json


def register(sub: Any) -> None:
    p = sub.add_parser("trace", help="read the trace of past runs")
    tsub = p.add_subparsers(dest="trace_command", required=True, parser_class=type(p))
    runs = tsub.add_parser("runs", help="recent runs")
    runs.add_argument("--limit", type=int, default=20)
    show = tsub.add_parser("show", help="one run, step by step")
    show.add_argument("run", type=int)
    step = tsub.add_parser("step", help="one step: the full prompt as sent and the full results")
    step.add_argument("run", type=int)
    step.add_argument("step", type=int)
    for q in (runs, show, step):
        add_store_arg(q)
        q.add_argument("--json", action="store_true")
    runs.set_defaults(func=_runs)
    show.set_defaults(func=_show)
    step.set_defaults(func=_step)


def _runs(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        rows = store.list_runs(limit=max(1, args.limit))
    if args.json:
        print_json([r.to_json() for r in rows])
        return 0
    table = Table("run", "outcome", "steps", "tokens", "started", "goal", box=None)
    for r in rows:
        table.add_row(
            str(r.run_id),
            r.outcome or "running",
            str(r.steps),
            f"{r.spent_tokens:,}",
            r.started_at,
            r.goal[:60],
        )
    Console().print(table)
    return 0


def _show(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        run = store.get_run(args.run)
        if run is None:
            print(f"harness: no run {args.run} in {store.path}", file=sys.stderr)
            return 1
        steps = store.run_steps(args.run)
    if args.json:
        print_json({"run": run.to_json(), "steps": [s.to_json() for s in steps]})
        return 0
    console = Console()
    console.print(f"run {run.run_id} · {run.outcome or 'running'} · {run.goal}", markup=False)
    table = Table(
        "step",
        "decision",
        "est",
        "reported",
        "ceiling",
        "carried",
        "stubbed",
        "re-read",
        "recalled",
        "result chars",
        box=None,
    )
    for s in steps:
        table.add_row(
            str(s.step),
            s.decision[:50],
            f"{s.est_tokens:,}",
            f"{s.reported_prompt_tokens:,}" if s.reported_prompt_tokens else "-",
            f"{s.effective_tokens:,}",
            str(s.carried),
            str(s.stubbed),
            str(s.reread),
            str(s.recalled),
            f"{s.result_chars:,}",
        )
    console.print(table)
    return 0


def _step(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        detail = store.step_detail(args.run, args.step)
    if detail is None:
        print(f"harness: no step {args.step} in run {args.run}", file=sys.stderr)
        return 1
    if args.json:
        print_json(detail.to_json())
        return 0
    out = sys.stdout
    for message in detail.prompt:
        out.write(f"===== {message['role']} =====\n{message['content']}\n")
    out.write(f"===== tool calls =====\n{detail.tool_calls}\n")
    out.write(f"===== results (unelided) =====\n{detail.result}\n")
    for event in detail.events:
        out.write(f"event {event['kind']}: {event['detail']}\n")
    return 0
