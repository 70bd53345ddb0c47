"""The host's processes as the tests see them, read from /proc independently of the product's
own scan (harness/tools/proctree.py), so a test of the kill does not trust what it tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Proc:
    pid: int
    name: str
    state: str
    ppid: int
    cmdline: bytes

    @property
    def live(self) -> bool:
        """Running or sleeping: not a zombie waiting to be reaped."""
        return self.state != "Z"


def processes() -> Iterator[Proc]:
    """Every process /proc lists now; one that exits while it is read is passed over."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The name is in parentheses and may hold any character, ")" included.
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        yield Proc(int(entry), name, fields[0], int(fields[1]), cmdline)


def alive_with(marker: str) -> list[int]:
    """PIDs of live (non-zombie) processes whose command line holds ``marker``."""
    return [p.pid for p in processes() if p.live and marker.encode() in p.cmdline]
