"""Fills the generated regions of a text file: everything between
``<!-- BEGIN generated:NAME -->`` and ``<!-- END generated:NAME -->`` is replaced by the
content given for NAME. A region without its end, or with a name nothing generates, is an
error naming the line."""

from __future__ import annotations

import re
from collections.abc import Mapping

BEGIN = re.compile(r"^<!-- BEGIN generated:([\w-]+) -->$")
END = "<!-- END generated:{name} -->"


class RegionError(ValueError):
    pass


def fill(text: str, contents: Mapping[str, str], where: str = "the file") -> str:
    """``text`` with each region's content replaced; a text without regions is unchanged."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        out.append(lines[i])
        match = BEGIN.match(lines[i])
        i += 1
        if match is None:
            continue
        name = match[1]
        if name not in contents:
            raise RegionError(f"{where}:{i}: no generated content is called {name!r}")
        end = END.format(name=name)
        try:
            close = lines.index(end, i)
        except ValueError:
            raise RegionError(f"{where}:{i}: region {name!r} has no `{end}`") from None
        out += [contents[name].rstrip("\n"), end]
        i = close + 1
    return "\n".join(out)


def names(text: str) -> list[str]:
    """The regions of ``text``, in order."""
    return [m[1] for line in text.split("\n") if (m := BEGIN.match(line))]


__all__ = ["RegionError", "fill", "names"]
