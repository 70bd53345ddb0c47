"""A dependency-free SVG line chart of per-step request size: bounded vs naive, with the
bounded run's ceiling."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

WIDTH, HEIGHT, PAD = 760, 360, 56
SERIES_COLOURS = {"naive": "#d1495b", "bounded": "#00798c", "ceiling": "#8d99ae"}


def _points(values: Sequence[int], top: int) -> str:
    n = max(1, len(values) - 1)
    xs = [PAD + (WIDTH - 2 * PAD) * i / n for i in range(len(values))]
    ys = [HEIGHT - PAD - (HEIGHT - 2 * PAD) * v / top for v in values]
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))


def line_chart(title: str, series: dict[str, Sequence[int]], unit: str = "tokens") -> str:
    top = max((max(v) for v in series.values() if v), default=1) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{PAD}" y="24" font-size="15">{escape(title)}</text>',
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" '
        'stroke="#333"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#333"/>',
        f'<text x="{PAD - 6}" y="{PAD + 4}" text-anchor="end">{top:,}</text>',
        f'<text x="{PAD - 6}" y="{HEIGHT - PAD + 4}" text-anchor="end">0</text>',
        f'<text x="{WIDTH // 2}" y="{HEIGHT - 16}" text-anchor="middle">step</text>',
        f'<text x="{PAD}" y="{HEIGHT - PAD + 16}" text-anchor="middle">1</text>',
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - PAD + 16}" text-anchor="middle">'
        f"{max((len(v) for v in series.values()), default=1)}</text>",
        f'<text x="14" y="{HEIGHT // 2}" transform="rotate(-90 14 {HEIGHT // 2})" '
        f'text-anchor="middle">request {escape(unit)}</text>',
    ]
    for i, (name, values) in enumerate(series.items()):
        colour = SERIES_COLOURS.get(name.split()[0], "#444")
        dash = ' stroke-dasharray="6 4"' if name.startswith("ceiling") else ""
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} '
            f'points="{_points(values, top)}"/>'
        )
        y = PAD + 16 * i
        parts.append(
            f'<rect x="{WIDTH - PAD - 190}" y="{y - 9}" width="12" height="12" fill="{colour}"/>'
        )
        parts.append(f'<text x="{WIDTH - PAD - 172}" y="{y + 1}">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
