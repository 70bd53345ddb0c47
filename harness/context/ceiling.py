"""The ceiling of one request (§2), computed once per turn: the effective budget in tokens
and chars, the per-result cap (``entry_cap_chars``: an eighth of the effective budget) and
the read-body cap derived from it, and the observation budget left under the ceiling once
the memory block and the trailer are counted. Every cap of the assembly comes from here."""

from __future__ import annotations

from dataclasses import dataclass

from harness.contract import entry_cap_chars
from harness.tokens import CHARS_PER_TOKEN
from harness.tools.span import read_body_cap
from harness.types import PART_SEPARATOR


@dataclass(frozen=True)
class Ceiling:
    effective: int  # tokens (§2 ``effective``)

    @property
    def chars(self) -> int:
        return self.effective * CHARS_PER_TOKEN

    @property
    def entry_cap(self) -> int:
        """What one observation may carry (§3 rule 4)."""
        return entry_cap_chars(self.effective)

    def read_cap(self, target: str) -> int:
        """The body cap of a read of ``target`` (the same as ``read_file``'s)."""
        return read_body_cap(self.entry_cap, target)

    def budget(self, memory: str, trailer: str) -> int:
        """The observation budget: the ceiling less the memory block and the trailer (each
        with its separator)."""
        fixed = sum(len(p) + len(PART_SEPARATOR) for p in (memory, trailer) if p)
        return self.chars - fixed

    def memory_fits(self, block: str) -> bool:
        """The memory block is at most a quarter of the ceiling (§3 rule 1)."""
        return len(block) <= self.chars // 4
