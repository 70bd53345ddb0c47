"""`harness memory clear` (issue 13: it deleted pinned operator notes without asking): it
asks on a terminal and names the pinned notes it would delete, `--yes` skips the question,
`--keep-pinned` keeps them, and with neither a terminal nor `--yes` it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cli import harness, harness_pty


@pytest.fixture
def notes(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    store = tmp_path / "s.db"
    for key, pin in (("build", True), ("style", False), ("db", False)):
        out = harness("memory", "write", key, f"{key} note", "-w", ws, "--store", store,
                      *(["--pin"] if pin else []))  # fmt: skip
        assert out.code == 0, out.stderr
    return ws, store


def keys(ws: Path, store: Path) -> list[str]:
    listed = harness("memory", "list", "-w", ws, "--store", store, "--json").json()
    return sorted(n["key"] for n in listed)


def test_without_a_terminal_or_yes_it_refuses_and_deletes_nothing(notes: tuple[Path, Path]) -> None:
    ws, store = notes
    out = harness("memory", "clear", "-w", ws, "--store", store)
    assert out.code == 2
    (line,) = out.stderr.strip().splitlines()
    assert "3 notes (1 pinned)" in line and "--yes" in line
    assert keys(ws, store) == ["build", "db", "style"]


def test_on_a_terminal_it_asks_and_no_keeps_everything(notes: tuple[Path, Path]) -> None:
    ws, store = notes
    screen = harness_pty("memory", "clear", "-w", ws, "--store", store, answers=[("[y/N]", "n\n")])
    assert screen.code == 1, screen.text
    said = " ".join(screen.stream.split())
    assert f"delete 3 notes of workspace {ws.resolve()}, 1 of them pinned (build)? [y/N]" in said
    assert "nothing deleted" in said
    assert keys(ws, store) == ["build", "db", "style"]


def test_on_a_terminal_yes_deletes_every_note_and_says_pinned_ones_went(
    notes: tuple[Path, Path],
) -> None:
    ws, store = notes
    screen = harness_pty("memory", "clear", "-w", ws, "--store", store, answers=[("[y/N]", "y\n")])
    assert screen.code == 0, screen.text
    said = " ".join(screen.stream.split())
    assert f"deleted 3 notes from workspace {ws.resolve()} (1 pinned)" in said
    assert keys(ws, store) == []


def test_yes_skips_the_question(notes: tuple[Path, Path]) -> None:
    ws, store = notes
    out = harness("memory", "clear", "-w", ws, "--store", store, "--yes", "--json")
    assert out.code == 0, out.stderr
    assert out.json() == {"deleted": 3, "pinned": 1}
    assert keys(ws, store) == []


def test_keep_pinned_deletes_only_the_others(notes: tuple[Path, Path]) -> None:
    ws, store = notes
    out = harness("memory", "clear", "-w", ws, "--store", store, "--yes", "--keep-pinned")
    assert out.code == 0, out.stderr
    assert f"deleted 2 notes from workspace {ws.resolve()}; kept 1 pinned" in out.stdout
    assert keys(ws, store) == ["build"]


def test_an_empty_scope_needs_no_question(tmp_path: Path) -> None:
    out = harness("memory", "clear", "-w", tmp_path, "--store", tmp_path / "s.db")
    assert out.code == 0, out.stderr
    assert "no notes" in out.stdout
