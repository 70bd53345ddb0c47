"""The README's command-line examples, run (issue 13: the README's CLI sections are real
output, kept true by running them).

Every ```console block of the README is a session: ``$ cd DIR`` and ``$ harness ...``
lines are run in order in one world — ``~`` is a temporary home holding the example
repository ``~/src/shop``, the model is a real Chat Completions server on 127.0.0.1 playing
the session the README tells (``HARNESS_BASE_URL``), and the store is a temporary file
(``HARNESS_STORE``) — and what each command prints (stderr, then stdout, at 80 columns)
must have the structure of the lines quoted under it: the same lines in the same order,
numbers and runs of spaces aside (token counts depend on the temporary paths), a cut
(``…``) allowed to fall a few characters earlier or later, and a sandbox warning allowed
where the machine has no bubblewrap.

The flags table of "Command line: `harness run GOAL`" has one row per flag of
``harness run --help``, whose default is the one the help names.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.store.owner import author
from tests.conftest import MakeFakeLLM

from .cli import ROOT, harness

README = ROOT / "README.md"
HOME_SHOWN = "/home/you"
AUTHOR_SHOWN = "you@laptop"  # who wrote a note (user@host, §12), as the README shows it


def console_blocks() -> list[str]:
    return re.findall(r"```console\n(.*?)```", README.read_text(), re.S)


@dataclass
class Example:
    command: str
    expected: list[str] = field(default_factory=list)


def examples() -> list[Example]:
    out: list[Example] = []
    for block in console_blocks():
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append(Example(line[2:]))
            elif out:
                out[-1].expected.append(line)
    return out


PRICING = '''"""Prices of a basket."""


def calc_total(items):
    return sum(price * qty for price, qty in items)
'''
TESTS = """from shop.pricing import calc_total


def test_total():
    assert calc_total([(2, 3), (1, 1)]) == 7
"""
RENAMED = TESTS.replace("calc_total", "compute_total")


def shop(home: Path) -> Path:
    """The README's example repository."""
    repo = home / "src" / "shop"
    (repo / "src" / "shop").mkdir(parents=True)
    (repo / "tests").mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".env").write_text("API_TOKEN=not-for-the-agent\n")
    (repo / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    (repo / "src" / "shop" / "__init__.py").write_text("")
    (repo / "src" / "shop" / "pricing.py").write_text(PRICING)
    (repo / "tests" / "test_pricing.py").write_text(TESTS)
    return repo


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"name": name, "arguments": arguments}


def session_turns() -> list[dict[str, object]]:
    """What the model does in the README's session."""
    return [
        {
            "content": "I'll find every use of calc_total first.",
            "tool_calls": [call("grep", pattern="calc_total")],
        },
        {
            "tool_calls": [
                call("read_file", path="tests/test_pricing.py"),
                call("read_file", path=".env"),
            ]
        },
        {
            "tool_calls": [
                call(
                    "edit_file",
                    path="src/shop/pricing.py",
                    old="def calc_total(",
                    new="def compute_total(",
                ),
                call(
                    "edit_file", path="tests/test_pricing.py", old="calc_total", new="compute_total"
                ),
            ]
        },
        {
            "content": "The name occurs twice in the test; rewriting it whole.",
            "tool_calls": [
                call("write_file", path="tests/test_pricing.py", content=RENAMED),
                call("remember", key="test-command", value="pytest -q, from the repository root"),
            ],
        },
        {
            "content": "Renamed calc_total to compute_total in src/shop/pricing.py and "
            "tests/test_pricing.py; pytest passes."
        },
    ]


def normal(line: str, home: str) -> str:
    line = line.replace(home, HOME_SHOWN).replace(author(), AUTHOR_SHOWN)
    line = re.sub(r"\d[\d,.]*", "N", line)
    return " ".join(line.split())


