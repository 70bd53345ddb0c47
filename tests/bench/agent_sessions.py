"""A benchmark session that works the way recorded agents work (issue 21), written once from
what they do and not tuned to any figure: the two SWE-agent trajectories replayed beside it
(``trajectories/``: one file opened at a 100-line window, one reproduction run, edits that
fail and are retried, a re-run) and the seven SWE-bench sessions the issue describes
(0.9k–3.3k characters a step, 12–142 steps).

Over the generated 12-module shop (``context_sessions.create``), seeded, for any length:
orientation first (list the project, grep for the subject, read a stretch of the tests);
then, task after task, mostly in the module worked on last: sometimes a grep for where the
function is used, a ranged read around it (40–100 lines: SWE-agent's window is 100), and
after most reads (4 in 5) an edit — a rename of the function's local, now and then with a comment line added, which
shifts what follows — and after every edit the module's tests, verbose (one line a test).
One edit in five on a tested function leaves the last use unrenamed: the tests fail with a
traceback, the agent reads the function again, fixes it, and runs the tests again. After
one task in four the agent reads back what it changed. The model says what it sees and what
it will do next, two sentences, about 250 characters (the replayed trajectories' thoughts
average 217 and 275).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from harness.cli.demo.driver import Scenario
from tests.support.scripted_turns import call

from .context_sessions import FUNCTIONS, MODULES, create, first_line

TESTED = 4  # the tests cover every 4th function (context_sessions._tests)


def _path(mod: str) -> str:
    return f"src/shop/{mod}.py"


def _tests(mod: str) -> dict[str, Any]:
    argv = ["python3", "-m", "unittest", "discover", "-s", "tests", "-k", mod, "-v"]
    return call("exec", argv=argv)


@dataclass
class _Shop:
    """What the session has changed so far: renamed functions and added lines per module."""

    renamed: dict[str, set[int]] = field(default_factory=lambda: {m: set() for m in MODULES})
    commented: dict[str, set[int]] = field(default_factory=lambda: {m: set() for m in MODULES})

    def line(self, mod: str, k: int) -> int:
        """The line of ``def mod_k`` now."""
        return first_line(k) + sum(1 for j in self.commented[mod] if j < k)


def _rename(mod: str, k: int, *, comment: bool, miss_return: bool) -> dict[str, Any]:
    old = [f"    value_{k} = 0", "    for index, item in enumerate(items):"]
    old += [f"        value_{k} += item * {k + 1} - index", f"    return value_{k}", ""]
    new = [line.replace(f"value_{k}", f"total_{k}") for line in old]
    if miss_return:
        new[3] = old[3]
    if comment:
        new.insert(0, f"    # total_{k}: the running total (was value_{k})")
    return call("edit_file", path=_path(mod), old="\n".join(old), new="\n".join(new))


def _say(rng: random.Random, *options: str) -> str:
    return rng.choice(options)


def _task(rng: random.Random, shop: _Shop, mod: str) -> list[dict[str, Any]]:
    """One task: find a function not yet renamed, read around it, maybe edit and test."""
    left = [k for k in range(FUNCTIONS) if k not in shop.renamed[mod]]
    k = rng.choice(left)
    turns: list[dict[str, Any]] = []
    if rng.random() < 0.2:
        turns.append({"content": f"Where else is {mod}_{k} used? A quick grep before I touch it.",
                      "tool_calls": [call("grep", pattern=f"{mod}_{k}\\b")]})  # fmt: skip
    start = max(1, shop.line(mod, k) - rng.randrange(6))
    limit = rng.choice((40, 60, 80, 100))
    turns.append({"content": _say(rng,
        f"Reading {mod}_{k} and the functions around it to see how the local is used. If it "
        "only accumulates the figure, the rename is local to the function and safe to make.",
        f"Let me look at {mod}_{k} in src/shop/{mod}.py before changing anything. The tests "
        "call it with two items, so I want to see every line that touches the local first.",
        f"Next is {mod}_{k}; opening the lines around its definition. The earlier ones had the "
        "same shape: a local set to zero, updated in the loop and returned at the end."),
        "tool_calls": [call("read_file", path=_path(mod), offset=start, limit=limit)]})  # fmt: skip
    if rng.random() >= 0.8:
        return turns  # read only: on to another function
    comment = rng.random() < 0.3
    broken = k % TESTED == 0 and rng.random() < 0.2
    turns.append({"content": f"{mod}_{k} sets value_{k} to zero, adds to it in the loop and "
                  f"returns it; nothing outside the function sees it. Renaming value_{k} to "
                  f"total_{k} in all three places.",
                  "tool_calls": [_rename(mod, k, comment=comment, miss_return=broken)]})  # fmt: skip
    turns.append(
        {
            "content": f"The edit went in. Running the {mod} tests to check that "
            f"{mod}_{k} still returns the same figure.",
            "tool_calls": [_tests(mod)],
        }
    )
    shop.renamed[mod].add(k)
    if comment:
        shop.commented[mod].add(k)
    if broken:
        line = shop.line(mod, k)
        turns.append({"content": f"test_{mod}_{k} fails: the return still names value_{k}. "
                      "Looking at the function again.",
                      "tool_calls": [call("read_file", path=_path(mod), offset=line,
                                          limit=8)]})  # fmt: skip
        fix = call("edit_file", path=_path(mod), old=f"    return value_{k}\n",
                   new=f"    return total_{k}\n")  # fmt: skip
        turns.append({"content": "Fixing the return.", "tool_calls": [fix]})
        turns.append({"content": "And the tests again.", "tool_calls": [_tests(mod)]})
    if rng.random() < 0.25:
        turns.append({"content": f"Checking {mod}_{k} as it is now.",
                      "tool_calls": [call("read_file", path=_path(mod),
                                          offset=shop.line(mod, k), limit=10)]})  # fmt: skip
    return turns


def agent_turns(steps: int, seed: int = 21) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    shop = _Shop()
    turns: list[dict[str, Any]] = [
        {"content": "First the layout of the project.", "tool_calls": [call("list_dir", path=".")]},
        {"content": "Where do the locals named value_ live?",
         "tool_calls": [call("grep", pattern="value_0 = 0", path_glob="src/**/*.py")]},
        {"content": "How the tests check the figures.", "tool_calls": [
            call("read_file", path="tests/test_shop.py", offset=1, limit=40)]},
    ]  # fmt: skip
    mod = rng.choice(MODULES)
    while len(turns) < steps - 1:
        if rng.random() < 0.4:
            mod = rng.choice(MODULES)
        turns += _task(rng, shop, mod)
    turns = turns[: steps - 1]
    done = sum(len(v) for v in shop.renamed.values())
    turns.append({"content": f"Renamed the locals of {done} functions; the tests pass."})
    return turns


AGENT = Scenario(
    goal="Rename each function's local value_N to total_N across the shop, keeping the tests "
    "passing.",
    create=create,
    turns=agent_turns,
    verify=("python3", "-m", "unittest", "discover", "-s", "tests", "-q"),
)
