"""``harness trace runs|show|step``: read back what runs did, step by step (§8.1 shapes).

Human output escapes every control character (``harness.escape.printable``): the goal, the
model's words, tool calls and command output were chosen by someone else, and an escape
sequence could redraw the operator's terminal. ``--json`` prints the values as stored."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.table import Table
from rich.text import Text

from harness.cli.common import add_store_arg, console, open_store, print_json
from harness.escape import printable


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
    table = Table(box=None)
    for name in ("run", "outcome", "steps", "tokens", "started"):
        table.add_column(name, no_wrap=True)
    table.add_column("goal", no_wrap=True, overflow="ellipsis", max_width=60)
    for r in rows:
        table.add_row(
            str(r.run_id),
            Text(printable(r.outcome or "running")),
            str(r.steps),
            f"{r.spent_tokens:,}",
            Text(printable(r.started_at)),
            Text(printable(r.goal[:60])),
        )
    console().print(table)
    return 0


def _show(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        trace = store.run_trace(args.run)
        if trace is None:
            print(f"harness: no run {args.run} in {store.path}", file=sys.stderr)
            return 1
    run, steps = trace.run, trace.steps
    if args.json:
        print_json(trace.to_json())
        return 0
    out = console()
    out.print(
        Text(printable(f"run {run.run_id} · {run.outcome or 'running'} · {run.goal}")),
        soft_wrap=True,
    )
    table = Table(box=None)
    numeric = (
        "est.\ntokens",
        "reported\ntokens",
        "ceiling",
        "carried",
        "stubbed",
        "re-read",
        "recalled",
        "result\nchars",
    )
    widths = [max(7, *(len(p) for p in name.split("\n"))) for name in numeric]
    # Numbers never wrap; the decision column gets what is left of the width.
    room = out.width - sum(w + 2 for w in widths) - 8
    table.add_column("step", justify="right", no_wrap=True, min_width=4)
    table.add_column("decision", no_wrap=True, overflow="ellipsis", width=max(10, min(48, room)))
    for name, width in zip(numeric, widths, strict=True):
        table.add_column(name, justify="right", no_wrap=True, min_width=width)
    for s in steps:
        table.add_row(
            str(s.step),
            Text(printable(s.decision)),
            f"{s.est_tokens:,}",
            f"{s.reported_prompt_tokens:,}" if s.reported_prompt_tokens else "-",
            f"{s.effective_tokens:,}",
            str(s.carried),
            str(s.stubbed),
            str(s.reread),
            str(s.recalled),
            f"{s.result_chars:,}",
        )
    out.print(table)
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
        out.write(f"===== {_text(message['role'])} =====\n{_text(message['content'])}\n")
    out.write(f"===== tool calls =====\n{_text(detail.tool_calls)}\n")
    out.write(f"===== results (unelided) =====\n{_text(detail.result)}\n")
    for event in detail.events:
        out.write(f"event {printable(str(event['kind']))}: {printable(str(event['detail']))}\n")
    return 0


def _text(value: object) -> str:
    """A stored value for the terminal: line breaks kept, every other control escaped."""
    return printable(value if isinstance(value, str) else str(value), keep_newlines=True)
