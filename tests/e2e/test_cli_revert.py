"""`harness revert RUN [--force]` (issue 13: revert only existed as an LSP command): the real
CLI puts back what a run wrote, refuses a file changed since unless `--force`, and prints
the same object as `harness.run.revert` with `--json`."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cli import call, calls, harness, script

# No test here is about the after-edit diagnostics (tests/e2e/conftest.py says why).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")


@pytest.fixture
def ran(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("A = 1\n")
    turns = script(
        tmp_path / "t.json",
        calls(call("edit_file", path="a.py", old="A = 1", new="A = 2")),
        calls(call("write_file", path="new/b.py", content="B = 1\n")),
        {"content": "Changed a, added b."},
    )
    store = tmp_path / "s.db"
    out = harness("run", "x", "--script", turns, "-w", ws, "--store", store)
    assert out.code == 0, out.stderr
    return ws, store


def test_revert_puts_back_what_the_run_wrote(ran: tuple[Path, Path]) -> None:
    ws, store = ran
    out = harness("revert", "1", "--store", store)
    assert out.code == 0, out.stderr
    assert (ws / "a.py").read_text() == "A = 1\n"
    assert not (ws / "new").exists()
    lines = out.stdout.splitlines()
    assert lines[0] == f"run 1 · workspace {ws.resolve()}"
    assert "  restored a.py" in lines
    assert "  deleted new/b.py (created by the run)" in lines
    assert lines[-1] == "reverted run 1: 1 restored, 1 deleted"


def test_a_file_changed_since_is_refused_unless_forced(ran: tuple[Path, Path]) -> None:
    ws, store = ran
    (ws / "a.py").write_text("A = 3  # the user's\n")
    out = harness("revert", "1", "--store", store, "--json")
    assert out.code == 1
    result = out.json()
    assert result["refused"] == 1 and result["deleted"] == 1
    (a,) = [f for f in result["files"] if f["path"] == "a.py"]
    assert a["action"] == "refused" and "changed" in a["reason"]
    assert (ws / "a.py").read_text() == "A = 3  # the user's\n"
    human = harness("revert", "1", "--store", store)
    lines = human.stdout.splitlines()
    assert any(
        line.startswith("  refused a.py: was changed since the run wrote it") for line in lines
    )
    assert lines[-1] == (
        "reverted run 1: 1 unchanged, 1 refused (harness revert 1 --force overwrites them)"
    )
    forced = harness("revert", "1", "--store", store, "--force")
    assert forced.code == 0, forced.stderr
    assert (ws / "a.py").read_text() == "A = 1\n"


def test_an_unknown_run_is_not_found(tmp_path: Path) -> None:
    out = harness("revert", "7", "--store", tmp_path / "s.db")
    assert out.code == 1
    assert out.stderr.strip() == f"harness: no run 7 in {tmp_path / 's.db'}"
