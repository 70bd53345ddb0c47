"""Driving the VS Code workbench (code-server in Chromium) the way a user does: the Command
Palette, Quick Open, notifications, the status bar, quick picks and webviews.

Every wait is on something the page shows, with a timeout; editor text is matched with
``\\s`` because the editor renders spaces as U+00A0.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FrameLocator, Locator, Page, expect

STATUS_ITEM = "#harness-lsp\\.harness\\.harness\\.budget"
# The conversation panel's iframe (a webview view: code-server marks it in its address).
PANEL_FRAME = 'iframe.webview.ready[src*="purpose=webviewView"]'
WAIT_MS = 30_000
BLUR_IFRAME = (
    "() => { if (document.activeElement?.tagName === 'IFRAME') document.activeElement.blur(); }"
)


def loose(text: str) -> re.Pattern[str]:
    """``text`` as a pattern in which any whitespace matches any whitespace (U+00A0 too)."""
    return re.compile(r"\s+".join(re.escape(part) for part in text.split()))


class Workbench:
    def __init__(self, page: Page) -> None:
        self.page = page
        page.set_default_timeout(WAIT_MS)
        expect.set_options(timeout=WAIT_MS)

    # -- the workbench ----------------------------------------------------------------

    def wait_loaded(self, timeout_ms: int = 90_000) -> None:
        self.page.locator(".monaco-workbench").wait_for(timeout=timeout_ms)

    @property
    def status_item(self) -> Locator:
        return self.page.locator(STATUS_ITEM)

    def palette(self, title: str) -> None:
        """Run a command by its title from the Command Palette (F1).

        Tried up to three times: right after a dialog, a webview or the Settings editor
        changes, the workbench may not have the keyboard yet, or may move the focus and so
        close the palette before the command is picked; a second try gets it."""
        for attempt in range(3):
            try:
                self._open_quick_input("F1")
                self.quick_input_box.fill(">" + title, timeout=5_000)
                # The row of exactly this command (its label may go on with its keybinding).
                label = title.replace('"', '\\"')
                row = self.page.locator(
                    f'.quick-input-list .monaco-list-row[aria-label="{label}"],'
                    f' .quick-input-list .monaco-list-row[aria-label^="{label}, "]'
                ).first
                row.click(timeout=5_000)
                return
            except (AssertionError, PlaywrightError):
                if attempt == 2:
                    raise

    def _open_quick_input(self, key: str) -> None:
        # A focused webview (the trace view, a Markdown preview) keeps keys to itself.
        self.page.evaluate(BLUR_IFRAME)
        self.page.keyboard.press(key)
        expect(self.quick_input_box).to_be_visible(timeout=5_000)

    def open_file(self, name: str) -> None:
        """Quick Open (Ctrl+P) a file of the workspace; returns once its tab is active."""
        self._open_quick_input("Control+P")
        self.quick_input_box.fill(name)
        self.page.locator(".quick-input-list .monaco-list-row", has_text=name).first.wait_for()
        self.page.keyboard.press("Enter")
        expect(self.page.locator(".tab.active", has_text=name)).to_be_visible()

    @property
    def quick_input_box(self) -> Locator:
        return self.page.locator(".quick-input-widget .quick-input-box input")

    @property
    def quick_input(self) -> Locator:
        return self.page.locator(".quick-input-widget")

    def quick_row(self, text: str) -> Locator:
        return self.page.locator(
            ".quick-input-widget .quick-input-list .monaco-list-row", has_text=text
        )

    def editor_lines(self) -> Locator:
        return self.page.locator(".editor-instance .monaco-editor .view-lines").first

    def toast(self, text: str | re.Pattern[str]) -> Locator:
        """A notification shown as a toast (while the notification centre is closed)."""
        return self.page.locator(".notification-toast", has_text=text)

    def notification(self, text: str | re.Pattern[str]) -> Locator:
        """A notification on screen, as a toast or in the open notification centre."""
        return self.page.locator(".notification-list-item:visible", has_text=text)

    def set_user_setting(self, key: str, value: str, *, remote: bool = False) -> None:
        """Type ``value`` into a string setting in the Settings editor, as a user does;
        ``remote``: in the "Remote" tab (where code-server keeps machine-scoped settings)."""
        self.palette("Preferences: Open User Settings")
        editor = self.page.locator(".editor-group-container.active .settings-editor")
        if remote:
            editor.get_by_role("tab", name=re.compile(r"^Remote")).click()
        search = editor.locator(".settings-header .suggest-input-container")
        search.click()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.type(key)
        box = editor.locator(f'input[aria-label="{key}"]')
        expect(box).to_be_visible()
        box.fill(value)
        box.press("Tab")  # the Settings editor writes the value when the box loses focus

    def dialog(self, text: str) -> Locator:
        """A modal dialog (``showWarningMessage(…, {modal: true})``) showing ``text``."""
        return self.page.locator(".monaco-dialog-box", has_text=text)

    def clear_notifications(self) -> None:
        """Clear every notification and close the notification centre if it is open."""
        self.palette("Notifications: Clear All Notifications")
        centre = self.page.locator(".notifications-center.visible")
        if centre.count():
            centre.get_by_role("button", name=re.compile("Hide Notifications")).click()
        expect(self.page.locator(".notification-list-item:visible")).to_have_count(0)

    def webview(self) -> FrameLocator:
        """The content of the active editor's webview (two iframes deep; not the panel's)."""
        editor = 'iframe.webview.ready:not([src*="purpose=webviewView"])'
        return self.page.frame_locator(editor).frame_locator("#active-frame")

    def panel(self) -> FrameLocator:
        """The content of the Harness conversation panel (a webview view, two iframes deep)."""
        return self.page.frame_locator(PANEL_FRAME).frame_locator("#active-frame")

    def open_panel(self) -> FrameLocator:
        """Show the panel (its activity-bar container) and return its content."""
        self.palette("Harness: Focus on Conversation View")
        panel = self.panel()
        expect(panel.locator("#prompt")).to_be_visible()
        return panel

    # -- pictures ---------------------------------------------------------------------

    def shot(self, path: Path, locator: Locator | None = None, pad: int = 0, **clip: Any) -> None:
        """A PNG of the page, or of ``locator``'s box widened by ``pad`` pixels."""
        path.parent.mkdir(parents=True, exist_ok=True)
        if locator is None:
            self.page.screenshot(path=str(path), **clip)
            return
        box = locator.bounding_box()
        assert box is not None, f"{locator} is not on screen"
        view = self.page.viewport_size or {"width": 1400, "height": 900}
        x = max(0.0, box["x"] - pad)
        y = max(0.0, box["y"] - pad)
        width = min(view["width"] - x, box["width"] + 2 * pad)
        height = min(view["height"] - y, box["height"] + 2 * pad)
        self.page.screenshot(
            path=str(path), clip={"x": x, "y": y, "width": width, "height": height}
        )
