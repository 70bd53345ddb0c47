"""The panel of issue 36 in real VS Code (code-server + Chromium, the real ``harness-lsp``, the
fake Chat Completions server): a panel that follows the agent, says what each call did, and
takes @-mentions, / prompts, steering, plan mode and the keyboard. One workbench for the
module, the tests in file order, each on what the ones before left:

1. the first run with no key: the empty panel says what to set (provider, key) with
   buttons; Enter says "no API key" in the panel, in plain words, no toast; a provider
   error (401) is said in the panel too;
2. keyboard only: the keybinding puts the caret in the prompt box, the task is typed and
   sent, the exec's approval takes the focus and ``A`` answers it; the rows say ✓/✗ and the
   reason at the default sidebar width; the failed edit and the exec expand to their
   reason and output; the Changes list appears and the end line stays in view, and so does
   the follow-up's;
3. steering a run that waits (its words reach the next request); plan mode (no write lands);
4. ``/`` lists the repository's prompt with its source and runs it expanded; ``@`` completes
   a file (not a git-ignored one) and a symbol into chips shown in the sent turn;
5. Restore to here lists the file first, then puts it back;
6. the fast-finish race: 30 runs the fake answers at once leave the status bar idle and the
   panel not running; the times from Enter to the user's turn drawn and from the model's
   first byte to its first word drawn are measured (docs/MEASUREMENTS.md).

Screenshots go to ``docs/img/panel36-*.png`` (regenerated on every run).
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.vscode.codeserver import ROOT, CodeServer, prerequisites
from tests.e2e.vscode.session import QUIET, workbench
from tests.support.fake_llm import FakeLLM, Fault

IMG = ROOT / "docs" / "img"
BIN = Path(sys.executable).parent
CALC = "def add(a, b):\n    return a - b\n\nA = 0  # total\nB = 1  # total\nC = 2  # total\n"
FIXED = CALC.replace("a - b", "a + b")
PROMPT = "---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs.\n"
STEER = "not b.py, leave that file alone"
MEASURE_JS = """() => {
  if (window.__m) return;
  window.__m = {enter: [], shown: [], user: [], words: []};
  const now = () => performance.timeOrigin + performance.now();
  document.getElementById('prompt').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) window.__m.enter.push(now());
  }, true);
  const count = (sel) => document.querySelectorAll(sel).length;
  let shown = count('#conv .turn.user'), users = count('#conv .turn.user:not(.pending)');
  let words = count('#conv .turn.words');
  new MutationObserver(() => {
    const s = document.querySelectorAll('#conv .turn.user').length;
    const u = document.querySelectorAll('#conv .turn.user:not(.pending)').length;
    const w = document.querySelectorAll('#conv .turn.words').length;
    // High-water marks: a redraw of the conversation (counts drop, then rise again) is not
    // a new turn; and the words' times are on the wall clock (Date.now), as the fake
    // provider's first bytes are (time.time), not on the page's monotonic clock, which
    // drifts from it over a long-lived page.
    if (s > shown) window.__m.shown.push(now());
    if (u > users) window.__m.user.push(now());
    if (w > words) window.__m.words.push(Date.now());
    shown = Math.max(s, shown); users = Math.max(u, users); words = Math.max(w, words);
  }).observe(document.getElementById('conv'), {childList: true, subtree: true, characterData: true});
}"""


@dataclass
class Panel:
    cs: CodeServer
    wb: Any  # Workbench
    ws: Path
    fake: FakeLLM
    machine: dict[str, str]


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Panel]:
    prereq = prerequisites()

    home = tmp_path_factory.mktemp("vscode-panel36")
    ws = home / "ws"
    (ws / ".github" / "prompts").mkdir(parents=True)
    (ws / "build").mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)  # .gitignore is git's
    (ws / "calc.py").write_text(CALC)
    (ws / "README.md").write_text("# Notes\n\n## Cart totals\n\nHow totals are summed.\n")
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build" / "calc_generated.py").write_text("X = 1\n")
    (ws / ".github" / "prompts" / "review.prompt.md").write_text(PROMPT)
    fake = FakeLLM([]).start()
    # No base URL and no key: the first run has none (set later, as a user would).
    machine = {
        "harness.serverPath": str(BIN / "harness-lsp"),
        "harness.storePath": str(home / "store.db"),
    }
    settings = {**QUIET}
    cs = CodeServer(prereq, home, settings, machine)
    try:
        with workbench(prereq, cs, ws, home) as wb:
            yield Panel(cs, wb, ws, fake, machine)
    finally:
        fake.stop()


def sidebar(wb: Any) -> Any:
    return wb.page.locator(".part.sidebar")


def toasts(wb: Any) -> Any:
    return wb.page.locator(".notification-toast", has_text="Harness")


def panel_frame(wb: Any) -> Any:
    """The panel's inner frame, to read its layout and install the timing probe."""
    for frame in wb.page.frames:
        parent = frame.parent_frame
        if parent is not None and "purpose=webviewView" in parent.url:
            return frame
    raise AssertionError("no panel frame")


