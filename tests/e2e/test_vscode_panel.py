"""The conversation panel (issue 23) in real VS Code: code-server with the built ``.vsix``,
Debian's Chromium, the real ``harness-lsp`` and a Chat Completions server on 127.0.0.1 as
the model (``tests/support/fake_llm.py``). One workbench for the module, the tests in file
order, each on what the ones before left:

1. a task typed in the panel: the model's words (hostile Markdown among them, drawn inert)
   and each tool call's row with ✓/✗ show while the run is still going; an exec's approval
   is answered inline (Deny), the row then says denied and the end line counts it;
2. a follow-up in the same conversation, checked by a command chosen for this window's runs
   in the prompt area's Verify control (the model is told it; the end line says it passed);
   the diff of the changed file opened from Changes, and that file reverted;
3. the panel survives a window reload (drawn again from ``harness.run.events``); the check
   chosen for the window is not kept in settings.

Screenshots of each state go to ``docs/img/panel-*.png`` (regenerated on every run).
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.e2e.vscode.codeserver import CHROMIUM_ARGS, ROOT, CodeServer, prerequisites
from tests.support.fake_llm import FakeLLM

IMG = ROOT / "docs" / "img"
BIN = Path(sys.executable).parent
ORIGINAL = "def add(a, b):\n    return a - b\n"
GOAL = "Fix add() in calc.py"
FOLLOW_UP = "Also give add() a docstring"
# Typed in the Verify control: one argument holds a quoted `;`, which no shell ever sees.
CHECK_TYPED = 'python3 -c "import calc; assert calc.add(2, 3) == 5"'
CHECK_SHOWN = "python3 -c 'import calc; assert calc.add(2, 3) == 5'"


class Pixels(BaseHTTPRequestHandler):
    """Counts every request: an image the model names must never be fetched."""

    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        Pixels.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return


def hostile(pixel: str) -> str:
    return (
        "Reading **calc.py** first. [run me](command:workbench.action.terminal.new) "
        "[js](javascript:alert(1)) "
        f'<img src="{pixel}/raw.png"> ![tracker]({pixel}/md.png)'
    )


def turns(pixel: str) -> list[dict[str, Any]]:
    fix = {"path": "calc.py", "old": "return a - b", "new": "return a + b"}
    doc = {"path": "calc.py", "old": "def add(a, b):\n", "new": 'def add(a, b):\n    """Add."""\n'}
    return [
        {
            "content": hostile(pixel),
            "tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}],
        },
        {"tool_calls": [{"name": "edit_file", "arguments": fix}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "missing.py"}}]},
        {"tool_calls": [{"name": "exec", "arguments": {"argv": ["echo", "hi"]}}]},
        {"content": "Fixed add(); running `echo` was denied."},
        {"tool_calls": [{"name": "edit_file", "arguments": doc}]},
        {"content": "Added a docstring."},
    ]


@dataclass
class Panel:
    cs: CodeServer
    wb: Any  # Workbench
    ws: Path
    fake: FakeLLM


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Panel]:
    prereq = prerequisites()
    from playwright.sync_api import sync_playwright

    from tests.e2e.vscode.workbench import Workbench

    home = tmp_path_factory.mktemp("vscode-panel")
    ws = home / "ws"
    ws.mkdir()
    (ws / ".git").mkdir()
    (ws / "calc.py").write_text(ORIGINAL)
    pixels = ThreadingHTTPServer(("127.0.0.1", 0), Pixels)
    threading.Thread(target=pixels.serve_forever, daemon=True).start()
    fake = FakeLLM(turns(f"http://127.0.0.1:{pixels.server_address[1]}")).start()
    machine = {
        "harness.serverPath": str(BIN / "harness-lsp"),
        "harness.provider.baseUrl": fake.url,
        "harness.storePath": str(home / "store.db"),
    }
    settings = {
        "harness.provider.name": "openai",
        "harness.provider.model": "fake-model",
        "security.workspace.trust.enabled": False,
        "workbench.startupEditor": "none",
        "workbench.colorTheme": "Default Dark Modern",
        "workbench.tips.enabled": False,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "editor.minimap.enabled": False,
    }
    cs = CodeServer(prereq, home, settings, machine)
    try:
        url = cs.start(ws)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=prereq.chromium, headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_context(viewport={"width": 1400, "height": 860}).new_page()
            try:
                page.goto(url)
                wb = Workbench(page)
                wb.wait_loaded()
                yield Panel(cs, wb, ws, fake)
            finally:
                page.screenshot(path=str(home / "last.png"))
                browser.close()
    finally:
        cs.stop()
        fake.stop()
        pixels.shutdown()
        pixels.server_close()


def sidebar(wb: Any) -> Any:
    return wb.page.locator(".part.sidebar")


def test_a_run_in_the_panel_words_rows_and_an_inline_denial(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    expect(wb.status_item).to_contain_text("harness", timeout=90_000)  # the server answered
    view = wb.open_panel()
    view.locator("#prompt").fill(GOAL)
    view.locator("#prompt").press("Enter")

    # The exec waits for the user: the run is not over, yet its words and rows are there.
    ask = view.locator(".approval", has_text="echo hi")
    expect(ask).to_be_visible()
    expect(view.locator(".end")).to_have_count(0)
    expect(wb.status_item).to_contain_text("approval waiting · exec echo hi")
    expect(view.locator(".turn.user")).to_have_text(re.compile(re.escape(GOAL)))
    words = view.locator(".turn.words").first
    expect(words.locator("strong")).to_have_text("calc.py")
    rows = view.locator("details.tool")
    expect(rows.nth(0)).to_contain_text("read_file calc.py ✓")
    expect(rows.nth(1)).to_contain_text("edit_file calc.py ✓")
    expect(rows.nth(2)).to_contain_text(re.compile(r"read_file missing\.py ✗ (failed|refused)"))
    expect(rows.nth(3)).to_contain_text("waiting for you")
    # Hostile Markdown is inert: no link navigates, no image element, nothing fetched.
    expect(words).to_contain_text("[run me](command:workbench.action.terminal.new)")
    expect(words).to_contain_text("[js](javascript:alert(1))")
    expect(words).to_contain_text("[image: tracker]")
    assert view.locator("a[href], img, #conv script").count() == 0
    assert Pixels.hits == []
    wb.shot(IMG / "panel-approval.png", sidebar(wb))

    ask.get_by_role("button", name="Deny", exact=True).click()
    end = view.locator(".end").first
    expect(end).to_contain_text("Run 1 finished")
    expect(end).to_contain_text("1 denied")
    expect(rows.nth(3)).to_contain_text("exec echo hi ✗ denied")
    expect(wb.status_item).not_to_contain_text("approval waiting")
    wb.shot(IMG / "panel-denied.png", sidebar(wb))
    assert (panel.ws / "calc.py").read_text() == ORIGINAL.replace("a - b", "a + b")
    assert Pixels.hits == []


def test_a_follow_up_then_the_diff_and_a_revert_from_changes(panel: Panel) -> None:
    from playwright.sync_api import expect

    from tests.e2e.vscode.workbench import loose

    wb = panel.wb
    view = wb.panel()
    control = view.locator("#verify button")
    choose_check(wb, control)
    view.locator("#prompt").fill(FOLLOW_UP)
    view.locator("#prompt").press("Enter")
    expect(view.locator(".end")).to_have_count(2)
    end = view.locator(".end").nth(1)
    expect(end).to_contain_text("Run 2 success")
    expect(end).to_contain_text(f"check passed: {CHECK_SHOWN}")
    expect(view.locator("details.tool", has_text="verify")).to_contain_text(f"{CHECK_SHOWN} ✓")
    # The same conversation: the follow-up's request carries the first turn, and the model
    # was told the check (one argv: the quoted `;` reached python, not a shell).
    said = json.dumps(panel.fake.requests[-1]["messages"])
    assert GOAL in said
    assert CHECK_SHOWN in said
    assert CHECK_SHOWN not in json.dumps(panel.fake.requests[0]["messages"])
    expect(view.locator(".turn.user")).to_have_count(2)
    wb.shot(IMG / "panel-followup.png", sidebar(wb))
    wb.shot(IMG / "panel-verify.png", sidebar(wb))

    change = view.locator("#changes [data-action=diff]", has_text="calc.py")
    change.click()
    expect(
        wb.page.locator(".tab.active", has_text="calc.py (before Harness ↔ now)")
    ).to_be_visible()
    diff = wb.page.locator(".editor-instance .monaco-diff-editor")
    expect(diff.locator(".editor.original .view-lines")).to_contain_text(loose("return a - b"))
    expect(diff.locator(".editor.modified .view-lines")).to_contain_text(loose('"""Add."""'))
    wb.shot(IMG / "panel-diff.png")
    view.locator("#changes [data-action=revertFile][data-path='calc.py']").click()
    # ↶ asks first (issue 36).
    wb.dialog("Undo the agent's changes to calc.py?").get_by_role(
        "button", name="Undo File"
    ).click()
    expect(wb.toast("Harness: put back calc.py.")).to_be_visible()
    assert (panel.ws / "calc.py").read_text() == ORIGINAL
    expect(view.locator("#changes")).not_to_contain_text("calc.py")


def choose_check(wb: Any, control: Any) -> None:
    """The Verify control: what a shell would do is refused under the box, a command is
    taken, an empty one goes back to the setting (none here), the box is prefilled with the
    choice, and Escape keeps it."""
    from playwright.sync_api import expect

    chosen = f"Verify (this window): {CHECK_SHOWN}"
    expect(control).to_have_text("Verify: no check")
    control.click()
    expect(wb.quick_input_box).to_have_value("")
    wb.quick_input_box.fill(f"{CHECK_TYPED} | tee log")
    expect(wb.quick_input).to_contain_text("`|`: no shell runs the check")
    wb.quick_input_box.fill(CHECK_TYPED)
    wb.quick_input_box.press("Enter")
    expect(control).to_have_text(chosen)
    control.click()
    expect(wb.quick_input_box).to_have_value(CHECK_SHOWN)
    wb.quick_input_box.fill("")
    wb.quick_input_box.press("Enter")
    expect(control).to_have_text("Verify: no check")
    control.click()
    wb.quick_input_box.fill(CHECK_TYPED)
    wb.quick_input_box.press("Enter")
    expect(control).to_have_text(chosen)
    control.click()
    expect(wb.quick_input_box).to_have_value(CHECK_SHOWN)
    wb.quick_input_box.press("Escape")
    expect(wb.quick_input).to_be_hidden()
    expect(control).to_have_text(chosen)


def test_the_panel_survives_a_window_reload(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    wb.page.reload()
    wb.wait_loaded()
    # The window comes back with the panel open; it draws the conversation from the store.
    view = wb.panel()
    expect(view.locator("#prompt")).to_be_visible(timeout=60_000)
    expect(view.locator(".turn.user")).to_have_count(2)
    expect(view.locator(".end").first).to_contain_text("1 denied")
    expect(view.locator("details.tool", has_text="exec echo hi")).to_contain_text("✗ denied")
    expect(view.locator(".turn.words").first.locator("strong")).to_have_text("calc.py")
    expect(view.locator(".end").nth(1)).to_contain_text("Run 2 success")
    expect(view.locator(".end").nth(1)).to_contain_text(f"check passed: {CHECK_SHOWN}")
    # The window's check was not written to settings: a new window starts from the setting.
    expect(view.locator("#verify button")).to_have_text("Verify: no check")
    wb.shot(IMG / "panel-reloaded.png", sidebar(wb))
    assert Pixels.hits == []
