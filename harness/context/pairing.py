"""Which tool results answer which of the model's tool calls, so the transcript pairs
every call it sends with its answer (§3 "Wire form").

A turn's calls are answered by the results recorded right after it, each naming the id of
the call it answers. A call without an answer is not sent (a tool message must follow its
call); a result that answers no call of the turn before it (the verification, a result
recorded without an id) is sent as a user text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.ledger import MESSAGE, Observation
from harness.types import ToolCall


@dataclass
class Pairing:
    calls: dict[int, tuple[ToolCall, ...]] = field(default_factory=dict)  # turn -> answered
    answers: dict[int, str] = field(default_factory=dict)  # result seq -> call id
    group: dict[int, int] = field(default_factory=dict)  # seq -> first seq of its turn


def pair(items: Sequence[Observation]) -> Pairing:
    out = Pairing()
    i = 0
    while i < len(items):
        obs = items[i]
        out.group[obs.seq] = obs.seq
        i += 1
        if obs.kind != MESSAGE:
            continue
        waiting = list(range(len(obs.calls)))  # indices of calls not answered yet
        answered: list[int] = []
        while i < len(items) and items[i].kind != MESSAGE:
            result, call_id = items[i], items[i].call_id
            match = next((k for k in waiting if obs.calls[k].id == call_id), None)
            if call_id is None or match is None:
                break
            waiting.remove(match)
            answered.append(match)
            out.answers[result.seq] = call_id
            out.group[result.seq] = obs.seq
            i += 1
        out.calls[obs.seq] = tuple(obs.calls[k] for k in sorted(answered))
    return out
