"""What the refresh callback answers (§3 rule 3): the current text of a read's lines, or
why they cannot be re-read. ``harness.run.reread`` makes the real one, through the policy and
the workspace; the tests' in-memory disk makes another."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.types import ReadSpan


@dataclass(frozen=True)
class RefreshOutcome:
    """The read body when ``ok``, else why it failed. ``shown_hash`` is the hash of the
    lines shown without any marker (what ``read_file`` puts in ``ReadSpan.shown_hash``);
    without it, the hash of ``text`` is used."""

    ok: bool
    text: str = ""
    content_hash: str | None = None
    reason: str = ""
    shown_hash: str | None = None


Refresher = Callable[[ReadSpan], RefreshOutcome]
