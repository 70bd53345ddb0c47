"""The four semantic tools against the real jedi-language-server (§14): precision, text
addressing and its errors, a rename refused whole, reads through the policy."""

from __future__ import annotations

from collections.abc import Callable

from harness.policy import Policy
from harness.policy.rules import Layer, Rule
from harness.types import Act, Effect
from tests.support.tool_env import ToolEnv

MakeEnv = Callable[..., ToolEnv]

LIB = '''"""Totals. total() adds items."""


def total(items):
    """Return the total of items (total means sum)."""
    return sum(items)


def report(xs):
    # total is printed below
    return "total: %d" % total(xs)
'''
USE = "from lib import total\n\nprint(total([1, 2]))\n"
OTHER = "def other():\n    total = 3  # a local of the same name\n    return total\n"


def _project(env: ToolEnv) -> None:
    env.write("lib.py", LIB)
    env.write("use.py", USE)
    env.write("other.py", OTHER)


async def test_references_list_only_the_symbol_definition_first(semantic_env: MakeEnv) -> None:
    env = semantic_env()
    _project(env)
    result = await env.call("references", symbol="total", path="use.py", line_content="print(total")
    assert result.ok, result.text
    rows = result.text.splitlines()
    assert rows[0] == "[references total (use.py)]"
    assert rows[1] == "lib.py:4: def total(items):  (definition)"
    assert set(rows[2:]) == {
        'lib.py:11: return "total: %d" % total(xs)',
        "use.py:1: from lib import total",
        "use.py:3: print(total([1, 2]))",
    }
    assert "other.py" not in result.text


async def test_rename_changes_only_the_symbol(semantic_env: MakeEnv) -> None:
    env = semantic_env()
    _project(env)
    result = await env.call(
        "rename_symbol", symbol="total", new_name="sum_items", path="lib.py",
        line_content="def total(items):",
    )  # fmt: skip
    assert result.ok, result.text
    assert result.text.splitlines()[0] == "[renamed total → sum_items] 4 places in 2 files"
    assert (env.root / "other.py").read_text() == OTHER
    assert (env.root / "use.py").read_text() == USE.replace("total", "sum_items")
    lib = (env.root / "lib.py").read_text()
    assert "def sum_items(items):" in lib and "% sum_items(xs)" in lib
    # the docstrings, the comment and the string keep the word
    assert '"""Totals. total() adds items."""' in lib
    assert "(total means sum)" in lib and "# total is printed" in lib and '"total: %d"' in lib
    assert {w.path for w in result.writes} == {"lib.py", "use.py"}


async def test_a_line_content_not_in_the_file_names_candidate_lines(semantic_env: MakeEnv) -> None:
    env = semantic_env()
    _project(env)
    result = await env.call("references", symbol="total", path="lib.py", line_content="def totl(")
    assert not result.ok
    assert "quote one of the lines" in result.text
    assert "4: def total(items):" in result.text and "11: return" in result.text
    missing = await env.call("references", symbol="nothing", path="lib.py", line_content="def")
    assert "`nothing` does not occur as a whole word" in missing.text


async def test_symbols_outline(semantic_env: MakeEnv) -> None:
    env = semantic_env()
    env.write("shapes.py", "class Box:\n    def area(self):\n        return 1\n\n\nSIDE = 2\n")
    result = await env.call("symbols", path="shapes.py")
    assert result.text.splitlines() == [
        "[symbols shapes.py]",
        "class Box  lines 1–3",
        "  method area  lines 2–3",
        "variable SIDE  line 6",
    ], result.text


def _deny(glob: str) -> Policy:
    return Policy([Layer("user", (Rule(Act.WRITE, Effect.DENY, glob),))])


async def test_a_rename_touching_a_denied_file_writes_nothing(semantic_env: MakeEnv) -> None:
    env = semantic_env(policy=_deny("use.py"))
    _project(env)
    result = await env.call(
        "rename_symbol", symbol="total", new_name="sum_items", path="lib.py",
        line_content="def total(items):",
    )  # fmt: skip
    assert not result.ok
    assert "the rename was refused and nothing was written" in result.text
    assert "`use.py`" in result.text
    assert (env.root / "lib.py").read_text() == LIB
    assert (env.root / "use.py").read_text() == USE
    assert result.writes == ()


async def test_a_rename_touching_a_runs_later_file_writes_nothing(semantic_env: MakeEnv) -> None:
    env = semantic_env()
    _project(env)
    env.write(".vscode/tasks_helper.py", "from lib import total\n\ntotal([])\n")
    result = await env.call(
        "rename_symbol", symbol="total", new_name="sum_items", path="lib.py",
        line_content="def total(items):",
    )  # fmt: skip
    assert not result.ok, result.text
    assert "`.vscode/tasks_helper.py` is a file that runs later" in result.text
    assert (env.root / "lib.py").read_text() == LIB


class _Unsaved:
    def __init__(self, *paths: str) -> None:
        self.paths = paths

    def has_unsaved_changes(self, rel_path: str) -> bool:
        return rel_path in self.paths

    def unsaved_paths(self) -> tuple[str, ...]:
        return self.paths


async def test_a_rename_touching_an_unsaved_buffer_writes_nothing(semantic_env: MakeEnv) -> None:
    env = semantic_env(guard=_Unsaved("use.py"))
    _project(env)
    result = await env.call(
        "rename_symbol", symbol="total", new_name="sum_items", path="lib.py",
        line_content="def total(items):",
    )  # fmt: skip
    assert not result.ok
    assert "`use.py` has unsaved changes in the editor" in result.text
    assert (env.root / "lib.py").read_text() == LIB


async def test_the_diagnostics_tool_reports_a_syntax_error(semantic_env: MakeEnv) -> None:
    env = semantic_env()
    env.write("broken.py", "def f(:\n    return 1\n")
    env.write("fine.py", "def f():\n    return 1\n")
    result = await env.call("diagnostics", path="broken.py")
    assert result.ok, result.text
    rows = result.text.splitlines()
    assert rows[0] == "[diagnostics broken.py]"
    assert any(row.startswith("broken.py:1:") and "error" in row for row in rows[1:]), rows
    clean = await env.call("diagnostics", path="fine.py")
    assert clean.text.splitlines()[1:] == ["(no errors or warnings)"], clean.text


async def test_jedis_search_limit_is_said(semantic_env: MakeEnv) -> None:
    env = semantic_env()
    env.write("core.py", "def compute(x):\n    return x\n")
    for i in range(40):
        env.write(f"m{i}.py", f"from core import compute\n\nY{i} = compute({i})\n")
    result = await env.call(
        "rename_symbol",
        symbol="compute",
        new_name="calc",
        path="core.py",
        line_content="def compute(",
    )
    assert result.ok, result.text
    assert "searches at most 30 files that mention the name" in result.text
    left = [i for i in range(40) if "compute" in (env.root / f"m{i}.py").read_text()]
    assert left, "jedi stopped early: what the note warns about"
