"""The VS Code extension in real VS Code: code-server with ``editors/vscode/harness.vsix``
installed, driven through Debian's Chromium, the real ``harness-lsp`` and a Chat Completions
server on 127.0.0.1 as the model (``tests/support/fake_llm.py``).

One workbench for the module (starting VS Code is the slow part); the tests run in file
order, each on what the ones before left: a task run from the Command Palette, its memory,
its trace, a second run (last goal offered, an unsaved file refused, cancelled from the
progress notification), and a server that cannot be found.

Screenshots for the README are written to ``docs/img/`` (regenerated on every run).
A missing prerequisite fails the module with the command that installs it; it never skips.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.vscode.codeserver import CHROMIUM_ARGS, ROOT, CodeServer, prerequisites
from tests.support.fake_llm import FakeLLM

IMG = ROOT / "docs" / "img"
BIN = Path(sys.executable).parent
SERVER = BIN / "harness-lsp"
GOAL = "Fix add() in calc.py: it subtracts"
SECOND_GOAL = "Add a line to notes.md"
SUMMARY = "Fixed add() in calc.py: it subtracted. Remembered how to run the tests."
REMEMBERED = ("test-command", "run the tests with python -m pytest -q")
SEEDED = ("style", "use type hints everywhere")
CACHED = 256  # prompt tokens the model server reports as read from its cache, per request


def short(n: float) -> str:
    """The status bar's short form, written out independently of the extension's code."""
    for size, unit in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= size * 0.99995:
            text = f"{n / size:.1f}".removesuffix(".0")
            return text + unit
    return str(int(n))


def first_run_turns() -> list[dict[str, Any]]:
    edit = {"path": "calc.py", "old": "return a - b", "new": "return a + b"}
    key, value = REMEMBERED
    return [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}]},
        {"tool_calls": [{"name": "edit_file", "arguments": edit}]},
        {"tool_calls": [{"name": "remember", "arguments": {"key": key, "value": value}}]},
        {"content": SUMMARY},
    ]


@dataclass
class Session:
    cs: CodeServer
    wb: Any  # Workbench (imported with playwright, inside the fixture)
    ws: Path
    store: Path
    fake: FakeLLM
    release: threading.Event
    settings: dict[str, Any]

    def cli(self, *args: str) -> Any:
        done = subprocess.run(
            [str(BIN / "harness"), *args, "--store", str(self.store), "--json"],
            capture_output=True, text=True, timeout=30, cwd=self.ws, env=self.cs.env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def notes(self) -> dict[str, str]:
        return {n["key"]: n["value"] for n in self.cli("memory", "list", "-w", str(self.ws))}


@pytest.fixture(scope="module")
def vscode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    prereq = prerequisites()
    from playwright.sync_api import sync_playwright

    from tests.e2e.vscode.workbench import Workbench

    home = tmp_path_factory.mktemp("vscode")
    ws = home / "ws"
    ws.mkdir()
    (ws / ".git").mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (ws / "notes.md").write_text("# Notes\n")
    store = home / "store.db"
    release = threading.Event()

    def blocked(body: dict[str, Any]) -> dict[str, Any]:
        release.wait(timeout=120)  # until the run is cancelled (or teardown)
        return {"content": "released"}

    note_edit = {"path": "notes.md", "old": "# Notes", "new": "# Notes\n\n- agent"}
    turns = [
        *first_run_turns(),
        {"tool_calls": [{"name": "edit_file", "arguments": note_edit}]},
        blocked,
        {"tool_calls": [{"name": "exec", "arguments": {"argv": ["echo", "hi"]}}]},
        {"content": "Said hi."},
        blocked,
    ]
    fake = FakeLLM(turns, cache_tokens=(CACHED, 0)).start()
    # What a workspace may not set is "scope": "machine": code-server's remote settings.
    machine = {
        "harness.serverPath": str(SERVER),
        "harness.provider.baseUrl": fake.url,
        "harness.storePath": str(store),
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
        "files.autoSave": "off",
        "editor.minimap.enabled": False,
    }
    cs = CodeServer(prereq, home, settings, machine)
    try:
        session_cli = Session(cs, None, ws, store, fake, release, settings)
        session_cli.cli("memory", "write", *SEEDED, "-w", str(ws))
        url = cs.start(ws)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=prereq.chromium, headless=True, args=CHROMIUM_ARGS
            )
            context = browser.new_context(viewport={"width": 1400, "height": 860})
            context.grant_permissions(["clipboard-read", "clipboard-write"])
            page = context.new_page()
            try:
                page.goto(url)
                wb = Workbench(page)
                wb.wait_loaded()
                session_cli.wb = wb
                yield session_cli
            finally:
                release.set()
                page.screenshot(path=str(home / "last.png"))
                browser.close()
    finally:
        release.set()
        cs.stop()
        fake.stop()


def test_the_status_bar_shows_the_notes_count_from_the_start(vscode: Session) -> None:
    from playwright.sync_api import expect

    # Activated on startup, the server started, harness.status answered: the seeded note.
    expect(vscode.wb.status_item).to_have_text(re.compile(r"harness · 1 note$"), timeout=90_000)


def test_run_task_from_the_palette(vscode: Session) -> None:
    from playwright.sync_api import expect

    from tests.e2e.vscode.workbench import loose

    wb = vscode.wb
    wb.open_file("calc.py")
    expect(wb.editor_lines()).to_contain_text(loose("return a - b"))
    wb.palette("Harness: Run Task")
    expect(wb.quick_input_box).to_be_visible()
    wb.quick_input_box.fill(GOAL)
    wb.page.keyboard.press("Enter")
    # Run Task runs in the conversation panel, drawn live there (issue 36); the panel on
    # screen says how it ended: no notification.
    view = wb.panel()
    done = view.locator(".end", has_text="Run 1 finished")
    expect(done).to_be_visible()

    trace = vscode.cli("trace", "show", "1")
    run, last = trace["run"], trace["steps"][-1]
    assert run["outcome"] == "finished" and run["steps"] == 4
    # The item shows the last harness/budget: spent/budget · request/ceiling, and the outcome.
    expected = (
        f"{short(run['spentTokens'])}/2M · {short(last['estTokens'])}/{short(last['contextCeiling'])}"
        " · finished"
    )
    expect(wb.status_item).to_have_text(expected)
    # The file on disk changed, and the open editor shows it (VS Code reloads a clean buffer).
    assert (vscode.ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    expect(wb.editor_lines()).to_contain_text(loose("return a + b"))
    # The end of the run: outcome, steps, tokens; the model's last words; the files changed.
    expect(done).to_contain_text(f"Run 1 finished · 4 steps · {run['spentTokens']:,} tokens")
    expect(view.locator(".turn.words").last).to_contain_text(SUMMARY)
    expect(view.locator("#changes")).to_contain_text("calc.py")
    assert wb.page.locator(".notification-toast", has_text="Harness run 1").count() == 0
    # The tooltip: exact figures and the cached share of the last request.
    wb.status_item.hover()
    hover = wb.page.locator(".monaco-hover, .workbench-hover").filter(has_text="Spent")
    expect(hover).to_contain_text(f"Spent {run['spentTokens']:,} of 2,000,000 tokens")
    expect(hover).to_contain_text(f"ceiling of {last['contextCeiling']:,}")
    reported = last["reportedPromptTokens"]
    pct = 100 * CACHED / reported  # one decimal under 10% (src/format.ts `percent`)
    share = f"{pct:.1f}%" if 0 < pct < 10 else f"{round(pct)}%"
    expect(hover).to_contain_text(f"{reported:,} prompt tokens, {CACHED} cached ({share})")
    wb.shot(IMG / "vscode-statusbar.png", clip={"x": 0, "y": 560, "width": 1400, "height": 300})


def test_show_memory_lists_the_remembered_note_and_deletes_it(vscode: Session) -> None:
    from playwright.sync_api import expect

    wb = vscode.wb
    key, value = REMEMBERED
    assert vscode.notes() == {SEEDED[0]: SEEDED[1], key: value}  # the run's note is in the store
    wb.palette("Harness: Show Memory")
    row = wb.quick_row(key)
    expect(row).to_be_visible()
    expect(row).to_contain_text("fact")
    expect(row).to_contain_text("run 1 step 3")
    expect(row).to_contain_text(value)
    seeded = wb.quick_row(SEEDED[0])
    expect(seeded).to_contain_text("decision")
    expect(seeded).to_contain_text("operator")
    wb.shot(IMG / "vscode-memory.png", wb.quick_input, pad=12)
    row.hover()
    row.get_by_role("button", name="Delete").click()
    expect(wb.quick_row(key)).to_have_count(0)
    expect(wb.quick_input).to_contain_text(f"Deleted {key}")
    assert vscode.notes() == {SEEDED[0]: SEEDED[1]}  # checked through the CLI
    # The other buttons: pin (the CLI sees it pinned) and copy (the clipboard has the value).
    seeded.hover()
    seeded.get_by_role("button", name="Pin (the agent cannot change it)").click()
    expect(wb.quick_input).to_contain_text(f"Pinned {SEEDED[0]}")
    expect(seeded).to_contain_text("pinned")
    assert [n["pinned"] for n in vscode.cli("memory", "list", "-w", str(vscode.ws))] == [True]
    seeded.hover()
    seeded.get_by_role("button", name="Copy value").click()
    expect(wb.quick_input).to_contain_text(f"Copied the value of {SEEDED[0]}")
    assert wb.page.evaluate("() => navigator.clipboard.readText()") == SEEDED[1]
    wb.page.keyboard.press("Escape")
    expect(wb.quick_input).to_be_hidden()


def test_show_trace_renders_the_run_chart_and_opens_a_step(vscode: Session) -> None:
    from playwright.sync_api import expect

    from tests.e2e.vscode.workbench import loose

    wb = vscode.wb
    wb.clear_notifications()
    # Clicking the status bar item opens the trace view; so does the command.
    wb.status_item.click()
    trace_tab = wb.page.locator(".tab", has_text="Harness Trace")
    expect(trace_tab).to_be_visible()
    wb.palette("View: Close Editor")  # the trace view is the active editor
    expect(trace_tab).to_have_count(0)
    wb.palette("Harness: Show Trace")
    view = wb.webview()
    chart = view.locator("svg.chart")
    expect(chart).to_be_visible()
    expect(view.locator("h1")).to_have_text("Run 1 · finished")
    expect(chart.locator("g.bar")).to_have_count(4)
    expect(chart.locator("polyline.ceiling")).to_have_count(1)
    expect(view.locator("tr.step")).to_have_count(4)
    expect(view.locator(".run-item.selected")).to_contain_text(GOAL)
    wb.shot(IMG / "vscode-trace.png", wb.page.locator(".editor-group-container").first)
    chart.locator('g.bar[data-step="2"]').click()
    expect(wb.page.locator(".tab", has_text="step-2.md")).to_be_visible()
    expect(wb.editor_lines()).to_contain_text(loose("Harness run 1 · step 2"))


def test_trace_chart_shows_the_cached_share_of_each_request(vscode: Session) -> None:
    """Waits for ``cachedPromptTokens`` in ``harness.trace.run`` steps (SPEC §8.1)."""
    from playwright.sync_api import expect

    steps = vscode.cli("trace", "show", "1")["steps"]
    assert [s.get("cachedPromptTokens") for s in steps] == [CACHED] * 4
    chart = vscode.wb.webview().locator("svg.chart")
    expect(chart.locator("rect.cached")).to_have_count(4)


def test_second_run_offers_the_last_goal_refuses_an_unsaved_file_and_cancels(
    vscode: Session,
) -> None:
    from playwright.sync_api import expect

    wb = vscode.wb
    wb.clear_notifications()
    wb.open_file("notes.md")
    wb.editor_lines().click()
    wb.page.keyboard.press("Control+End")
    wb.page.keyboard.type("my draft")
    expect(wb.page.locator(".tab.active.dirty", has_text="notes.md")).to_be_visible()
    wb.palette("Harness: Run Task")
    expect(wb.page.locator(".quick-input-widget .quick-input-title")).to_have_text(
        "Harness: Run Task"
    )
    expect(wb.quick_input_box).to_have_value(GOAL)  # the last goal is offered
    wb.quick_input_box.fill(SECOND_GOAL)
    wb.page.keyboard.press("Enter")
    # The agent's edit of the unsaved file is refused, and the server says so.
    expect(wb.toast("not written: notes.md has unsaved changes")).to_be_visible()
    assert (vscode.ws / "notes.md").read_text() == "# Notes\n"
    # The run waits on the model at step 2; its progress has a Cancel that stops the run.
    progress = wb.page.locator("#status\\.progress")
    expect(progress).to_contain_text("step 2/100")
    progress.click()  # brings its notification forward (the notification centre)
    wb.notification("step 2/100").get_by_role("button", name="Cancel").click()
    expect(wb.panel().locator(".end", has_text="Run 2 cancelled")).to_be_visible()
    expect(wb.status_item).to_contain_text("· cancelled")
    assert vscode.cli("trace", "show", "2")["run"]["outcome"] == "cancelled"


def test_a_server_that_cannot_be_found_says_how_to_install_it(vscode: Session) -> None:
    from playwright.sync_api import expect

    wb = vscode.wb
    wb.clear_notifications()
    # A setting that points nowhere: said as such, with the two ways out.
    wb.set_user_setting("harness.serverPath", "/nonexistent/harness-lsp", remote=True)
    missing = wb.toast("harness.serverPath points to /nonexistent/harness-lsp")
    expect(missing.get_by_role("button", name="Choose…")).to_be_visible()
    missing.get_by_role("button", name="How to install").click()
    expect(wb.page.locator(".tab.active", has_text="Preview")).to_be_visible()
    expect(wb.webview().locator("h2", has_text="Installing the server")).to_be_visible()
    # No setting, no .venv in the workspace, nothing on PATH: "Choose…" sets the setting.
    wb.set_user_setting("harness.serverPath", "", remote=True)
    missing = wb.toast("The Harness language server (harness-lsp) was not found")
    missing.get_by_role("button", name="Choose…").click()
    # VS Code's own file dialog (code-server's is the "simple" one: a path box and a list).
    expect(wb.page.locator(".quick-input-widget .quick-input-title")).to_have_text(
        "Choose the harness-lsp executable"
    )
    # It opens on the workspace folder: wait until it shows it, then type over its path.
    expect(wb.quick_input_box).to_have_value(f"{vscode.ws}/")
    expect(wb.quick_row("calc.py")).to_be_visible()
    wb.page.keyboard.press("Control+A")
    wb.page.keyboard.type(str(SERVER))  # typed: the dialog follows the path as it grows
    expect(wb.quick_input_box).to_have_value(str(SERVER))
    expect(wb.quick_row(SERVER.name)).to_be_visible()
    wb.quick_input.get_by_role("button", name="Use as harness-lsp").click()
    # The user settings now name the server, and it runs again: its memory answers.
    expect(wb.toast("Harness: the language server is running.")).to_be_visible()
    wb.palette("Harness: Show Memory")
    expect(wb.quick_row(SEEDED[0])).to_be_visible()
    wb.page.keyboard.press("Escape")
    saved = json.loads(vscode.cs.machine_settings_file.read_text())
    assert saved["harness.serverPath"] == str(SERVER)


def test_revert_run_lists_the_files_and_asks_before_overwriting_a_changed_one(
    vscode: Session,
) -> None:
    from playwright.sync_api import expect

    wb = vscode.wb
    calc = vscode.ws / "calc.py"
    calc.write_text("def add(a, b):\n    return b + a\n")  # changed since the run wrote it
    wb.palette("Harness: Revert Run")
    expect(wb.quick_row("Run 2")).to_be_visible()
    wb.quick_row("Run 1").click()
    ask = wb.dialog("Revert run 1?")
    expect(ask).to_contain_text("It changed 1 file: calc.py.")
    ask.get_by_role("button", name="Revert").click()
    force = wb.dialog("1 file of run 1 changed since the run wrote them")
    expect(force).to_contain_text("calc.py")
    assert calc.read_text() == "def add(a, b):\n    return b + a\n"  # nothing overwritten yet
    force.get_by_role("button", name="Overwrite").click()
    expect(wb.toast("Harness: revert of run 1: put back calc.py.")).to_be_visible()
    assert calc.read_text() == "def add(a, b):\n    return a - b\n"


def test_trust_this_folder_records_it_through_the_server(vscode: Session) -> None:
    import tomllib

    from playwright.sync_api import expect

    wb = vscode.wb
    wb.palette("Harness: Trust This Folder")
    ask = wb.dialog("Trust ws for the Harness agent?")
    expect(ask).to_contain_text(str(vscode.ws))
    ask.get_by_role("button", name="Trust").click()
    answer = wb.toast(re.compile("is in your trusted folders|harness.trust"))  # or its error
    expect(answer).to_be_visible()
    expect(answer).to_contain_text("Harness: ws is in your trusted folders")
    # The user's policy file (under the XDG_CONFIG_HOME the server was started with).
    config = vscode.cs.home / "config" / "harness" / "policy.toml"
    trusted = tomllib.loads(config.read_text())["trusted"]
    assert [Path(p).expanduser().resolve() for p in trusted] == [vscode.ws.resolve()]


def test_a_changed_setting_reaches_the_server_and_an_exec_asks_first(vscode: Session) -> None:
    from playwright.sync_api import expect

    wb = vscode.wb
    wb.clear_notifications()
    # Two steps of about 2.8k tokens each: the run finishes (its two turns consumed, none
    # left for the next test) past 80% of this budget.
    wb.set_user_setting("harness.tokenBudget", "6500")
    wb.palette("Harness: Run Task")
    expect(wb.page.locator(".quick-input-widget .quick-input-title")).to_have_text(
        "Harness: Run Task"
    )
    # The prompt names the budget the run gets: the new setting has reached the extension
    # (and, pushed before this command, the server).
    expect(wb.page.locator(".quick-input-widget .quick-input-message")).to_contain_text(
        "Budget: 6,500 tokens, 100 steps."
    )
    wb.quick_input_box.fill("Say hi")
    wb.page.keyboard.press("Enter")
    # The policy asks before exec: inline in the conversation panel (harness/approve), which
    # shows itself; the status bar item says an approval waits (issue 23 item 2).
    ask = wb.panel().locator(".approval", has_text="echo hi")
    expect(ask).to_be_visible()
    expect(wb.status_item).to_contain_text("approval waiting · exec echo hi")
    for button in ("Allow", "Allow for this run", "Deny"):
        expect(ask.get_by_role("button", name=button, exact=True)).to_be_visible()
    ask.get_by_role("button", name="Allow", exact=True).click()
    expect(wb.panel().locator(".end", has_text="Run 3 finished")).to_contain_text("tokens")
    run = vscode.cli("trace", "show", "3")
    assert run["steps"][0]["toolCalls"] == [{"name": "exec", "arguments": {"argv": ["echo", "hi"]}}]
    step = vscode.cli("trace", "step", "3", "1")
    assert "hi" in step["result"]
    # The new budget came through didChangeConfiguration; past 80% the item warns.
    expect(wb.status_item).to_contain_text("/6.5k ·")
    assert run["run"]["outcome"] == "finished", "both of its turns were used"
    expect(wb.status_item).to_have_class(re.compile(r"warning-kind"))
    wb.set_user_setting("harness.tokenBudget", "2000000")


def test_cancel_run_from_the_palette(vscode: Session) -> None:
    from playwright.sync_api import expect

    wb = vscode.wb
    wb.clear_notifications()
    wb.palette("Harness: Run Task")
    expect(wb.page.locator(".quick-input-widget .quick-input-title")).to_have_text(
        "Harness: Run Task"
    )
    wb.quick_input_box.fill("Wait for the model")
    wb.page.keyboard.press("Enter")
    expect(wb.status_item).to_have_text("run 4 · starting")  # the model has not answered
    wb.palette("Harness: Cancel Run")
    expect(wb.panel().locator(".end", has_text="Run 4 cancelled")).to_be_visible()
    expect(wb.status_item).to_have_text("run 4 · cancelled")
    assert vscode.cli("trace", "show", "4")["run"]["outcome"] == "cancelled"


def test_add_memory_note_then_clear_memory_after_a_modal_question(vscode: Session) -> None:
    from playwright.sync_api import expect

    wb = vscode.wb
    wb.palette("Harness: Add Memory Note")
    expect(wb.page.locator(".quick-input-widget .quick-input-title")).to_contain_text("(1/2)")
    wb.quick_input_box.fill("deploy")
    wb.page.keyboard.press("Enter")
    expect(wb.page.locator(".quick-input-widget .quick-input-title")).to_contain_text("(2/2)")
    wb.quick_input_box.fill("never deploy on Fridays")
    wb.page.keyboard.press("Enter")
    expect(wb.toast("Harness: saved the note deploy.")).to_be_visible()
    notes = vscode.cli("memory", "list", "-w", str(vscode.ws))
    assert {n["key"]: (n["value"], n["kind"], n["runId"]) for n in notes} == {
        SEEDED[0]: (SEEDED[1], "decision", None),
        "deploy": ("never deploy on Fridays", "decision", None),
    }
    wb.palette("Harness: Clear Memory")
    ask = wb.dialog("Delete the agent's notes for ws?")
    expect(ask).to_contain_text("2 notes for this workspace")
    expect(ask).to_contain_text("Pinned notes go too (1).")
    ask.get_by_role("button", name="Clear 2 Workspace Notes").click()
    expect(wb.toast("Harness: deleted 2 notes (workspace).")).to_be_visible()
    assert vscode.notes() == {}
