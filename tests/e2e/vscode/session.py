"""One code-server window for a test module: the quiet workbench settings every panel test
uses, and the browser around it (started, loaded, its last screen kept, closed)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.e2e.vscode.codeserver import CHROMIUM_ARGS, CodeServer, Prerequisites
from tests.e2e.vscode.workbench import Workbench

QUIET: Mapping[str, Any] = {
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
"""The user settings of a test window: the fake provider's model, no tips, updates,
telemetry or minimap, Workspace Trust off (the harness's own trust list decides)."""


@contextmanager
def workbench(prereq: Prerequisites, cs: CodeServer, ws: Path, home: Path) -> Iterator[Workbench]:
    """``ws`` open in ``cs`` in headless Chromium at 1400×860; ``home/last.png`` is the
    screen when the module ends; code-server stops with it."""
    from playwright.sync_api import sync_playwright

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
                yield wb
            finally:
                page.screenshot(path=str(home / "last.png"))
                browser.close()
    finally:
        cs.stop()
