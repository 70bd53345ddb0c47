"""The ledger: model turns and call ids (issue 12), and staleness by content hash with the
assembler's confirmations."""

from __future__ import annotations

import pytest

from harness.context.subjects import subject
from harness.ledger import MESSAGE, Cause, Confirmation, Ledger, Observation, Refresh
from harness.types import ReadSpan, ToolCall, ToolResult, content_hash


def read(path: str, body: str) -> ToolResult:
    h = content_hash(body.encode())
    return ToolResult("read_file", path, f"[read {path}]\n{body}", read=ReadSpan(path, 1, 5, h, h))


def test_a_model_turn_and_the_results_answering_its_calls_are_recorded_in_order() -> None:
    ledger = Ledger()
    call = ToolCall("call_1", "read_file", {"path": "a.py"})
    turn = ledger.add_turn(1, "Reading a.py first.", (call,))
    result = ledger.add(1, read("a.py", "A"), call_id="call_1")
    assert (turn.seq, turn.kind, turn.text, turn.calls, turn.target) == (
        0,
        MESSAGE,
        "Reading a.py first.",
        (call,),
        "",
    )
    assert (result.seq, result.call_id) == (1, "call_1")
    assert subject(turn) is None, "the model's words are never superseded"
    assert ledger.since(1) == [result] and ledger.since(2) == []
    assert ledger.touched() == ["a.py"], "a turn is not a touched target"


def test_a_confirmation_moves_what_the_model_holds_forward() -> None:
    ledger = Ledger()
    obs = ledger.add(1, read("a.py", "A"))
    ledger.note_change("a.py", Cause.WRITE, 2, "hash-2")
    change = ledger.stale_reason(obs)
    assert change is not None and change.step == 2
    ledger.confirm(Confirmation(obs.seq, ledger.mark(), "hash-2"))
    assert ledger.stale_reason(obs) is None and ledger.seen_hash(obs) == "hash-2"
    ledger.note_change("a.py", Cause.DISK, 3, "hash-3")
    later = ledger.stale_reason(obs)
    assert later is not None and later.cause is Cause.DISK


def test_a_refresh_records_the_shown_hash_and_the_file_hash() -> None:
    ledger = Ledger()
    obs = ledger.add(1, read("a.py", "A"))
    ledger.note_change("a.py", Cause.WRITE, 2, "hash-2")
    change = ledger.stale_reason(obs)
    assert change is not None
    refresh = Refresh(obs.seq, 3, ledger.mark(), "B", "hash-2", change, content_hash(b"B"))
    ledger.apply_refresh(refresh)
    assert ledger.refresh_of(obs.seq) == refresh and ledger.stale_reason(obs) is None
    assert not ledger.note_change("a.py", Cause.DISK, 3, "hash-2"), "the same bytes again"


def test_a_reread_is_recorded_at_the_position_the_assembler_gave_it() -> None:
    ledger = Ledger()
    obs = ledger.add(1, read("a.py", "A"))
    ledger.note_change("a.py", Cause.WRITE, 2, "hash-2")
    mark = ledger.mark()
    span = ReadSpan("a.py", 1, 5, "hash-2", content_hash(b"B"))
    reread = Observation(1, 3, "read_file", "a.py", "[read a.py] (re-read …)\nB", read=span,
                         reread_of=obs.seq)  # fmt: skip
    assert ledger.add_reread(reread, mark) is reread and ledger.since(1) == [reread]
    assert ledger.stale_reason(reread) is None, "the re-read is what the file says"
    assert not ledger.note_change("a.py", Cause.DISK, 3, "hash-2"), "the same bytes again"
    ledger.note_change("a.py", Cause.DISK, 3, "hash-3")
    later = ledger.stale_reason(reread)
    assert later is not None and later.cause is Cause.DISK


def test_a_change_noted_while_the_request_was_out_makes_the_reread_stale() -> None:
    """Between an assembly and its commit the provider has the request; a change the
    watcher notes then happened after the re-read was taken."""
    ledger = Ledger()
    obs = ledger.add(1, read("a.py", "A"))
    ledger.note_change("a.py", Cause.WRITE, 2, "hash-2")
    mark = ledger.mark()  # the assembly re-reads now …
    ledger.note_change("a.py", Cause.DISK, 2, "hash-3")  # … and the user saves meanwhile
    span = ReadSpan("a.py", 1, 5, "hash-2", content_hash(b"B"))
    reread = Observation(1, 3, "read_file", "a.py", "B", read=span, reread_of=obs.seq)
    ledger.add_reread(reread, mark)
    change = ledger.stale_reason(reread)
    assert change is not None and change.new_hash == "hash-3"


def test_a_reread_out_of_place_is_refused() -> None:
    ledger = Ledger()
    obs = ledger.add(1, read("a.py", "A"))
    span = ReadSpan("a.py", 1, 5, "h", "h")
    wrong = Observation(5, 3, "read_file", "a.py", "B", read=span, reread_of=obs.seq)
    with pytest.raises(ValueError, match="commit right after assemble"):
        ledger.add_reread(wrong, ledger.mark())
