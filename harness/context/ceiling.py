"""The ceiling of one request (§2), computed once per turn: the effective budget in tokens
and chars, the per-result cap (``entry_cap_chars``: an eighth of the effective budget) and
the read-body cap derived from it, and the observation budget left under the ceiling once
the memory block and the trailer are counted, and the memory block's own limit. Every cap of
a run comes from here: ``Ceiling.of`` derives the ceiling from the contract and the tokens
spent (``tests/harness/test_ceiling_source.py`` fails on a derivation anywhere else)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.context.declared import read_body_cap
from harness.contract import effective_tokens, entry_cap_chars
from harness.tokens import CHARS_PER_TOKEN
from harness.types import PART_SEPARATOR

if TYPE_CHECKING:
    from harness.contract import TaskContract


@dataclass(frozen=True)
class Ceiling:
    effective: int  # tokens (§2 ``effective``)

    @classmethod
    def of(cls, contract: TaskContract, spent: int = 0, *, cap: int | None = None) -> Ceiling:
        """The ceiling of a request after ``spent`` tokens of the run (§2), at most ``cap``
        (the model's window, once a request overflowed it)."""
        effective = effective_tokens(contract.context_budget, contract.token_budget, spent)
        return cls(min(effective, cap) if cap else effective)

    @property
    def chars(self) -> int:
        return self.effective * CHARS_PER_TOKEN

    @property
    def entry_cap(self) -> int:
        """What one observation may carry (§3 rule 4)."""
        return entry_cap_chars(self.effective)

    @property
    def memory_chars(self) -> int:
        """The memory block's limit: a quarter of the ceiling (§3 rule 1, §4.4)."""
        return self.chars // 4

    def read_cap(self, target: str, notes: tuple[str, ...] = ()) -> int:
        """The body cap of a read of ``target`` with ``notes`` under its header (the same as
        ``read_file``'s)."""
        return read_body_cap(self.entry_cap, target, notes)

    def budget(self, memory: str, trailer: str) -> int:
        """The observation budget: the ceiling less the memory block and the trailer (each
        with its separator)."""
        fixed = sum(len(p) + len(PART_SEPARATOR) for p in (memory, trailer) if p)
        return self.chars - fixed

    def memory_fits(self, block: str) -> bool:
        """The memory block is at most a quarter of the ceiling (§3 rule 1)."""
        return len(block) <= self.memory_chars


__all__ = ["Ceiling"]
