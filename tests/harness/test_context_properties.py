"""Properties of the bounded context over random runs (issues 12 and 21), derandomized: the
ceiling is never exceeded; between slides request i+1 starts with request i minus its
trailer (its texts, on either wire), and only a slide (or the memory block re-chosen
there) changes text already sent; every stale copy carried is followed, later in the same
request, by its refresh (or by a later result that replaces it); at a slide no stale or
superseded copy survives; no refresh re-sends unchanged text; the transcript's texts are
the flat section's; every tool call sent has its answer."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.context import Emission, Entry, Form, Wire, render
from harness.context.subjects import subject
from harness.ledger import Cause
from harness.types import Request, Role, ToolCall, ToolResult
from tests.support.context_run import FRAME, SYSTEM, Session, body_of, grep

FILES = 4
RANGES: list[tuple[int | None, int | None]] = [(None, None), (1, 20), (21, 20), (5, 10)]

action = st.one_of(
    st.tuples(st.just("read"), st.integers(0, FILES - 1), st.integers(0, len(RANGES) - 1)),
    st.tuples(st.just("grep"), st.integers(0, 3), st.integers(0, 2_500)),
    st.tuples(st.just("write"), st.integers(0, FILES - 1), st.integers(1, 60)),
    st.tuples(st.just("disk"), st.integers(0, FILES - 1), st.integers(1, 60)),
    st.tuples(st.just("delete"), st.integers(0, FILES - 1), st.just(0)),
    st.tuples(st.just("bigarg"), st.just(0), st.integers(150, 9_000)),
    st.tuples(st.just("drop"), st.just(0), st.just(0)),
    st.tuples(st.just("verify"), st.just(0), st.integers(0, 1_000)),
)
step = st.tuples(
    st.lists(action, min_size=0, max_size=4),
    st.integers(0, 3_000),  # words
    st.sampled_from([0, 0, 0, 50, 400]),  # how much the budget shrinks this turn (tokens)
    st.sampled_from([False] * 9 + [True]),  # a context-overflow retry at half the budget
)
run = st.tuples(st.integers(800, 12_000), st.lists(step, min_size=1, max_size=30))


def file_text(i: int, version: int = 0) -> str:
    return "\n".join(f"f{i} line {n} v{version}" for n in range(1, 61))


class Run:
    def __init__(
        self,
        effective: int,
        wire: Wire = Wire.TRANSCRIPT,
        naive: bool = False,
    ):
        self.s = Session(
            effective=effective,
            wire=wire,
            naive=naive,
            memory="## Your notes\n- build: make test",
            files={f"f{i}.py": file_text(i) for i in range(FILES)},
        )
        self.version = 0
        self.effective = effective

    def send(self, shrink: int, retry: bool) -> Emission:
        s = self.s
        self.effective = max(500, self.effective - shrink)
        s.step += 1
        args: dict[str, Any] = {"step": s.step, "trailer": s.trailer(s.step), "refresh": s.disk}
        e = s.engine.assemble(effective_tokens=self.effective, memory=s.memory, **args)
        if retry:  # the provider refused it for context length: assemble again, smaller
            self.effective = max(500, self.effective // 2)
            e = s.engine.assemble(effective_tokens=self.effective, memory=s.memory, **args)
        s.engine.commit(e)
        s.sent.append(e)
        return e

    def act(self, actions: list[tuple[str, int, int]], words: int) -> None:
        """The model's turn, then each action in order, as the loop records them (a result,
        then the changes its write made)."""
        s = self.s
        planned = [(f"c{s.step}_{n}", *a) for n, a in enumerate(actions)]
        calls = [self.call(*p) for p in planned]
        s.ledger.add_turn(s.step, "w" * words, tuple(c for c in calls if c is not None))
        for (call_id, kind, which, size), call in zip(planned, calls, strict=True):
            path = f"f{which}.py"
            if kind in ("disk", "delete"):
                self.change(kind, path, size)
            elif kind == "verify":
                s.ledger.add(s.step, ToolResult("verify", "make", f"[verify make]\n{'v' * size}"))
            elif kind == "read" and call is not None:
                offset, limit = RANGES[size]
                if path in s.disk.files:
                    result = s.disk.read(path, offset, limit)
                else:
                    result = ToolResult("read_file", path, f"[read {path}]\nerror: gone", ok=False)
                s.ledger.add(s.step, result, call_id=call_id)
            elif kind == "grep":
                body = f"hit {size % 3}" * (1 + size // 10)
                s.ledger.add(s.step, grep(f"p{which}", body), call_id=call_id)
            elif kind == "write":
                s.ledger.add(
                    s.step, ToolResult("edit_file", path, f"[edit {path}]"), call_id=call_id
                )
                self.change(kind, path, size)
            elif kind == "bigarg":
                result = ToolResult("write_file", "big.txt", "[write big.txt] 1 line")
                s.ledger.add(s.step, result, call_id=call_id)
            # "drop": the call never got its result recorded

    @staticmethod
    def call(call_id: str, kind: str, which: int, size: int) -> ToolCall | None:
        path = f"f{which}.py"
        if kind == "read":
            offset, limit = RANGES[size]
            return ToolCall(call_id, "read_file", {"path": path, "offset": offset, "limit": limit})
        if kind == "grep":
            return ToolCall(call_id, "grep", {"pattern": f"p{which}"})
        if kind == "write":
            return ToolCall(call_id, "edit_file", {"path": path})
        if kind == "bigarg":
            return ToolCall(call_id, "write_file", {"path": "big.txt", "content": "x" * size})
        if kind == "drop":
            return ToolCall(call_id, "grep", {"pattern": "lost"})
        return None

    def change(self, kind: str, path: str, line: int) -> None:
        s = self.s
        if kind == "delete":
            if s.disk.files.pop(path, None) is not None:
                s.ledger.note_change(path, Cause.DISK, s.step, None)
            return
        self.version += 1
        lines = s.disk.files.get(path, file_text(0)).split("\n")
        lines[line - 1] = f"changed {self.version}"
        s.write(path, "\n".join(lines), Cause.WRITE if kind == "write" else Cause.DISK)


def check_calls_answered(request: Request) -> None:
    """OpenAI's rule: the tool messages right after an assistant message answer exactly
    its calls; a tool message appears nowhere else."""
    messages = request.messages
    i = 0
    while i < len(messages):
        m = messages[i]
        assert m.role is not Role.TOOL, "a tool message that follows no call"
        i += 1
        if m.role is Role.ASSISTANT and m.tool_calls:
            answers = messages[i : i + len(m.tool_calls)]
            assert all(a.role is Role.TOOL for a in answers), "a call without its answer"
            assert sorted(a.tool_call_id or "" for a in answers) == sorted(
                c.id for c in m.tool_calls
            )
            i += len(m.tool_calls)
    assert messages[0].role is Role.USER and messages[0].parts[0] == FRAME


def held(entry: Entry) -> str:
    """The lines a carried read entry shows (after its header)."""
    return entry.text.split("\n", 1)[1] if "\n" in entry.text else ""


def current(run: Run, entry: Entry) -> str | None:
    obs = run.s.ledger.observations()[entry.seq]
    assert obs.read is not None
    text = run.s.disk.files.get(obs.read.path)
    return None if text is None else body_of(text, obs.read.offset, obs.read.limit)


def carried_reads(run: Run, e: Emission) -> list[tuple[int, Entry]]:
    observations = run.s.ledger.observations()
    return [
        (i, x)
        for i, x in enumerate(e.entries)
        if x.form in (Form.WHOLE, Form.CURRENT)
        and observations[x.seq].read is not None
        and observations[x.seq].reread_of is None
    ]


def replaced_later(run: Run, e: Emission, i: int) -> bool:
    """A later successful result carried whole replaces entry ``i`` (rule 2)."""
    observations = run.s.ledger.observations()
    about = subject(observations[e.entries[i].seq])
    assert about is not None
    for later in e.entries[i + 1 :]:
        if later.form is not Form.WHOLE or not observations[later.seq].ok:
            continue
        other = subject(observations[later.seq])
        if other is not None and other[0] == about[0] and other[1] in (about[1], (None, None)):
            return True
    return False


def check_stale_copies_are_followed_by_their_refresh(run: Run, e: Emission) -> None:
    """Rule 3: the model never sees a stale read without, later in the same request, the
    refresh that says so (and gives the current text of what changed)."""
    observations = run.s.ledger.observations()
    for i, entry in carried_reads(run, e):
        now = current(run, entry)
        if now == held(entry) or replaced_later(run, e, i):
            continue
        refreshes = [
            x
            for x in e.entries[i + 1 :]
            if x.form is Form.REFRESH and observations[x.seq].reread_of == entry.seq
        ]
        assert refreshes, f"a stale copy without its refresh: {entry.text[:60]!r}"
        latest = run.s.ledger.refresh_of(entry.seq)
        told = "(not refreshed at step" in refreshes[-1].text
        assert told or (latest is not None and latest.text == now), "the refresh is not current"


def check_slide_leaves_nothing_stale_or_superseded(run: Run, e: Emission) -> None:
    """Rule 5: at a slide every carried read shows the current text, no carried result has
    a later one of its subject after it, and no refresh entry is left."""
    if "slide" not in e.breaks:
        return
    for i, entry in carried_reads(run, e):
        assert current(run, entry) == held(entry), f"stale after a slide: {entry.text[:60]!r}"
        assert not replaced_later(run, e, i), f"superseded after a slide: {entry.text[:60]!r}"
    assert all(x.form is not Form.REFRESH for x in e.entries), "a refresh entry survived"


def check_rereads_change_text(run: Run, e: Emission, shown: dict[int, str | None]) -> None:
    """Issue 12 seen 1 (target 0): no re-read re-sends the text the model already holds."""
    observations = run.s.ledger.observations()
    for refresh in e.refreshes:
        read = observations[refresh.seq].read
        assert read is not None
        held = shown.get(refresh.seq, read.shown_hash)
        assert refresh.shown_hash != held, "a re-read re-sent unchanged text"
        shown[refresh.seq] = refresh.shown_hash


def check_prefix(previous: Emission, e: Emission) -> None:
    """Between slides request i+1 starts with request i minus its trailer — on the flat
    form's texts and on the transcript's message texts alike; only a slide, and the memory
    block re-chosen there, change text already sent."""
    assert set(e.breaks) <= {"slide", "memory"}, e.breaks
    before, now = previous.request.texts()[:-1], e.request.texts()
    messages = [t for m in previous.request.messages for t in m.texts()]
    assert before[1:] == messages, "the message texts are the request's texts"
    if "slide" not in e.breaks:
        assert "memory" not in e.breaks
        assert now[: len(before)] == before, "already-sent text changed between slides"
        assert e.prefix_chars >= sum(map(len, before))


# Long generated runs, the same examples every time.
RUNS = settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@settings(RUNS, max_examples=120)
@given(run)
def test_bounded_context_properties(case: tuple[int, list[Any]]) -> None:
    check_bounded(case, Wire.TRANSCRIPT)


@settings(RUNS, max_examples=40)
@given(run)
def test_bounded_context_properties_on_the_flat_wire(case: tuple[int, list[Any]]) -> None:
    check_bounded(case, Wire.FLAT)


def check_bounded(case: tuple[int, list[Any]], wire: Wire) -> None:
    effective, steps = case
    r = Run(effective, wire=wire)
    previous: Emission | None = None
    shown: dict[int, str | None] = {}
    for actions, words, shrink, retry in steps:
        e = r.send(shrink, retry)
        assert e.section_chars <= e.effective * 4, "over the ceiling"
        check_rereads_change_text(r, e, shown)
        check_calls_answered(e.request)
        check_stale_copies_are_followed_by_their_refresh(r, e)
        check_slide_leaves_nothing_stale_or_superseded(r, e)
        flat = render(
            e.entries,
            system=SYSTEM,
            frame=FRAME,
            memory=e.memory,
            trailer=e.trailer,
            wire=Wire.FLAT,
        )
        assert list(e.texts) == e.request.texts() == flat.texts()
        assert flat.user == e.request.user
        assert [m.role for m in flat.messages] == [Role.USER]
        if previous is not None:
            check_prefix(previous, e)
        previous = e
        r.act(actions, words)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(run)
def test_naive_baseline_properties(case: tuple[int, list[Any]]) -> None:
    effective, steps = case
    r = Run(effective, naive=True)
    previous: Emission | None = None
    for actions, words, shrink, _retry in steps:
        e = r.send(shrink, False)
        check_calls_answered(e.request)
        if previous is not None:
            before = previous.request.texts()[:-1]
            assert e.request.texts()[: len(before)] == before and e.breaks == ()
            assert list(e.texts) == e.request.texts()
        previous = e
        r.act(actions, words)
