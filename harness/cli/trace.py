"""``harness trace runs|show|step``: read back what runs did, step by step. ``--json`` prints
the values as stored (the same objects as the ``harness.trace.*`` commands).

The human tables fit the terminal from 80 columns up (``harness.cli.table``): the id column
and the numbers are never cut, long text is cut with ``…``. ``trace show`` puts each step's
decision, its refused and failed calls and the model's words on lines of their own under
its numbers. Every control character is escaped (``harness.escape.printable``): the goal,
the model's words, tool calls and command output were chosen by someone else, and an
escape sequence could redraw the operator's terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from harness.cli.args import add_json_arg, add_store_arg, commands, open_store
from harness.cli.output import console, print_found, print_json, prose
from harness.cli.table import Column, cut, render
from harness.cli.times import local_minute
from harness.escape import printable

if TYPE_CHECKING:  # rich and the store load when a command reads the trace
    from rich.console import Console
    from rich.text import Text

    from harness.store.records import RunRow, RunTrace, StepDetail, StepRow

RUNS_LIMIT = 20


def register(sub: Any) -> None:
    p = sub.add_parser("trace", help="read the trace of past runs")
    tsub = commands(p, "trace_command")
    runs = tsub.add_parser("runs", help="recent runs, newest first")
    runs.add_argument(
        "--limit", type=int, default=RUNS_LIMIT, help=f"how many (default: {RUNS_LIMIT})"
    )
    show = tsub.add_parser("show", help="one run, step by step")
    show.add_argument("run", type=int, metavar="RUN", help="the run's id (see trace runs)")
    step = tsub.add_parser("step", help="one step: the full prompt as sent and the full results")
    step.add_argument("run", type=int, metavar="RUN", help="the run's id")
    step.add_argument("step", type=int, metavar="STEP", help="the step's number")
    for q, what in ((runs, "the runs"), (show, "the run and its steps"), (step, "the step")):
        add_store_arg(q)
        add_json_arg(q, what)
    runs.set_defaults(func=_runs)
    show.set_defaults(func=_show)
    step.set_defaults(func=_step)


RUN_COLUMNS = (
    Column("run", "id"),
    Column("outcome", "fixed"),
    Column("steps", "number"),
    Column("tokens", "number"),
    Column("started", "fixed"),
    Column("turn", "fixed"),
    Column("goal", min_width=12),
)


def _turn(row: RunRow) -> str:
    """``1`` for a run that started its conversation, ``2 of #5`` for a follow-up (what
    ``--continue`` takes is any run of it)."""
    first = row.conversation_id or row.run_id
    return str(row.turn) if first == row.run_id else f"{row.turn} of #{first}"


def _runs(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        rows = store.list_runs(limit=max(1, args.limit))
    if args.json:
        print_json([r.to_json() for r in rows])
        return 0
    out = console()
    table = [
        [
            str(r.run_id),
            r.outcome or "running",
            str(r.steps),
            f"{r.spent_tokens:,}",
            local_minute(r.started_at),
            _turn(r),
            " ".join(r.goal.split()),
        ]
        for r in rows
    ]
    _print_lines(out, render(RUN_COLUMNS, table, out.width)[0])
    return 0


STEP_COLUMNS = (
    Column("step", "id"),
    Column("est. tokens", "number", short="est"),
    Column("reported", "number", short="rep"),
    Column("cached", "number", short="cache"),
    Column("ceiling", "number", short="ceil"),
    Column("carried", "number", short="car"),
    Column("stubbed", "number", short="stb"),
    Column("re-read", "number", short="rr"),
    Column("recalled", "number", short="mem"),
    Column("refused", "number", short="ref"),
    Column("failed", "number", short="fail"),
    Column("result chars", "number", short="chars"),
)
LEGEND = (
    "est/rep: request tokens estimated/reported · cache: reported cached · ceil: ceiling · "
    "car/stb/rr: entries carried, stubbed, re-read · mem: notes recalled · ref/fail: calls "
    "refused/failed · chars: result chars"
)
INDENT = 6


def _show(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        trace = store.run_trace(args.run)
        missing = f"harness: no run {args.run} in {store.path}"
    return print_found(args, trace, missing, _print_trace)


def _print_trace(trace: RunTrace) -> None:
    from rich.text import Text

    out = console()
    for line in _heading(trace):
        prose(Text(printable(line)), out)
    lines, short = render(STEP_COLUMNS, [_numbers(s) for s in trace.steps], out.width)
    out.print(lines[0], soft_wrap=True)
    for step, row in zip(trace.steps, lines[1:], strict=True):
        out.print(row, soft_wrap=True)
        for sub in _under(step, out.width):
            out.print(sub, soft_wrap=True)
    if short:
        prose(Text(LEGEND, style="dim"), out)


def _heading(trace: RunTrace) -> list[str]:
    from harness.cli.summary import plural

    run = trace.run
    refused = sum(s.refused for s in trace.steps)
    failed = sum(s.failed for s in trace.steps)
    facts = [
        f"workspace {run.workspace}",
        *([f"conversation {run.conversation_id}, turn {run.turn}"] if run.turn > 1 else []),
        plural(run.steps, "step"),
        f"{run.spent_tokens:,} tokens",
        f"{refused} refused, {failed} failed",
        f"started {local_minute(run.started_at)}",
    ]
    lines = [
        f"run {run.run_id} · {run.outcome or 'running'} · {' '.join(run.goal.split())}",
        " · ".join(facts),
    ]
    if trace.files_changed:
        lines.append("files changed: " + ", ".join(trace.files_changed))
    if run.error:
        lines.append(f"error: {run.error}")
    return lines


def _numbers(s: StepRow) -> list[str]:
    def maybe(n: int | None) -> str:
        return "-" if n is None else f"{n:,}"

    return [
        str(s.step),
        f"{s.est_tokens:,}",
        maybe(s.reported_prompt_tokens),
        maybe(s.cached_prompt_tokens),
        f"{s.effective_tokens:,}",
        str(s.counts.carried),
        str(s.counts.stubbed),
        str(s.counts.reread),
        str(s.counts.recalled),
        str(s.refused),
        str(s.failed),
        f"{s.result_chars:,}",
    ]


def _under(s: StepRow, width: int) -> list[Text]:
    """The step's decision (with its refused and failed calls flagged) and the model's words,
    each on one line cut to the width."""
    from rich.text import Text

    room = width - INDENT
    flags = [f"{n} {word}" for n, word in ((s.refused, "refused"), (s.failed, "failed")) if n]
    flag = f"  ✗ {' · '.join(flags)}" if flags else ""
    decision = Text(" " * INDENT + cut(printable(s.decision), max(8, room - len(flag))))
    if flag:
        decision.append(flag, style="red")
    lines = [decision]
    if s.said is not None:
        said = cut(printable(" ".join(s.said.split())), room - len("said: "))
        lines.append(Text(" " * INDENT + f"said: {said}", style="italic"))
    return lines


def _print_lines(out: Console, lines: list[Text]) -> None:
    for line in lines:
        out.print(line, soft_wrap=True)


def _step(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        detail = store.step_detail(args.run, args.step)
    return print_found(args, detail, f"harness: no step {args.step} in run {args.run}", _print_step)


def _print_step(detail: StepDetail) -> None:
    out = sys.stdout
    for message in detail.prompt:
        out.write(f"===== {_text(message['role'])} =====\n{_text(message['content'])}\n")
    out.write(f"===== tool calls =====\n{_text(_json(detail.tool_calls))}\n")
    out.write(f"===== results (unelided) =====\n{_text(detail.result)}\n")
    for event in detail.events:
        out.write(f"event {printable(str(event['kind']))}: {printable(_json(event['detail']))}\n")


def _json(value: object) -> str:
    """Tool calls and event details as JSON (what the store holds), not Python's repr."""
    return json.dumps(value, ensure_ascii=False, indent=None if not isinstance(value, list) else 2)


def _text(value: object) -> str:
    """A stored value for the terminal: line breaks kept, every other control escaped."""
    return printable(value if isinstance(value, str) else str(value), keep_newlines=True)


__all__ = ["register"]
