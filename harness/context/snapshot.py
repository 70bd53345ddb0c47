"""A run's context as JSON (§11), so the next run of its conversation continues it: the
ledger (every observation, change, refresh and confirmation) and what the last request sent
(the engine's state: each item's form, the window, the fold, the memory block, the texts).

The loop stores the snapshot with every committed step (``runs.run_context``), so a
follow-up started in another process, or after a crash, rebuilds exactly the context the
last request of the previous turn was assembled from; its first request then extends that
request, less the trailer, with what is new. The earlier turns' observations and changes
are marked with their turn, so what names them later says which (``the read at step 3 of
turn 1``).

Values are frozen dataclasses of a closed set of types, tagged by name; a snapshot that
does not decode is an error (the caller starts the follow-up from what the store says
instead of guessing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, is_dataclass, replace
from enum import Enum
from typing import Any

from harness.context.emission import Entry, Form
from harness.context.folding import Fold
from harness.context.state import State, Unrefreshed
from harness.ledger import Cause, Change, Confirmation, Ledger, LedgerParts, Observation, Refresh
from harness.types import ReadSpan, ToolCall

VERSION = 1
_TYPES: dict[str, type[Any]] = {
    t.__name__: t
    for t in (Observation, Change, Refresh, Confirmation, ReadSpan, ToolCall, Entry, Fold)
}
_TYPES["Unrefreshed"] = Unrefreshed
_ENUMS: dict[str, type[Enum]] = {"Form": Form, "Cause": Cause}
_STATE_LISTS = ("entries", "groups", "subjects")
_STATE_VALUES = ("boundary", "fold", "cost", "changes", "memory", "texts")
_STATE_DICTS = ("replaced", "stale", "unrefreshed")


class SnapshotError(ValueError):
    """A stored snapshot this harness cannot continue from."""


@dataclass(frozen=True)
class Snapshot:
    """What a follow-up continues from: the frame text the conversation opened with, the
    turn of the run that left it, its ledger and the state of its last request."""

    frame: str
    turn: int
    ledger: Ledger
    state: State
    sent_at: float | None = None  # wall-clock time its last request was sent (cache idle)


def dump(frame: str, turn: int, ledger: Ledger, state: State, sent_at: float | None = None) -> str:
    parts = ledger.export()
    data = {
        "version": VERSION,
        "frame": frame,
        "turn": turn,
        "sentAt": sent_at,
        "ledger": {f.name: _encode(getattr(parts, f.name)) for f in fields(parts)},
        "state": {
            "items": len(state.items),
            **{name: _encode(getattr(state, name)) for name in _STATE_LISTS},
            **{name: _encode(getattr(state, name)) for name in _STATE_VALUES},
            **{name: _encode(getattr(state, name)) for name in _STATE_DICTS},
        },
    }
    return json.dumps(data, separators=(",", ":"))


def load(text: str) -> Snapshot:
    """The snapshot ``text`` holds; the items of its turn are marked with it (they become
    an earlier turn's)."""
    try:
        data = json.loads(text)
        if data.get("version") != VERSION:
            raise SnapshotError(f"snapshot version {data.get('version')!r}")
        turn = int(data["turn"])
        raw = data["ledger"]
        parts = LedgerParts(
            observations=_listed(raw["observations"], turn),
            changes=_listed(raw["changes"], turn),
            log=_listed(raw["log"], turn),
            known=_decode(raw["known"], turn),
            refreshed=_decode(raw["refreshed"], turn),
            seen=_decode(raw["seen"], turn),
        )
        ledger = Ledger.restored(parts)
        state = _state(data["state"], parts.observations, turn)
    except SnapshotError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SnapshotError(f"the stored context does not decode: {exc}") from None
    sent = data.get("sentAt")
    sent_at = float(sent) if isinstance(sent, int | float) else None
    return Snapshot(str(data["frame"]), turn, ledger, state, sent_at)


def _state(raw: dict[str, Any], observations: list[Observation], turn: int) -> State:
    count = int(raw["items"])
    state = State(items=list(observations[:count]))
    for name in _STATE_LISTS:
        setattr(state, name, _listed(raw[name], turn))
    for name in (*_STATE_VALUES, *_STATE_DICTS):
        setattr(state, name, _decode(raw[name], turn))
    if not len(state.entries) == len(state.groups) == len(state.subjects) == count:
        raise SnapshotError("the stored context's state does not match its ledger")
    return state


def _encode(value: Any) -> Any:
    if isinstance(value, Enum):
        return {"__e": type(value).__name__, "v": value.value}
    if is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if name not in _TYPES:
            raise TypeError(f"cannot store a {name}")
        out = {f.name: _encode(getattr(value, f.name)) for f in fields(value) if f.init}
        if isinstance(value, ToolCall):
            out["arguments"] = {"__raw": dict(value.arguments)}
        return {"__t": name, **out}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {"__d": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot store a {type(value).__name__}")


def _listed(value: Any, turn: int) -> list[Any]:
    if not isinstance(value, list):
        raise SnapshotError("a list was expected")
    return [_decode(v, turn) for v in value]


def _decode(value: Any, turn: int) -> Any:
    if isinstance(value, list):
        return tuple(_decode(v, turn) for v in value)
    if not isinstance(value, dict):
        return value
    if "__raw" in value:
        return value["__raw"]
    if "__e" in value:
        return _ENUMS[value["__e"]](value["v"])
    if "__d" in value:
        return {_decode(k, turn): _decode(v, turn) for k, v in value["__d"]}
    cls = _TYPES[value["__t"]]
    made = cls(**{k: _decode(v, turn) for k, v in value.items() if k != "__t"})
    if isinstance(made, Observation | Change) and made.turn is None:
        made = replace(made, turn=turn)  # this turn's items are an earlier turn's now
    return made


__all__ = ["Snapshot", "SnapshotError", "dump", "load"]
