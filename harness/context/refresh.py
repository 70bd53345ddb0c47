"""Whether a carried read still holds, decided at assembly by the text it shows (§3.3).

The ledger says when a read's file changed; only the text the model holds decides whether
the read is stale: a refresh that shows the same text (an edit outside a ranged read's
lines) confirms the read and changes nothing already sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.ledger import Change, Confirmation, Ledger, Observation, Refresh
from harness.types import ReadSpan, content_hash


@dataclass(frozen=True)
class RefreshOutcome:
    """The refresh callback's answer: the read body when ``ok``, else why it failed.
    ``shown_hash`` is the hash of the text a read would show (what ``read_file`` puts in
    ``ReadSpan.shown_hash``); without it, the hash of ``text`` is used."""

    ok: bool
    text: str = ""
    content_hash: str | None = None
    reason: str = ""
    shown_hash: str | None = None


Refresher = Callable[[ReadSpan], RefreshOutcome]


@dataclass(frozen=True)
class Refused:
    """A stale read whose refresh failed: it becomes a stub saying why."""

    change: Change
    reason: str


Check = Confirmation | Refresh | Refused


def recheck(
    obs: Observation, ledger: Ledger, refresh: Refresher, *, step: int, mark: int
) -> Check | None:
    """None when nothing changed ``obs``'s file since the model's copy was taken; else a
    ``Confirmation`` (the shown text is unchanged), a ``Refresh`` (the new text) or
    ``Refused``."""
    change = ledger.stale_reason(obs)
    if change is None or obs.read is None:
        return None
    outcome = refresh(obs.read)
    if not outcome.ok or outcome.content_hash is None:
        return Refused(change, outcome.reason)
    shown = outcome.shown_hash or content_hash(outcome.text.encode())
    prior = ledger.refresh_of(obs.seq)
    held = prior.shown_hash if prior is not None else obs.read.shown_hash
    if shown == held or outcome.content_hash == ledger.seen_hash(obs):
        return Confirmation(obs.seq, mark, outcome.content_hash)
    return Refresh(obs.seq, step, mark, outcome.text, outcome.content_hash, change, shown)