IN_VIEW_JS = """(sel) => { const all = document.querySelectorAll(sel); const el = all[all.length - 1];
    if (!el) return false; const c = document.getElementById('conv').getBoundingClientRect();
    const r = el.getBoundingClientRect(); return r.top >= c.top - 1 && r.bottom <= c.bottom + 1; }"""


def in_view(frame: Any, selector: str) -> bool:
    """The last element of ``selector`` is wholly inside the conversation's visible area."""
    return bool(frame.evaluate(IN_VIEW_JS, selector))


def wait_in_view(frame: Any, selector: str) -> None:
    """Once the layout settled (the follow is applied after layout): ``in_view``."""
    frame.wait_for_function(IN_VIEW_JS, arg=selector, timeout=10_000)


def send(view: Any, text: str) -> None:
    view.locator("#prompt").fill(text)
    view.locator("#prompt").press("Enter")


def test_first_run_without_a_key_and_a_provider_error_inline(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    expect(wb.status_item).to_contain_text("harness", timeout=90_000)
    view = wb.open_panel()
    setup = view.locator(".setup")
    expect(setup).to_contain_text("Two steps before the first run")
    expect(setup.get_by_role("button", name="Set API Key for openai")).to_be_visible()
    expect(setup.get_by_role("button", name="Choose provider…")).to_be_visible()
    wb.shot(IMG / "panel36-first-run.png", sidebar(wb))

    send(view, "Say hello")
    error = view.locator("#error")
    expect(error).to_contain_text("no API key for openai")
    expect(error).not_to_contain_text("harness.run")
    expect(error.get_by_role("button", name="Set API Key for openai")).to_be_visible()
    expect(view.locator("#prompt")).to_have_value("Say hello")  # the prompt is not lost
    assert toasts(wb).count() == 0
    wb.shot(IMG / "panel36-no-key.png", sidebar(wb))
    # "Open Settings" lands where the setting lives: the Remote tab (code-server is remote).
    error.get_by_role("button", name="Open Settings").click()
    settings = wb.page.locator(".editor-group-container.active .settings-editor")
    remote = settings.get_by_role("tab", name=re.compile(r"^Remote"))
    expect(remote).to_have_attribute("aria-selected", "true")
    expect(settings.locator('input[aria-label="harness.provider.baseUrl"]')).to_be_visible()
    wb.shot(IMG / "panel36-open-settings.png")
    wb.palette("View: Close Editor")

    # The user points the provider at a server (the Remote tab's settings file).
    panel.machine["harness.provider.baseUrl"] = panel.fake.url
    panel.cs.machine_settings_file.write_text(json.dumps(panel.machine, indent=2))
    expect(setup).to_have_count(0)
    error.get_by_role("button", name="Dismiss").click()
    expect(error).to_be_empty()

    panel.fake.inject(Fault.unauthorized())
    view.locator("#prompt").press("Enter")  # the draft "Say hello"
    expect(view.locator(".end")).to_contain_text("provider error", timeout=60_000)
    expect(error).to_contain_text("stopped")
    assert toasts(wb).count() == 0  # the panel shows it: no toast
    wb.shot(IMG / "panel36-provider-error.png", sidebar(wb))
    error.get_by_role("button", name="Dismiss").click()


def rows_turns() -> list[dict[str, Any]]:
    fix = {"path": "calc.py", "old": "return a - b", "new": "return a + b"}
    doc = {"path": "calc.py", "old": "def add(a, b):\n", "new": 'def add(a, b):\n    """Add."""\n'}
    return [
        {
            "content": "Reading calc.py.",
            "tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}],
        },
        {
            "tool_calls": [
                {
                    "name": "edit_file",
                    "arguments": {"path": "calc.py", "old": "# total", "new": "# sum"},
                }
            ]
        },
        {"tool_calls": [{"name": "exec", "arguments": {"argv": ["seq", "1", "40"]}}]},
        {"tool_calls": [{"name": "edit_file", "arguments": fix}]},
        {"content": "Fixed add()."},
        {"tool_calls": [{"name": "edit_file", "arguments": doc}]},
        {"content": "Added a docstring."},
    ]


def test_keyboard_rows_and_following_the_end(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    view = wb.panel()
    view.locator("[data-action=newConversation]").click()
    panel.fake.add_turns(*rows_turns())
    # Keyboard only: the keybinding puts the caret in the box.
    wb.page.locator(".monaco-workbench").click(position={"x": 900, "y": 400})
    wb.page.keyboard.press("Control+Alt+h")
    expect(view.locator("#prompt")).to_be_focused()
    wb.page.keyboard.type("Fix add() in calc.py")
    wb.page.keyboard.press("Enter")
    card = view.locator(".approval", has_text="seq 1 40")
    expect(card).to_be_focused()
    expect(card).to_contain_text("A allow · R allow for this run · D deny")
    wb.shot(IMG / "panel36-keyboard-approval.png", sidebar(wb))
    wb.page.keyboard.press("a")
    end = view.locator(".end")
    expect(end).to_have_count(1)
    expect(end.first).to_contain_text("Run 2 finished")
    expect(view.locator("#changes")).to_contain_text("calc.py")
    frame = panel_frame(wb)
    wait_in_view(frame, "#conv .end")  # not left hidden below the Changes list

    rows = view.locator("details.tool")
    failed = rows.nth(1)
    expect(failed.locator(".status")).to_have_text("✗ failed")
    expect(failed.locator(".reason")).to_contain_text("`old` occurs 3 times in `calc.py`")
    assert frame.evaluate(
        """() => { const s = document.querySelectorAll('details.tool')[1].querySelector('.status');
        const r = s.getBoundingClientRect(), c = document.getElementById('conv').getBoundingClientRect();
        return r.width > 0 && r.right <= c.right; }"""
    ), "the status mark is cut at the default sidebar width"
    assert "occurs 3 times" in (failed.locator("summary").get_attribute("title") or "")
    width = sidebar(wb).bounding_box()["width"]
    wb.shot(IMG / "panel36-rows.png", sidebar(wb))
    failed.locator("summary").click()
    expect(failed.locator("pre.result")).to_contain_text("occurs 3 times")
    exec_row = rows.nth(2)
    expect(exec_row).to_contain_text("exec seq 1 40 ✓")
    exec_row.locator("summary").click()
    expect(exec_row.locator("pre.result")).to_contain_text(re.compile(r"^1\n2\n3\n", re.M))
    expect(exec_row.locator("pre.result")).to_contain_text("40")
    expect(exec_row.locator("pre.result")).to_contain_text("more lines")
    wb.shot(IMG / "panel36-expanded.png", sidebar(wb))
    assert width < 420, f"not the default sidebar width: {width}"

    # The follow-up: drawn at the end, its end line in view too.
    send(view, "Also give add() a docstring")
    expect(end).to_have_count(2)
    expect(view.locator("#changes")).to_contain_text("calc.py")
    expect(end.nth(1)).to_be_visible()
    wait_in_view(frame, "#conv .end")  # the follow-up's end line, not below the fold
    wb.shot(IMG / "panel36-follow-up.png", sidebar(wb))
    assert toasts(wb).count() == 0


def test_steering_and_plan_mode(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    view = wb.panel()
    panel.fake.add_turns(
        {"tool_calls": [{"name": "exec", "arguments": {"argv": ["echo", "tests"]}}]},
        {"content": "Leaving b.py alone."},
    )
    send(view, "Run the tests")
    card = view.locator(".approval", has_text="echo tests")
    expect(card).to_be_visible()
    expect(view.locator("#steer")).to_contain_text("is going: Enter")
    expect(view.locator("#steer")).to_contain_text("Queue")
    expect(view.locator("#steer")).to_contain_text("Stop and send")
    expect(view.locator("#send")).to_have_text("Queue")
    send(view, STEER)
    card.get_by_role("button", name="Allow", exact=True).click()
    expect(view.locator(".end")).to_have_count(3)
    steered = view.locator(".turn.user", has_text=STEER)
    expect(steered).to_contain_text("You, while it worked")
    assert STEER in json.dumps(panel.fake.requests[-1]["messages"])
    wb.shot(IMG / "panel36-steer.png", sidebar(wb))

    before = (panel.ws / "calc.py").read_text()
    panel.fake.add_turns(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "calc.py", "content": "x"}}]},
        {"content": "Plan: 1. split add() 2. test it."},
    )
    view.locator("#plan").check()
    send(view, "Plan the cart refactor")
    expect(view.locator(".end")).to_have_count(4)
    view.locator("#plan").uncheck()
    expect(view.locator(".turn.user").last).to_contain_text("You · plan")
    refused = view.locator("details.tool", has_text="write_file")
    expect(refused.locator(".status")).to_contain_text("✗")
    expect(refused.locator(".reason")).to_contain_text("plan mode: this run only reads")
    refused.locator("summary").click()
    expect(refused.locator("pre.result")).to_contain_text("this run is in plan mode")
    assert (panel.ws / "calc.py").read_text() == before
    wb.shot(IMG / "panel36-plan.png", sidebar(wb))


