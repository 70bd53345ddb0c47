"""Tables that fit the terminal: one line per row, ids and numbers never cut or wrapped,
text columns shrunk to share what is left of the width and cut with ``…``.

rich lays tables out by shrinking every column in proportion once they do not fit, which
cuts ids and numbers first; here the fixed columns are sized to their content and only
text columns give way. A column may name a shorter header for when the full ones leave the
text columns less than their minimum (the caller prints a legend for them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

from harness.escape import printable

if TYPE_CHECKING:  # rich loads when a table is drawn, not when one is declared
    from rich.text import Text

Kind = Literal["id", "number", "fixed", "text"]
Cell: TypeAlias = "str | Text"

GAP = 2


@dataclass(frozen=True)
class Column:
    """``id`` and ``number`` columns are right-aligned, ``fixed`` ones left-aligned; none of
    the three is ever cut. ``text`` columns shrink down to ``min_width`` and are cut with
    ``…``; ``max_width`` caps their natural width."""

    header: str
    kind: Kind = "text"
    short: str | None = None
    min_width: int = 8
    max_width: int | None = None

    @property
    def fixed(self) -> bool:
        return self.kind != "text"


@dataclass(frozen=True)
class Layout:
    widths: tuple[int, ...]
    short: bool  # the short headers are used


def cell(value: Cell) -> Text:
    """A value as the table shows it: a ``str`` is escaped (it may come from the model)."""
    from rich.text import Text

    return value if isinstance(value, Text) else Text(printable(value))


def layout(columns: Sequence[Column], rows: Sequence[Sequence[Text]], width: int) -> Layout:
    """The column widths for ``width`` terminal columns."""
    full = _layout(columns, rows, width, short=False)
    if full is not None or not any(c.short for c in columns):
        return full or _squeezed(columns, rows, short=False)
    return _layout(columns, rows, width, short=True) or _squeezed(columns, rows, short=True)


def header_of(column: Column, short: bool) -> str:
    return column.short if short and column.short else column.header


def _natural(column: Column, values: Sequence[Text], short: bool) -> int:
    from rich.cells import cell_len

    natural = max([cell_len(header_of(column, short)), *(v.cell_len for v in values)])
    if column.kind == "text" and column.max_width is not None:
        natural = min(natural, max(column.max_width, cell_len(header_of(column, short))))
    return natural


def _layout(
    columns: Sequence[Column], rows: Sequence[Sequence[Text]], width: int, *, short: bool
) -> Layout | None:
    natural = [_natural(c, [r[i] for r in rows], short) for i, c in enumerate(columns)]
    room = (
        width
        - GAP * (len(columns) - 1)
        - sum(n for n, c in zip(natural, columns, strict=True) if c.fixed)
    )
    texts = [i for i, c in enumerate(columns) if not c.fixed]
    floor = {i: min(natural[i], columns[i].min_width) for i in texts}
    if sum(floor.values()) > room:
        return None
    widths = list(natural)
    for i in texts:
        widths[i] = floor[i]
    spare = room - sum(floor.values())
    # Water-filling: short text columns get their whole width, long ones share the rest.
    while spare > 0:
        growing = [i for i in texts if widths[i] < natural[i]]
        if not growing:
            break
        share = max(1, spare // len(growing))
        for i in growing:
            step = min(share, natural[i] - widths[i], spare)
            widths[i] += step
            spare -= step
    return Layout(tuple(widths), short)


def _squeezed(columns: Sequence[Column], rows: Sequence[Sequence[Text]], *, short: bool) -> Layout:
    """Narrower than the fixed columns need: text columns at their minimum, the rest whole."""
    widths = [
        _natural(c, [r[i] for r in rows], short) if c.fixed else c.min_width
        for i, c in enumerate(columns)
    ]
    return Layout(tuple(widths), short)


def fit(text: Text, width: int, kind: Kind) -> Text:
    """One cell at ``width``: cut with ``…`` (text only), then padded."""
    out = text.copy()
    if kind == "text" and out.cell_len > width:
        out.truncate(width, overflow="ellipsis")
    out.align("right" if kind in ("id", "number") else "left", max(width, out.cell_len))
    return out


def render(
    columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int
) -> tuple[list[Text], bool]:
    """The header and one line per row, each at most ``width`` cells wide when the fixed
    columns allow it; and whether the short headers were used (print their legend)."""
    from rich.text import Text

    cells = [[cell(v) for v in row] for row in rows]
    shape = layout(columns, cells, width)
    header = [Text(header_of(c, shape.short), style="bold") for c in columns]
    lines = [_line(columns, header, shape.widths)]
    lines += [_line(columns, row, shape.widths) for row in cells]
    return lines, shape.short


def _line(columns: Sequence[Column], values: Sequence[Text], widths: Sequence[int]) -> Text:
    from rich.text import Text

    line = Text()
    for i, (column, value, w) in enumerate(zip(columns, values, widths, strict=True)):
        if i:
            line.append(" " * GAP)
        line.append_text(fit(value, w, column.kind))
    line.rstrip()
    return line


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, ending in ``…`` when cut."""
    from rich.cells import cell_len
    from rich.text import Text

    if cell_len(text) <= width:
        return text
    out = Text(text)
    out.truncate(max(1, width), overflow="ellipsis")
    return out.plain


__all__ = ["GAP", "Column", "Layout", "cell", "cut", "fit", "layout", "render"]
