"""The README stays a user's page (issue 31): at most 400 lines, every local link it gives
points at a file of the repository, and the details it leaves out live in docs/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_at_most_400_lines() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 400, f"README.md has {len(lines)} lines"


def test_every_local_link_of_the_readme_and_docs_resolves() -> None:
    pages = [README, *sorted((ROOT / "docs").glob("*.md"))]
    missing = []
    for page in pages:
        for target in LINK.findall(page.read_text()):
            if ":" in target or not re.search(r"[./]", target):
                continue  # a URL, or a hostile link quoted as an example
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)} → {target}")
    assert not missing, missing