def same(expected: str, actual: str) -> bool:
    if expected == actual:
        return True
    if "…" in expected or "…" in actual:  # a cut may fall a little earlier or later
        a, b = expected.split("…", 1)[0], actual.split("…", 1)[0]
        shorter = min(len(a), len(b))
        return a[: shorter - 4] == b[: shorter - 4] and abs(len(a) - len(b)) <= 6
    return False


def check(example: Example, printed: str, home: str) -> None:
    want = [normal(x, home) for x in example.expected if x.strip()]
    got = [normal(x, home) for x in printed.splitlines() if x.strip()]
    if not any("sandbox" in w for w in want):  # bubblewrap is missing on this machine
        got = [g for g in got if not (g.startswith("warning:") and "sandbox" in g)]
    assert len(want) == len(got), (
        f"$ {example.command}\nwanted:\n" + "\n".join(want) + "\ngot:\n" + "\n".join(got)
    )
    for w, g in zip(want, got, strict=True):
        assert same(w, g), f"$ {example.command}\nwanted: {w}\ngot:    {g}"


def test_every_console_example_prints_what_the_readme_shows(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    home = tmp_path / "home"
    shop(home)
    fake = fake_llm(session_turns())
    world = dict(
        HOME=str(home),
        COLUMNS="80",
        HARNESS_BASE_URL=fake.url,
        OPENAI_API_KEY="sk-readme-example",
        HARNESS_STORE=str(tmp_path / "store.db"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    cwd = home
    ran = examples()
    assert len(ran) >= 6, "the README shows a session"
    for example in ran:
        argv = [str(home) + a[1:] if a.startswith("~") else a for a in shlex.split(example.command)]
        if argv[0] == "cd":
            cwd = Path(argv[1])
            assert cwd.is_dir(), example.command
            continue
        assert argv[0] == "harness", f"the README's examples run harness: {example.command}"
        proc = harness(*argv[1:], timeout=120, cwd=cwd, **world)
        check(example, proc.stderr + proc.stdout, str(home))


def flags_table() -> dict[str, str]:
    text = README.read_text()
    start = text.index("### Command line: `harness run GOAL`")
    section = text[start : text.index("\n### ", start + 1)]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) == 3 and cells[0].startswith("`-"):
            flag = cells[0].strip("`").split()[0]
            assert flag not in rows, f"{flag} has one row"
            rows[flag] = cells[1]
    return rows


def help_defaults() -> dict[str, str]:
    """Each flag of ``harness run --help`` (its first name) and the text of its
    ``(default: …)``."""
    out = harness("run", "--help", COLUMNS="200").stdout
    options = out.split("options:", 1)[1]
    found: dict[str, str] = {}
    for entry in re.split(r"\n(?=  -)", options.strip("\n")):
        head = entry.strip().split("  ", 1)[0]
        flag = head.split()[0].rstrip(",")
        if flag == "-h":
            continue
        text = " ".join(entry.split())
        start = text.index("(default: ") + len("(default: ")
        depth, end = 1, start
        while depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        found[flag] = text[start : end - 1]
    return found


def plain(cell: str) -> str:
    return " ".join(cell.replace("`", "").split())


def test_the_flags_table_has_every_flag_with_its_default() -> None:
    table, defaults = flags_table(), help_defaults()
    assert set(table) == set(defaults), "one row per flag of `harness run --help`"
    for flag, default in defaults.items():
        assert plain(table[flag]) == plain(default), f"{flag}: README {table[flag]!r}, --help"


@pytest.mark.parametrize(
    "variable", ["HARNESS_PROVIDER", "HARNESS_MODEL", "HARNESS_BASE_URL", "HARNESS_STORE"]
)
def test_the_environment_table_names_each_variable_the_help_names(variable: str) -> None:
    text = README.read_text()
    start = text.index("### Environment")
    section = text[start : text.index("\n### ", start + 1)]
    assert f"`{variable}`" in section
    assert f"${variable}" in harness("run", "--help").stdout
