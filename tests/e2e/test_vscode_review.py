"""Review in the editor (issue 36) and a cloned repository's verify with Workspace Trust off
(issue 30, finding 3) in real VS Code: code-server with the built ``.vsix``, Debian's
Chromium, the real ``harness-lsp``, VS Code's own JSON language server for the diagnostics
and a Chat Completions server on 127.0.0.1 as the model. One workbench, the tests in file
order, each on what the ones before left:

1. "Fix with Harness" on a JSON syntax error (the lightbulb) opens the panel with the place
   attached and the goal in the box; the run it starts fixes it and changes calc.py in three
   places and notes.md — and the repository's ``.vscode/settings.json`` ``harness.verify``
   does not run (Trust off, the folder not in the harness's trusted list);
2. calc.py shows the three hunks in the gutter with "✓ Keep · ↶ Undo" CodeLenses, and the
   same marks in the panel's Changes diff; Undo of the middle one takes that hunk only off
   the disk, Keep of the first leaves one to review; "Ask Harness…" on a selection attaches
   exactly its lines;
3. the file's "Undo all…" asks first (Cancel changes nothing), then puts data.json back and
   says the error the undo brought back (VS Code's JSON diagnostics); the panel's Changes
   list follows;
4. "Undo All Changes of the Conversation…" asks first, then every file is as before;
5. Trust This Folder: the next run uses the repository's verify.

Screenshots go to ``docs/img/review-*.png`` (regenerated on every run).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.vscode.codeserver import ROOT, CodeServer, prerequisites
from tests.e2e.vscode.session import QUIET, workbench
from tests.support.fake_llm import FakeLLM

IMG = ROOT / "docs" / "img"
BIN = Path(sys.executable).parent
CALC = (
    "def add(a, b):\n    return a - b\n\n\n"
    "def neg(a):\n    return a\n\n\n"
    "def mul(a, b):\n    return a / b\n"
)
AGENT = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def neg(a):\n    return -a\n\n\n"
    "def mul(a, b):\n    return a * b\n"
)
# neg's hunk undone: add and mul keep the agent's fix.
NEG_UNDONE = AGENT.replace("return -a", "return a")
DATA = '{\n  "a": 1\n  "b": 2\n}\n'
NOTES = "# Notes\n"
SENTINEL = "VERIFY_RAN"
VERIFY = ["touch", SENTINEL]


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {
        "tool_calls": [{"name": "edit_file", "arguments": {"path": path, "old": old, "new": new}}]
    }


def read(path: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "read_file", "arguments": {"path": path}}]}


def turns() -> list[dict[str, Any]]:
    write = {"path": "notes.md", "content": NOTES + "\nFixed the three functions.\n"}
    return [
        read("data.json"),
        edit("data.json", '"a": 1\n', '"a": 1,\n'),
        read("calc.py"),
        edit("calc.py", "return a - b", "return a + b"),
        edit("calc.py", "return a\n", "return -a\n"),
        edit("calc.py", "return a / b", "return a * b"),
        {"tool_calls": [{"name": "write_file", "arguments": write}]},
        {"content": "Fixed data.json and calc.py."},
        {"content": "Nothing else to do."},
    ]


@dataclass
class Review:
    cs: CodeServer
    wb: Any  # Workbench
    ws: Path
    fake: FakeLLM


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Review]:
    prereq = prerequisites()

    home = tmp_path_factory.mktemp("vscode-review")
    ws = home / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"harness.verify": VERIFY}))
    (ws / "calc.py").write_text(CALC)
    (ws / "data.json").write_text(DATA)
    (ws / "notes.md").write_text(NOTES)
    fake = FakeLLM(turns()).start()
    machine = {
        "harness.serverPath": str(BIN / "harness-lsp"),
        "harness.provider.baseUrl": fake.url,
        "harness.storePath": str(home / "store.db"),
    }
    settings = {**QUIET}
    cs = CodeServer(prereq, home, settings, machine)
    try:
        with workbench(prereq, cs, ws, home) as wb:
            yield Review(cs, wb, ws, fake)
    finally:
        fake.stop()


def lens(wb: Any, text: str) -> Any:
    return wb.page.locator(".editor-instance .codelens-decoration a", has_text=text)


def to_tab(wb: Any, name: str) -> None:
    """The open editor ``name`` by its tab (the keyboard may be in the panel or a toast)."""
    from playwright.sync_api import expect

    wb.page.locator(".tab", has_text=name).click()
    expect(wb.page.locator(".tab.active", has_text=name)).to_be_visible()


def go_to(wb: Any, where: str) -> None:
    """Go to Line/Column (Ctrl+G) in the active editor."""
    from playwright.sync_api import expect

    wb.page.keyboard.press("Control+G")
    expect(wb.quick_input_box).to_be_visible()
    wb.quick_input_box.fill(f":{where}")
    wb.quick_input_box.press("Enter")
    expect(wb.quick_input).to_be_hidden()


def quick_fix(wb: Any, title: str) -> None:
    """The lightbulb menu (Ctrl+.) at the cursor, and its action ``title`` chosen with the
    keyboard (the menu's rows take no clicks while it opens)."""
    from playwright.sync_api import expect

    wb.page.keyboard.press("Control+.")
    menu = wb.page.locator(".action-widget")
    expect(menu.locator(".monaco-list-row", has_text=title).first).to_be_visible()
    rows = menu.locator(".monaco-list-row.action")
    for _ in range(rows.count() + 1):
        if (menu.locator(".monaco-list-row.focused").get_attribute("aria-label") or "") == title:
            wb.page.keyboard.press("Enter")
            expect(menu).to_be_hidden()
            return
        wb.page.keyboard.press("ArrowDown")
    raise AssertionError(f"{title!r} is not in the menu: {menu.inner_text()}")


def test_fix_with_harness_attaches_the_problem_and_the_clones_verify_does_not_run(
    review: Review,
) -> None:
    from playwright.sync_api import expect

    wb = review.wb
    expect(wb.status_item).to_contain_text("harness", timeout=90_000)  # the server answered
    wb.open_file("data.json")
    squiggle = wb.page.locator(".editor-instance .squiggly-error")
    expect(squiggle.first).to_be_visible(timeout=60_000)  # VS Code's JSON language server
    go_to(wb, "3:4")  # inside "b", where the comma is missing
    quick_fix(wb, "Fix with Harness")
    view = wb.panel()
    expect(view.locator("#attached .chip .label")).to_have_text(["data.json:3"])
    prompt = view.locator("#prompt")
    expect(prompt).to_have_value(re.compile(r"^Fix the problem at data\.json:3: Expected comma"))
    expect(prompt).to_be_focused()
    wb.shot(IMG / "review-fix-with-harness.png")

    prompt.press("Enter")
    end = view.locator(".end").first
    expect(end).to_contain_text("Run 1", timeout=60_000)
    # The attached range reached the model as a read at step 0.
    assert '\\"b\\": 2' in json.dumps(review.fake.requests[0]["messages"])
    assert json.loads((review.ws / "data.json").read_text()) == {"a": 1, "b": 2}
    # Workspace Trust off, the folder not in the harness's trusted list: the clone's verify
    # (its .vscode/settings.json) did not run.
    assert not (review.ws / SENTINEL).exists()
    expect(end).not_to_contain_text("check")
    assert (review.ws / "calc.py").read_text() == AGENT


def test_hunks_in_the_editor_undo_one_and_keep_one(review: Review) -> None:
    from playwright.sync_api import expect

    wb = review.wb
    wb.open_file("calc.py")
    expect(lens(wb, "Harness: 3 changes to review — Keep all")).to_be_visible()
    expect(lens(wb, "↶ Undo")).to_have_count(3)
    gutter = wb.page.locator(".editor-instance .cgmr")
    expect(gutter).to_have_count(3)
    wb.shot(IMG / "review-hunks.png")

    # The same marks in the Changes diff (its right side is the file).
    wb.panel().locator("#changes [data-action=diff]", has_text="calc.py").click()
    diff = wb.page.locator(".editor-instance .monaco-diff-editor")
    expect(diff.locator(".editor.modified .cgmr")).to_have_count(3)
    wb.shot(IMG / "review-diff.png")
    wb.page.locator(".tab.active .codicon-close").click()
    to_tab(wb, "calc.py")

    lens(wb, "↶ Undo").nth(1).click()  # neg's hunk
    expect(wb.toast("Harness: undid 1 change in calc.py.")).to_be_visible()
    # On disk: neg is as before, add and mul keep the agent's fix.
    assert (review.ws / "calc.py").read_text() == NEG_UNDONE
    expect(lens(wb, "↶ Undo")).to_have_count(2)

    lens(wb, "✓ Keep").first.click()  # add's hunk
    expect(lens(wb, "Harness: 1 change to review — Keep all")).to_be_visible()
    expect(lens(wb, "↶ Undo")).to_have_count(1)
    expect(gutter).to_have_count(1)
    wb.shot(IMG / "review-kept.png")

    # "Ask Harness…" on a selection attaches exactly the lines selected.
    wb.page.locator(".editor-instance .view-line", has_text="def add").first.click()
    wb.page.keyboard.press("Home")
    wb.page.keyboard.press("Shift+ArrowDown")
    wb.page.keyboard.press("Shift+End")
    quick_fix(wb, "Ask Harness…")
    view = wb.panel()
    expect(view.locator("#attached .chip .label").last).to_have_text("calc.py:1–2")


def test_undo_a_file_asks_first_and_says_what_it_broke(review: Review) -> None:
    from playwright.sync_api import expect

    wb = review.wb
    to_tab(wb, "data.json")
    undo = lens(wb, "Undo all…")
    undo.click()
    dialog = wb.dialog("Undo the agent's changes to data.json?")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert json.loads((review.ws / "data.json").read_text()) == {"a": 1, "b": 2}

    undo.click()
    expect(dialog).to_be_visible()
    wb.shot(IMG / "review-undo-file-confirm.png")
    dialog.get_by_role("button", name="Undo File").click()
    said = wb.toast(re.compile(r"put back data\.json; it brought back 1 problem: data\.json:3"))
    expect(said).to_be_visible(timeout=60_000)
    expect(said).to_contain_text("Expected comma")
    assert (review.ws / "data.json").read_text() == DATA
    expect(lens(wb, "Undo all…")).to_have_count(0)  # nothing left to review in it
    expect(wb.panel().locator("#changes")).not_to_contain_text("data.json")  # the panel follows
    wb.shot(IMG / "review-undo-broke.png")


def test_undo_all_of_the_conversation_asks_first(review: Review) -> None:
    from playwright.sync_api import expect

    wb = review.wb
    wb.clear_notifications()
    wb.palette("Harness: Undo All Changes of the Conversation…")
    dialog = wb.dialog("Undo every change of this conversation")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("calc.py")
    expect(dialog).to_contain_text("notes.md")
    wb.shot(IMG / "review-undo-all-confirm.png")
    dialog.get_by_role("button", name="Undo All").click()
    expect(wb.toast(re.compile(r"Harness: put back 2 files"))).to_be_visible(timeout=60_000)
    assert (review.ws / "calc.py").read_text() == CALC
    assert (review.ws / "notes.md").read_text() == NOTES
    to_tab(wb, "calc.py")
    expect(lens(wb, "↶ Undo")).to_have_count(0)


def test_once_the_harness_trusts_the_folder_its_verify_runs(review: Review) -> None:
    from playwright.sync_api import expect

    wb = review.wb
    wb.palette("Harness: Trust This Folder")
    dialog = wb.dialog("Trust ws for the Harness agent?")
    dialog.get_by_role("button", name="Trust").click()
    expect(wb.toast("is in your trusted folders")).to_be_visible()
    view = wb.open_panel()
    view.locator("#prompt").fill("Anything else?")
    view.locator("#prompt").press("Enter")
    end = view.locator(".end").nth(1)
    expect(end).to_contain_text("Run 2", timeout=60_000)
    expect(end).to_contain_text("check passed: touch VERIFY_RAN")
    assert (review.ws / SENTINEL).exists()
    wb.shot(IMG / "review-trusted-verify.png", wb.page.locator(".part.sidebar"))
