"""No client parses a server sentence (issue 31, run by ``make lint``): the clients word a
failure from its structured ``data`` (docs/server.md, Errors), so no code in ``editors/``
applies a regular expression to a server message.

A server message is a value named ``message``, ``msg``, ``error``, ``err``, ``reason`` or
``why``, or a ``.message``/``.error`` field. Reported, with file and line: in TypeScript
(``editors/vscode/src``, not its tests) ``X.replace(/…/``, ``.match``, ``.matchAll``,
``.search``, ``.split`` with a regex literal or ``RegExp``, and ``/…/.exec(X)``/``.test(X)``;
in Lua (``editors/nvim``) ``X:gsub`` (also ``tostring(x.message):gsub``), ``:match``,
``:gmatch``, ``:find`` (a ``find`` with ``plain = true`` is a plain search, allowed) and
``string.gsub(X`` and the like.

``KNOWN`` lists the ones still to go, each with its reason; one that is gone must leave the
list (the check says so), so the list only shrinks.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = r"(?:\b(?:message|msg|error|err|reason|why)|\.message|\.error)"
TS_RULES = (
    re.compile(
        NAMES
        + r"\s*(?:\?\.|\.)\s*(?:replace|replaceAll|match|matchAll|search|split)"
        + r"\s*\(\s*(?:/|new RegExp|RegExp)"
    ),
    re.compile(
        r"/[^/\n]+/[a-z]*\s*\.\s*(?:exec|test)\s*\(\s*"
        + NAMES.replace(r"\.message|\.error", r"[\w.]*\.message|[\w.]*\.error")
    ),
)
LUA_RULES = (
    re.compile(r"\.message\b.*\)\s*:\s*(?:gsub|match|gmatch)\s*\("),  # tostring(x.message):gsub
    re.compile(NAMES + r"\s*:\s*(?:gsub|match|gmatch)\s*\("),
    re.compile(NAMES + r"\s*:\s*find\s*\((?![^)\n]*,\s*true\s*\))"),
    re.compile(r"string\s*\.\s*(?:gsub|match|gmatch|find)\s*\(\s*" + NAMES),
)


KNOWN: set[tuple[str, str]] = set()  # none left (the last went with issue 31's approvals)


def findings(root: Path = ROOT) -> Iterator[str]:
    """``path:line: the code`` of each regex applied to a server message, but the known."""
    for path, line, code in _matches(root):
        if not any(path == k_path and k_code in code for k_path, k_code in KNOWN):
            yield f"{path}:{line}: {code}"


def gone(root: Path = ROOT) -> list[tuple[str, str]]:
    """The known ones that are no longer in the code."""
    found = list(_matches(root))
    return [
        (k_path, k_code)
        for k_path, k_code in KNOWN
        if not any(path == k_path and k_code in code for path, _, code in found)
    ]


def _matches(root: Path) -> Iterator[tuple[str, int, str]]:
    sources = [
        *(
            (p, TS_RULES)
            for p in sorted((root / "editors" / "vscode" / "src").rglob("*.ts"))
            if "test" not in p.relative_to(root / "editors" / "vscode" / "src").parts[:-1]
        ),
        *((p, LUA_RULES) for p in sorted((root / "editors" / "nvim").rglob("*.lua"))),
    ]
    for path, rules in sources:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for rule in rules:
            for match in rule.finditer(text):
                number = text.count("\n", 0, match.start()) + 1
                code = lines[number - 1].strip()
                if not code.startswith(("//", "*", "--")):
                    yield str(path.relative_to(root)), number, code


def main() -> int:
    found = list(findings())
    for item in found:
        print(f"{item}\n  a regex over a server message: word it from the error's `data`")
    for path, code in gone():
        print(f"{path}: `{code}` is gone: remove it from KNOWN in tools/check_client_words.py")
    if found or gone():
        return 1
    print("client words: ok (no regex over a server message in editors/)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
