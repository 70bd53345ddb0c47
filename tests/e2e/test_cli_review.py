"""Review, rewind and plan from the real CLI against a real Chat Completions fake
(issue 33): ``harness run --plan`` offers only the tools that read and refuses a write,
the trace says the mode; a follow-up with ``--continue`` carries out the plan."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeFakeLLM

from .cli import call, calls, harness, run_args


def test_run_plan_refuses_writes_and_the_follow_up_carries_the_plan(
    ws: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    before = (ws / "src" / "a.py").read_text()
    fake = fake_llm(
        [
            calls(call("write_file", path="src/a.py", content="x = 1\n")),
            {"content": "Plan: fix the sign in add()."},
            calls(call("edit_file", path="src/a.py", old="a - b", new="a + b")),
            {"content": "Done."},
        ]
    )
    store = tmp_path / "s.db"
    out = harness(*run_args("Fix add()", fake.url, ws, store, "--plan"))
    assert out.code == 0, out.stderr
    result = out.json()
    assert result["summary"] == "Plan: fix the sign in add()." and result["refused"] == 1
    assert (ws / "src" / "a.py").read_text() == before
    tools = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert tools == {"read_file", "grep", "find", "list_dir", "remember"}
    show = harness("trace", "show", str(result["runId"]), "--store", store, "--json").json()
    assert show["run"]["mode"] == "plan"

    conv = str(result["runId"])
    out = harness(*run_args("Carry out the plan above.", fake.url, ws, store, "--continue", conv))
    assert out.code == 0, out.stderr
    assert "Plan: fix the sign in add()." in str(fake.requests[2]["messages"])
    assert (ws / "src" / "a.py").read_text() == before.replace("a - b", "a + b")
