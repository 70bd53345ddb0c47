"""Free slides when the provider's cache is cold (issue 34, §3 rule 5): a request sent after
the provider's idle limit pays the write price for its whole prefix anyway, so the window
slides first — superseded and stale copies cleaned up, what is older than the low-water
window stubbed — and the ``assembled`` event says the slide was free. Before the limit it
does not slide. Time is the assembler's injected clock."""

from __future__ import annotations

from pathlib import Path

from harness.context import Emission, Form
from harness.ledger import Cause
from harness.run.assembly import AskState, BoundedAssembler, cache_idle_seconds
from harness.run.session import build_contract
from harness.types import ToolResult
from tests.support.context_run import Session, grep
from tests.support.tool_env import make_tool_env


def numbered(n: int = 60) -> str:
    return "\n".join(f"line {i}" for i in range(1, n + 1))


def worked(*, cold: bool) -> tuple[Session, Emission]:
    """A session that never filled its window: a read, made stale, read again, greps; then
    one more request, sent cold or warm."""
    s = Session(effective=4_000, files={"a.py": numbered()})  # 16,000 chars
    s.send()
    s.act(s.disk.read("a.py"))  # step 1
    for n in range(4):
        s.send()
        s.act(grep(f"p{n}", "g" * 1_200))
    s.send()
    s.act(ToolResult("edit_file", "a.py", "[edit a.py] 1 line"))
    s.write("a.py", s.disk.files["a.py"].replace("line 3\n", "line three\n"), Cause.EXEC)
    s.send()  # the refresh entry
    s.act(s.disk.read("a.py"))  # a later read replaces the stale copy
    return s, s.send(cold=cold)


def test_a_cold_request_slides_for_free_and_writes_no_more_than_not_sliding() -> None:
    _, warm = worked(cold=False)
    _, cold = worked(cold=True)
    assert warm.breaks == () and not warm.free
    assert "slide" in cold.breaks and cold.free
    assert cold.assembled_event().detail["freeSlide"] is True
    assert warm.assembled_event().detail["freeSlide"] is False
    # with the cache expired every character is written: sliding writes fewer
    assert sum(map(len, cold.texts)) < sum(map(len, warm.texts))
    assert cold.est_tokens <= cold.effective
    forms = [x.form for x in cold.entries if x.kind == "read_file"]
    assert forms == [Form.CURRENT, Form.MERGED, Form.UNCHANGED], "the stale copy made current"


def test_the_first_request_is_never_a_free_slide() -> None:
    s = Session(files={"a.py": "A"})
    first = s.send(cold=True)
    assert first.breaks == () and not first.free


def test_the_idle_limit_per_provider_and_the_setting() -> None:
    assert cache_idle_seconds("anthropic") == 300.0
    assert cache_idle_seconds("openai") == 600.0
    assert cache_idle_seconds("anthropic", 60.0) == 60.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_the_assembler_slides_only_once_the_idle_limit_has_passed(tmp_path: Path) -> None:
    env = make_tool_env(tmp_path / "ws")
    (env.root / "a.py").write_text(numbered())
    contract = build_contract("fix it", env.root)
    clock = Clock()
    assembler = BoundedAssembler(
        contract, (), memory=None, workspace=env.workspace, gate=env.ctx.gate
    )
    assembler.clock, assembler.cache_idle = clock, 300.0
    for step in range(1, 6):  # 4 results of 3,000 chars: over the low-water fill, in budget
        turn = assembler.assemble(AskState(step, 6_000, 0))
        assembler.commit(turn)
        assembler.ledger.add_turn(step, f"step {step}", ())
        assembler.ledger.add(step, grep(f"p{step}", "g" * 3_000))
    clock.now += 299.0
    before = assembler.assemble(AskState(6, 6_000, 0))
    assert before.emission.breaks == () and not before.emission.free
    clock.now += 1.0
    after = assembler.assemble(AskState(6, 6_000, 0))
    assert after.emission.free and "slide" in after.emission.breaks
    event = next(e for e in after.events if e.kind == "assembled")
    assert event.detail["freeSlide"] is True
