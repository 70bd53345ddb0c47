"""A dependency-free SVG chart of the demo: each request's estimated tokens per step, the
naive run and the bounded run, and the limit the bounded line can never cross — the
ceiling (which bounds the memory block, the observations and the trailer) plus the fixed
parts every request also carries (system prompt, task frame, tool schemas). Marks show the
steps where the bounded run re-read a stale file and where its window slid. The legend
sits above the plot, clear of the data; the y axis has ticks at round values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 800, 420
LEFT, RIGHT, TOP, BOTTOM = 78, 24, 84, 52  # the plot area's margins
COLOURS = {"naive": "#d1495b", "bounded": "#00798c", "limit": "#6c757d", "slide": "#edae49"}


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[int]
    colour: str
    dashed: bool = False


def nice_ticks(top: float, count: int = 5) -> list[int]:
    """Round tick values from 0 to at least ``top`` (steps of 1, 2 or 5 × 10^k)."""
    raw = max(top, 1) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return [int(step * i) for i in range(math.ceil(top / step) + 1)]


class _Plot:
    def __init__(self, steps: int, top: int) -> None:
        self.steps, self.top = max(1, steps), max(1, top)

    def x(self, step: int) -> float:  # steps are 1-based
        span = WIDTH - LEFT - RIGHT
        return LEFT + span * (step - 1) / max(1, self.steps - 1)

    def y(self, value: float) -> float:
        return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * value / self.top

    def points(self, values: Sequence[int]) -> str:
        return " ".join(f"{self.x(i + 1):.1f},{self.y(v):.1f}" for i, v in enumerate(values))


def chart(
    title: str,
    naive: Sequence[int],
    bounded: Sequence[int],
    limit: Sequence[int],
    *,
    rereads: Sequence[int] = (),
    slides: Sequence[int] = (),
) -> str:
    """The SVG text. ``rereads`` / ``slides``: the steps (1-based) to mark."""
    ticks = nice_ticks(max([*naive, *bounded, *limit, 1]))
    plot = _Plot(max(len(naive), len(bounded)), ticks[-1])
    series = [
        Series("naive: append everything", naive, COLOURS["naive"]),
        Series("bounded", bounded, COLOURS["bounded"]),
        Series("bounded limit: ceiling + fixed parts", limit, COLOURS["limit"], dashed=True),
    ]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="24" font-size="15">{escape(title)}</text>',
        *_axes(plot, ticks),
        *_slides(plot, slides),
    ]
    for s in series:
        dash = ' stroke-dasharray="6 4"' if s.dashed else ""
        parts.append(
            f'<polyline class="series" data-name="{escape(s.name)}" fill="none" '
            f'stroke="{s.colour}" stroke-width="2"{dash} points="{plot.points(s.values)}"/>'
        )
    for step in rereads:
        if 1 <= step <= len(bounded):
            parts.append(
                f'<circle class="reread" data-step="{step}" cx="{plot.x(step):.1f}" '
                f'cy="{plot.y(bounded[step - 1]):.1f}" r="4" fill="white" '
                f'stroke="{COLOURS["bounded"]}" stroke-width="2"/>'
            )
    parts += _legend(series)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _axes(plot: _Plot, ticks: Sequence[int]) -> list[str]:
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    out = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#333"/>',
        f'<text x="{(LEFT + right) // 2}" y="{HEIGHT - 12}" text-anchor="middle">step</text>',
        f'<text x="16" y="{(TOP + bottom) // 2}" transform="rotate(-90 16 {(TOP + bottom) // 2})"'
        ' text-anchor="middle">request tokens (estimated)</text>',
    ]
    for value in ticks:
        y = plot.y(value)
        out.append(
            f'<line class="ytick" x1="{LEFT - 4}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" '
            f'stroke="#e5e5e5"/>'
        )
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{value:,}</text>')
    every = nice_ticks(plot.steps, 10)[1] if plot.steps > 10 else 1
    for step in sorted({1, *range(every, plot.steps + 1, every)}):
        x = plot.x(step)
        out.append(
            f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 4}" stroke="#333"/>'
        )
        out.append(f'<text x="{x:.1f}" y="{bottom + 17}" text-anchor="middle">{step}</text>')
    return out


def _slides(plot: _Plot, slides: Sequence[int]) -> list[str]:
    return [
        f'<line class="slide" data-step="{step}" x1="{plot.x(step):.1f}" y1="{TOP}" '
        f'x2="{plot.x(step):.1f}" y2="{HEIGHT - BOTTOM}" stroke="{COLOURS["slide"]}" '
        'stroke-width="2" stroke-dasharray="2 3"/>'
        for step in slides
    ]


def _legend(series: Sequence[Series]) -> list[str]:
    """Rows above the plot area: the three lines and the two marks, drawn as in the plot."""
    out = []
    x, y = LEFT, 50
    items: list[tuple[str, str, str]] = [
        (s.name, s.colour, ' stroke-dasharray="6 4"' if s.dashed else "") for s in series
    ]
    items += [
        ("re-read (stale file)", "reread", ""),
        ("window slid", COLOURS["slide"], ' stroke-dasharray="2 3"'),
    ]
    for name, colour, dash in items:
        needed = 36 + round(7.5 * len(name))  # the swatch, a gap, about 7.5 px a character
        if x + needed > WIDTH - RIGHT:
            x, y = LEFT, y + 18
        if colour == "reread":
            out.append(
                f'<circle cx="{x + 9}" cy="{y - 4}" r="4" fill="white" '
                f'stroke="{COLOURS["bounded"]}" stroke-width="2"/>'
            )
        else:
            out.append(
                f'<line x1="{x}" y1="{y - 4}" x2="{x + 18}" y2="{y - 4}" stroke="{colour}" '
                f'stroke-width="2"{dash}/>'
            )
        out.append(f'<text class="legend" x="{x + 24}" y="{y}">{escape(name)}</text>')
        x += needed
    return out


__all__ = ["chart", "nice_ticks"]
