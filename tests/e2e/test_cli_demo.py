"""``harness demo`` as a user runs it (issue 13 item 7, issue 12 "an honest baseline", issue
22 "a first contact"): a real subprocess in a fresh directory, its output read at 80 and
120 columns (``COLUMNS``), its chart and store used as it says, every command it prints run
as printed; and the README quoting exactly what it prints. By default it shows a scripted
two-turn conversation in the live view, then the cost in three lines; ``--table`` the full
benchmark. Structure is asserted, never durations."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.cli.demo.driver import bounded_budget
from harness.defaults import DEFAULT_TOKEN_BUDGET

from .cli import ROOT, harness

NUMBER = r"[\d,.]+[kM]?"
ROW = re.compile(
    rf"^\s*(\d+|total)\s+({NUMBER})\s+({NUMBER})\s+({NUMBER})\s+(re-read|slide|both)?\s*"
    rf"({NUMBER})\s+({NUMBER})\s+({NUMBER})$"
)


@dataclass
class Demo:
    code: int
    out: str
    err: str
    cwd: Path

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    @property
    def said(self) -> str:
        """The output with its lines joined (prose is wrapped to the width)."""
        return " ".join(line.strip() for line in self.lines)

    def rows(self) -> list[re.Match[str]]:
        return [m for m in map(ROW.match, self.lines) if m]


def demo(cwd: Path, *args: str, columns: int = 80) -> Demo:
    out = harness("demo", *args, timeout=300, cwd=cwd, COLUMNS=str(columns))
    return Demo(out.code, out.stdout, out.stderr, cwd)


def number(text: str) -> float:
    scale = {"k": 1_000, "M": 1_000_000}.get(text[-1], 1)
    return float(text.rstrip("kM").replace(",", "")) * scale


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return demo(tmp_path_factory.mktemp("demo80"))


@pytest.fixture(scope="module")
def table_run(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return demo(tmp_path_factory.mktemp("table80"), "--table")


PROGRAM = f"{shlex.quote(sys.executable)} -m harness"  # how the tests start it


def test_the_first_contact_is_a_conversation_in_the_live_view(default_run: Demo) -> None:
    d = default_run
    assert d.code == 0, d.err
    prose = [line for line in d.lines if not line.startswith(f"  {PROGRAM}")]  # commands whole
    assert all(len(line) <= 80 for line in prose), max(prose, key=len)
    lines = d.lines
    turn1 = lines.index("You: Rename parse_expr to parse_expression everywhere and keep the tests")
    turn2 = lines.index("You: Now also update the README.")
    first, second = lines[turn1:turn2], lines[turn2:]
    # The model's words as the live view shows them, a row per call with ✓ or ✗ and why.
    assert "step 1/7 · I'll find every use of parse_expr first, and look at the settings." in first
    assert "step 1/7 · read .env ✗ refused (builtin: .env)" in first
    assert "step 3/7 · exec python3 -m unittest discover -s tests ✓" in first
    # The user's save mid-run, re-read before the model's next request.
    assert "step 4/7 · ↻ re-read src/calc/lexer.py (a change on disk since step 2)" in first
    assert "step 5/7 · verify python3 -m unittest discover -s tests ✓ passed" in first
    # What changed: the files, their counts, the lines themselves.
    assert "  modified src/calc/parser.py  +1 −1" in first
    assert "    -def parse_expr(text: str) -> list[str]:" in first
    assert "    +def parse_expression(text: str) -> list[str]:" in first
    assert any(line.startswith("run 1 success · 5 steps") for line in first)
    # The follow-up, and the notes the first turn wrote, recalled by the second.
    assert "    +A tiny arithmetic interpreter. `parse_expression` is the entry point." in second
    assert any(line.startswith("run 2 success · 2 steps") for line in second)
    # The follow-up extends the previous request: all of it but its last line.
    assert re.search(
        r"The follow-up's first request began with all [\d,]+ characters the previous request "
        r"sent before its last line: the provider's cache already holds them\.",
        d.said,
    )
    at = lines.index("A new conversation (run 3) starts with the notes the first one wrote:")
    assert "  - test-command: python3 -m unittest discover -s tests" in lines[at : at + 5]
    # The cost against the honest baseline in three lines.
    at = next(i for i, line in enumerate(lines) if line.startswith("Cost, bounded vs the honest"))
    assert re.match(r"  characters sent     0\.\d\d×  \([\d,]+ vs [\d,]+\)$", lines[at + 2])
    assert re.match(r"  cache-priced cost   0\.\d\d×  \(cache reads", lines[at + 3])
    assert re.match(r"  shared prefix       \d+% vs \d+% of the characters$", lines[at + 4])
    assert (d.cwd / "demo-out" / "context.svg").is_file(), "make test's demo step reads it"


def test_every_command_the_first_contact_prints_works_as_printed(default_run: Demo) -> None:
    d = default_run
    at = d.lines.index("Go further:")
    trace, table = (line.strip() for line in d.lines[at + 1 : at + 3])
    assert trace == f"{PROGRAM} trace show 1 --store demo-out/demo.db"
    assert table == f"{PROGRAM} demo --table"  # run as printed by the table_run fixture
    shown = subprocess.run(
        [*shlex.split(trace), "--json"], capture_output=True, text=True, timeout=60, cwd=d.cwd
    )
    assert shown.returncode == 0, shown.stderr
    assert '"outcome": "success"' in shown.stdout


def test_the_demo_prints_both_runs_side_by_side_within_80_columns(table_run: Demo) -> None:
    d = table_run
    assert d.code == 0, d.err
    prose = [line for line in d.lines if not line.startswith(f"  {PROGRAM}")]  # commands whole
    assert all(len(line) <= 80 for line in prose), max(prose, key=len)
    rows = d.rows()
    assert [r[1] for r in rows] == [*map(str, range(1, 21)), "total"], "20 steps, then the total"
    for column in range(2, 9):
        if column == 5:
            continue
        total = number(rows[-1][column])
        assert abs(sum(number(r[column]) for r in rows[:-1]) - total) <= 20, column
    for r in rows[:-1]:
        assert number(r[3]) <= number(r[2]) and number(r[7]) <= number(r[6]), "shared ⊆ chars"
    header = next(line for line in d.lines if "bounded" in line and "naive" in line and "─" in line)
    assert header.index("bounded") < header.index("naive")
    assert re.search(
        r"bounded / naive: 0\.\d\d× the characters, \d\.\d\d× the cache-priced", d.said
    )
    assert d.said.count("success after 20 steps") == 2
    assert "the default token budget (2,000,000)" in d.said


def test_the_demo_says_how_to_explore_its_trace_and_the_command_works(table_run: Demo) -> None:
    d = table_run
    i = d.lines.index("Explore the bounded run step by step:")
    line = d.lines[i + 1].strip()
    assert line.startswith(f"{PROGRAM} trace show ")
    command = shlex.split(line)
    assert command[-2:] == ["--store", "demo-out/demo.db"] and (d.cwd / command[-1]).is_file()
    shown = subprocess.run(
        [*command, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=d.cwd,
    )
    assert shown.returncode == 0, shown.stderr
    assert '"outcome": "success"' in shown.stdout and shown.stdout.count('"step":') == 20


def test_the_demos_memory_part_shows_what_a_second_run_recalls(table_run: Demo) -> None:
    out = table_run.out
    assert "Memory recalled by run 3 (its first request):" in out
    block = out[out.index("Memory recalled by run 3") :]
    assert "## Memory: notes from this and earlier runs" in block
    assert "- test-command: python3 -m unittest discover -s tests" in block


def test_the_chart_has_ticks_a_legend_clear_of_the_data_the_limit_and_marks(
    table_run: Demo,
) -> None:
    svg = ET.parse(table_run.cwd / "demo-out" / "context.svg").getroot()
    ns = "{http://www.w3.org/2000/svg}"
    lines = {p.get("data-name"): p for p in svg.iter(f"{ns}polyline")}
    assert set(lines) == {
        "naive: append everything",
        "bounded",
        "bounded limit: ceiling + fixed parts",
    }

    def ys(name: str) -> list[float]:
        return [float(pt.split(",")[1]) for pt in (lines[name].get("points") or "").split()]

    bounded, limit = ys("bounded"), ys("bounded limit: ceiling + fixed parts")
    assert len(bounded) == len(limit) == 20
    assert all(b >= lim for b, lim in zip(bounded, limit, strict=True)), "never over its limit"
    ticks = [t for t in svg.iter(f"{ns}line") if t.get("class") == "ytick"]
    assert len(ticks) >= 4, "y-axis ticks"
    plot_top = min(float(t.get("y1") or 0) for t in ticks)
    legend = [t for t in svg.iter(f"{ns}text") if t.get("class") == "legend"]
    assert {t.text for t in legend} >= {"re-read (stale file)", "window slid"}
    assert all(float(t.get("y") or 0) < plot_top for t in legend), "the legend is above the data"
    marks = [c for c in svg.iter(f"{ns}circle") if c.get("class") == "reread"]
    rereads = [r for r in table_run.rows() if r[5] in ("re-read", "both")]
    assert len(marks) == len(rereads) > 0, "one mark per step that re-read"


def test_at_120_columns_the_numbers_are_whole(tmp_path: Path) -> None:
    d = demo(tmp_path, "--table", "--steps", "12", columns=120)
    assert d.code == 0, d.err
    assert all(len(line) <= 120 for line in d.lines if PROGRAM not in line)
    rows = d.rows()
    assert len(rows) == 13 and all("k" not in r[0] and "M" not in r[0] for r in rows)


def long_demo_steps() -> int:
    """The fewest steps whose bounded run needs more than the default budget (76): they
    prove what 100 do; ``make soak`` (HARNESS_SOAK=1) runs the 100."""
    if os.environ.get("HARNESS_SOAK") == "1":
        return 100
    return next(n for n in range(12, 101) if bounded_budget(n) > DEFAULT_TOKEN_BUDGET)


def test_a_long_demo_raises_the_bounded_budget_and_says_so(tmp_path: Path) -> None:
    """A long demo finishes both runs, fits 80 columns with a row per step (this also
    covers what a 60-step test did, one demo fewer in CI)."""
    assert bounded_budget(100) == 2_648_000
    n = long_demo_steps()
    d = demo(tmp_path, "--table", "--steps", str(n), columns=80)
    assert d.code == 0, d.err
    assert d.said.count(f"success after {n} steps") == 2, "both runs finish"
    assert len(d.rows()) == n + 1
    raised = f"a token budget of {bounded_budget(n):,}, raised from the default 2,000,000 so that"
    assert f"{raised} {n}" in d.said
    assert "(the default budget of 2,000,000 would have stopped it)" in d.said
    assert all(len(line) <= 80 for line in d.lines if PROGRAM not in line)
    slid = [r for r in d.rows() if r[5] in ("slide", "both")]  # "both": it also re-read then
    assert slid, "a long run slides, and the table says so"
    times = "once" if len(slid) == 1 else f"{len(slid)} times"
    assert f"slid its window {times}" in " ".join(d.said.split()), "and so does the summary"


def readme_block() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("<!-- make demo output -->")
    fence = text.index("```text\n", start) + len("```text\n")
    return text[fence : text.index("```", fence)]


def test_the_readme_quotes_what_make_demo_prints(default_run: Demo) -> None:
    """The README's block is a real run's output (``make demo`` at 80 columns, from the
    repository: the program is ``.venv/bin/harness``); the demo is deterministic, so it
    must match line for line."""
    made = [line.replace(PROGRAM, ".venv/bin/harness") for line in default_run.lines]
    assert readme_block().splitlines() == made
