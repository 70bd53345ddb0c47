"""Two benchmark sessions besides the demo's read-heavy one (issue 12), built like the real
agent sessions the issue replayed — narrow ranged reads, greps and finds, the model saying
a sentence most turns, re-reads after edits — and written once, not tuned to the targets:

- ``EXPLORATION``: a long look around a 12-module project (many distinct ranged reads and
  greps, a few re-reads of a range seen before, two edits near the end, tests after each).
- ``REFACTOR``: an edit-heavy refactor of two modules (rename a local in one function after
  another: read the function, edit it, run the tests, look at the result; every third edit
  adds a line, shifting what follows), tests after each edit.

Both run through the real loop, tools, policy and store (``harness.cli.demo.driver``).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from harness.cli.demo.driver import Scenario
from harness.cli.demo.workspace import unittest_head
from tests.support.scripted_turns import call
from tests.support.workspace import write_files

TEST_ARGV = ("python3", "-m", "unittest", "discover", "-s", "tests", "-q")
MODULES = (
    "models",
    "pricing",
    "cart",
    "inventory",
    "payments",
    "shipping",
    "tax",
    "discounts",
    "users",
    "orders",
    "reports",
    "utils",
)
FUNCTIONS = 40
FUNCTION_LINES = 7  # lines per function, blank line included
HEAD_LINES = 4  # docstring, blank, import, blank


def _function(mod: str, k: int) -> list[str]:
    return [
        f"def {mod}_{k}(items: list[int]) -> int:",
        f'    """Return the {mod} figure {k} for ``items``."""',
        f"    value_{k} = 0",
        "    for index, item in enumerate(items):",
        f"        value_{k} += item * {k + 1} - index",
        f"    return value_{k}",
        "",
    ]


def module_text(mod: str) -> str:
    lines = [f'"""shop.{mod}: generated for the context benchmarks."""', "", "import math", ""]
    for k in range(FUNCTIONS):
        lines += _function(mod, k)
    return "\n".join(lines) + "\n"


def first_line(k: int) -> int:
    """The line of ``def …_k`` in an unedited module."""
    return HEAD_LINES + 1 + k * FUNCTION_LINES


def _tests(mods: tuple[str, ...]) -> str:
    body = unittest_head("Tests for shop.", "shop", mods, "ShopTest")
    for mod in mods:
        for k in range(0, FUNCTIONS, 4):
            expected = (1 * (k + 1) - 0) + (2 * (k + 1) - 1)
            body += [
                f"    def test_{mod}_{k}(self) -> None:",
                f"        self.assertEqual({mod}.{mod}_{k}([1, 2]), {expected})",
                "",
            ]
    return "\n".join(body) + "\n"


def create(root: Path, mods: tuple[str, ...] = MODULES) -> Path:
    sources = {f"src/shop/{mod}.py": module_text(mod) for mod in mods}
    return write_files(
        root,
        {
            "src/shop/__init__.py": '"""shop: a generated project."""\n',
            **sources,
            "tests/test_shop.py": _tests(mods),
            "README.md": "# shop\n\nRun the tests: `python3 -m unittest`.\n",
        },
    )


def _path(mod: str) -> str:
    return f"src/shop/{mod}.py"


def _rename(mod: str, k: int, extra_line: bool) -> dict[str, Any]:
    """Rename ``value_k`` to ``total_k`` in ``mod_k`` (and, with ``extra_line``, add a comment
    line, as refactors do)."""
    old = [f"    value_{k} = 0", "    for index, item in enumerate(items):"]
    old += [f"        value_{k} += item * {k + 1} - index", f"    return value_{k}"]
    new = [line.replace(f"value_{k}", f"total_{k}") for line in old]
    if extra_line:
        new.insert(0, f"    # total_{k}: renamed from value_{k}")
    return call("edit_file", path=_path(mod), old="\n".join(old), new="\n".join(new))


# -- the long exploration ----------------------------------------------------------------


def exploration_turns(steps: int) -> list[dict[str, Any]]:
    """Look around: find, list, grep for symbols, read the ranges around the hits (40-80
    lines), read tests; now and then a range seen before; two edits at the end."""
    rng = random.Random(12)
    turns: list[dict[str, Any]] = [
        {"content": "Let me see how the project is laid out.", "tool_calls": [
            call("list_dir", path="."), call("find", name_glob="*.py")]},
        {"content": "The tests first.", "tool_calls": [
            call("read_file", path="tests/test_shop.py", offset=1, limit=40)]},
    ]  # fmt: skip
    seen: list[tuple[str, int, int]] = []
    edits = [("pricing", 7), ("cart", 12)]
    while len(turns) < steps - 1:
        left = steps - 1 - len(turns)
        if left <= 2 * len(edits) and edits:
            mod, k = edits.pop(0)
            turns.append({"content": f"Renaming the local in {mod}_{k}.",
                          "tool_calls": [_rename(mod, k, False), call("exec", argv=list(TEST_ARGV))]})  # fmt: skip
            turns.append({"tool_calls": [
                call("read_file", path=_path(mod), offset=first_line(k), limit=40)]})  # fmt: skip
            continue
        kind = rng.random()
        mod, k = rng.choice(MODULES), rng.randrange(FUNCTIONS)
        if kind < 0.3:
            other = rng.choice(MODULES)
            turns.append({"content": f"Where is {mod}_{k} used?", "tool_calls": [
                call("grep", pattern=f"{mod}_{k}\\b"),
                call("grep", pattern=f"def {other}_", path_glob=f"src/shop/{other}.py")]})  # fmt: skip
        elif kind < 0.45 and seen:
            back = rng.choice(seen)  # a range seen before, read again
            turns.append({"tool_calls": [
                call("read_file", path=back[0], offset=back[1], limit=back[2])]})  # fmt: skip
        elif kind < 0.55:
            turns.append({"content": "Checking the tests for it.", "tool_calls": [
                call("grep", pattern=f"{mod}\\.{mod}_", path_glob="tests/*.py"),
                call("read_file", path="tests/test_shop.py",
                      offset=1 + 40 * rng.randrange(8), limit=40)]})  # fmt: skip
        else:
            start = max(1, first_line(k) - rng.randrange(10))
            limit = rng.choice((40, 60, 80))
            seen.append((_path(mod), start, limit))
            turns.append({"content": f"Reading {mod}_{k} and what surrounds it.", "tool_calls": [
                call("read_file", path=_path(mod), offset=start, limit=limit)]})  # fmt: skip
    turns.append({"content": "Renamed the locals in pricing_7 and cart_12; the tests pass."})
    return turns


# -- the edit-heavy refactor ---------------------------------------------------------------


REFACTORED = ("pricing", "cart")


def refactor_turns(steps: int) -> list[dict[str, Any]]:
    """Function after function, alternating between two modules: read it, edit it, run the
    tests, look at the result; a grep now and then; every third edit adds a line."""
    turns: list[dict[str, Any]] = [
        {"content": "Two modules to refactor; their first functions.", "tool_calls": [
            call("read_file", path=_path(m), offset=1, limit=60) for m in REFACTORED]},
    ]  # fmt: skip
    shift = dict.fromkeys(REFACTORED, 0)  # lines added so far, per module
    edit = 0
    while len(turns) < steps - 1:
        mod, k = REFACTORED[edit % 2], edit // 2
        start = first_line(k) + shift[mod]
        cycle: list[dict[str, Any]] = [
            {"content": f"Next: {mod}_{k}.", "tool_calls": [
                call("read_file", path=_path(mod), offset=start, limit=20)]},
            {"tool_calls": [_rename(mod, k, edit % 3 == 2)]},
            {"content": "Running the tests.", "tool_calls": [
                call("exec", argv=list(TEST_ARGV))]},
            {"tool_calls": [call("read_file", path=_path(mod), offset=start, limit=20)]},
        ]  # fmt: skip
        if edit % 4 == 3:
            cycle.append({"content": "Any old names left?", "tool_calls": [
                call("grep", pattern="value_", path_glob="src/shop/*.py")]})  # fmt: skip
        shift[mod] += 1 if edit % 3 == 2 else 0
        turns += cycle
        edit += 1
    turns = turns[: steps - 1]
    turns.append({"content": f"Renamed the locals of {edit} functions; the tests pass."})
    return turns


EXPLORATION = Scenario(
    goal="Find out how the shop's figures are computed, then rename two locals.",
    create=create,
    turns=exploration_turns,
    verify=TEST_ARGV,
)
REFACTOR = Scenario(
    goal="Rename value_N to total_N in pricing and cart, keeping the tests passing.",
    create=lambda root: create(root, REFACTORED),
    turns=refactor_turns,
    verify=TEST_ARGV,
)
