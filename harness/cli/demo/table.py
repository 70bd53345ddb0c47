"""The demo's per-step table: bounded and naive side by side — each request's characters,
the characters it shares with the request before, and its cache-priced cost — with a
total row, fitted to the terminal: every number whole while the table fits, else every
number shortened (``1.83M``), never cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.cli.demo.driver import ScenarioResult, StepStat

GAP = "  "


def note(step: StepStat) -> str:
    """What happened to the bounded request: a stale file re-read, the window slid."""
    if step.reread and step.slid:
        return "both"
    return "re-read" if step.reread else ("slide" if step.slid else "")


def whole(n: float) -> str:
    return f"{round(n):,}"


def short(n: float) -> str:
    """``950``, ``12.4k``, ``1.83M``."""
    if n < 10_000:
        return f"{round(n):,}"
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"


def _rows(
    bounded: ScenarioResult, naive: ScenarioResult, fmt: Callable[[float], str]
) -> list[list[str]]:
    rows = []
    for b, n in zip(bounded.steps, naive.steps, strict=False):
        rows.append(
            [
                str(b.step),
                fmt(b.request_chars),
                fmt(b.shared_chars),
                fmt(b.cost),
                note(b),
                fmt(n.request_chars),
                fmt(n.shared_chars),
                fmt(n.cost),
            ]
        )
    totals = (bounded.total_chars, bounded.total_shared, bounded.total_cost)
    naive_totals = (naive.total_chars, naive.total_shared, naive.total_cost)
    rows.append(["total", *map(fmt, totals), "", *map(fmt, naive_totals)])
    return rows


HEADERS = ["step", "chars", "shared", "cost", "", "chars", "shared", "cost"]


def _layout(rows: Sequence[Sequence[str]]) -> tuple[list[int], int]:
    widths = [max(len(r[i]) for r in [HEADERS, *rows]) for i in range(len(HEADERS))]
    # step | bounded: chars shared cost note | naive: chars shared cost
    return widths, sum(widths) + len(GAP) * (len(widths) - 1)


def render(bounded: ScenarioResult, naive: ScenarioResult, columns: int) -> list[str]:
    """The table's lines, at most ``columns`` wide when the numbers allow (whole numbers
    if they fit, else shortened ones)."""
    rows = _rows(bounded, naive, whole)
    widths, total = _layout(rows)
    if total > columns:
        rows = _rows(bounded, naive, short)
        widths, total = _layout(rows)
    span_b = sum(widths[1:5]) + len(GAP) * 3
    span_n = sum(widths[5:]) + len(GAP) * 2
    groups = GAP.join(
        [
            " " * widths[0],
            " bounded ".center(span_b, "─"),
            " naive ".center(span_n, "─"),
        ]
    )
    lines = [groups]
    for row in [HEADERS, *rows]:
        cells = [
            cell.ljust(w) if i == 4 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append(GAP.join(cells).rstrip())
    return lines


__all__ = ["note", "render", "short", "whole"]