def test_slash_prompt_and_mentions(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    view = wb.panel()
    box = view.locator("#prompt")
    box.click()
    box.press_sequentially("/rev")
    item = view.locator("#complete li", has_text="/review FILE")
    expect(item).to_contain_text("repository · .github/prompts/review.prompt.md")
    expect(item).to_contain_text("Review a file for bugs")
    wb.shot(IMG / "panel36-slash.png", sidebar(wb))
    box.press("Enter")
    expect(box).to_have_value("/review ")
    panel.fake.add_turns({"content": "Looks fine."})
    box.press_sequentially("calc.py")
    box.press("Enter")
    expect(view.locator(".end")).to_have_count(5)
    expect(view.locator(".turn.user").last).to_contain_text("Review calc.py for bugs.")
    assert "Review calc.py for bugs." in json.dumps(panel.fake.requests[-1]["messages"])

    box.press_sequentially("look at @calc")
    listed = view.locator("#complete li")
    expect(listed.first).to_contain_text("calc.py")
    expect(view.locator("#complete")).not_to_contain_text("calc_generated")  # git-ignored
    box.press("Enter")
    expect(view.locator("#attached .chip")).to_have_text(["calc.py×"])
    # Markdown's symbols come from VS Code's Markdown extension, which starts with a Markdown file.
    wb.open_file("README.md")
    box.click()
    box.press("End")
    box.press_sequentially(" and @Cart")
    symbol = view.locator("#complete li", has_text="Cart totals")
    _until_listed(box, symbol)
    wb.shot(IMG / "panel36-mention.png", sidebar(wb))
    symbol.dispatch_event("mousedown")
    expect(view.locator("#attached .chip")).to_have_count(2)
    expect(view.locator("#attached .chip").nth(1)).to_contain_text("Cart totals (README.md:3")
    panel.fake.add_turns({"content": "Seen."})
    box.press("Enter")
    expect(view.locator(".end")).to_have_count(6)
    sent = view.locator(".turn.user").last
    expect(sent.locator(".chip")).to_have_text(
        ["calc.py", re.compile(r"Cart totals \(README\.md:3")]
    )
    assert "return a + b" in json.dumps(panel.fake.requests[-1]["messages"])
    wb.shot(IMG / "panel36-mention-sent.png", sidebar(wb))


def _until_listed(box: Any, symbol: Any, tries: int = 6) -> None:
    """The list is asked again at each keystroke; VS Code's Markdown extension starts with
    the first Markdown file and, on a loaded machine, may answer the workspace-symbol query
    only after the last keystroke (a fresh-clone run under two workers missed it once). So
    retype the query's last letter until the symbol is listed (each wait 10 s)."""
    from playwright.sync_api import expect

    for _ in range(tries - 1):
        try:
            expect(symbol).to_be_visible(timeout=10_000)
            return
        except AssertionError:
            box.press("Backspace")
            box.press_sequentially("t")
    expect(symbol).to_be_visible(timeout=10_000)


def test_restore_to_here(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    view = wb.panel()
    assert '"""Add."""' in (panel.ws / "calc.py").read_text()
    view.locator(".turn.user", has_text="Also give add() a docstring").locator(
        "[data-action=restore]"
    ).click()
    dialog = wb.dialog("restore the conversation to before turn 2")
    expect(dialog).to_contain_text("These files go back as they were: calc.py")
    wb.shot(IMG / "panel36-restore.png")
    dialog.get_by_role("button", name="Restore").click()
    expect(wb.toast("restored to before turn 2")).to_be_visible()
    assert (panel.ws / "calc.py").read_text() == FIXED
    expect(view.locator(".turn.user", has_text="Also give add() a docstring")).to_have_count(0)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def test_fast_finish_race_and_timings(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    wb.clear_notifications()  # the restore's "restored" notice
    view = wb.panel()
    view.locator("[data-action=newConversation]").click()
    expect(view.locator("#conv .turn")).to_have_count(0)  # the new conversation is drawn
    frame = panel_frame(wb)
    frame.evaluate(MEASURE_JS)
    first_bytes: list[float] = []

    def instant(body: dict[str, Any]) -> dict[str, Any]:
        first_bytes.append(time.time() * 1000)
        return {"content": "Done at once."}

    runs = 30
    for i in range(1, runs + 1):
        panel.fake.add_turns(instant)
        send(view, f"ping {i}")
        expect(view.locator(".end")).to_have_count(i)
        expect(view.locator("#stop")).to_be_hidden()
        expect(wb.status_item).not_to_contain_text("starting")
        expect(wb.status_item).not_to_contain_text("approval")
    assert toasts(wb).count() == 0
    m = frame.evaluate("() => window.__m")
    enter_to_shown = [u - e for e, u in zip(m["enter"], m["shown"], strict=False)]
    enter_to_turn = [u - e for e, u in zip(m["enter"], m["user"], strict=False)]
    byte_to_word = [w - b for b, w in zip(first_bytes, m["words"], strict=False)]
    assert len(enter_to_turn) == runs and len(byte_to_word) == runs
    assert min(enter_to_shown + enter_to_turn + byte_to_word) >= 0, (
        "the probe's lists are not aligned"
    )
    report = {
        "runs": runs,
        "enter_to_words_drawn_ms": {
            "p50": statistics.median(enter_to_shown),
            "p95": pct(enter_to_shown, 0.95),
        },
        "enter_to_run_turn_drawn_ms": {
            "p50": statistics.median(enter_to_turn),
            "p95": pct(enter_to_turn, 0.95),
        },
        "first_byte_to_first_word_ms": {
            "p50": statistics.median(byte_to_word),
            "p95": pct(byte_to_word, 0.95),
        },
    }
    (ROOT / "docs" / "img" / "panel36-timings.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report))
    wb.shot(IMG / "panel36-race.png", sidebar(wb))


def test_scrolled_up_new_activity_then_history_with_dates(panel: Panel) -> None:
    from playwright.sync_api import expect

    wb = panel.wb
    view = wb.panel()
    panel.fake.add_turns(
        {
            "content": "Checking.",
            "tool_calls": [{"name": "exec", "arguments": {"argv": ["echo", "late"]}}],
        },
        {"content": "All checked, and here is a longer answer that arrives while you read."},
    )
    send(view, "Check it")
    card = view.locator(".approval", has_text="echo late")
    expect(card).to_be_focused()
    # The user scrolls up to read; the run goes on below.
    view.locator("#conv").hover()
    wb.page.mouse.wheel(0, -5000)
    frame = panel_frame(wb)
    frame.wait_for_function("() => document.getElementById('conv').scrollTop < 50")
    wb.page.keyboard.press("a")  # the focused card still answers
    expect(view.locator(".end")).to_have_count(31)
    button = view.locator("#newActivity")
    expect(button).to_be_visible()
    assert not in_view(frame, "#conv .end"), "the panel jumped while the user read"
    wb.shot(IMG / "panel36-new-activity.png", sidebar(wb))
    button.click()
    expect(button).to_be_hidden()
    wait_in_view(frame, "#conv .end")

    view.locator("[data-action=toggleHistory]").click()
    history = view.locator("#history")
    expect(history.locator("button.conv")).to_have_count(
        3
    )  # provider error, the long one, the race
    expect(history.locator("button.conv").first).to_contain_text(
        re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
    )
    wb.shot(IMG / "panel36-history.png", sidebar(wb))
