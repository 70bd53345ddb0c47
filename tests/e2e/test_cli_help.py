"""The help a user reads (issue 13): `harness` alone prints the commands, every flag names
its default (and its environment variable where it has one), no help cites a document the
user does not have, and subcommands are named as users type them."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from .cli import harness, script

COMMANDS = ("run", "memory", "trace", "revert", "trust", "demo", "lsp")
GROUPS = {
    "memory": ("list", "get", "write", "delete", "clear", "pin"),
    "trace": ("runs", "show", "step"),
}
ENV = {
    "--provider": "HARNESS_PROVIDER",
    "--model": "HARNESS_MODEL",
    "--base-url": "HARNESS_BASE_URL",
    "--store": "HARNESS_STORE",
}


def flags(help_text: str) -> dict[str, str]:
    """Each option of a help text and its description (continuation lines joined)."""
    out: dict[str, str] = {}
    current = None
    for line in help_text.split("options:", 1)[1].splitlines():
        match = re.match(r"^  (-\w, )?(--[\w-]+)(?: [A-Z_|{}\[\],.a-z-]+)?\s*(.*)$", line)
        if match:
            current = match.group(2)
            out[current] = match.group(3).strip()
        elif current and line.startswith("   "):
            out[current] += " " + line.strip()
    return out


def test_harness_alone_prints_the_commands() -> None:
    out = harness()
    assert out.code == 0, out.stderr
    for command in COMMANDS:
        assert re.search(rf"^\s+{command}\s+\S", out.stdout, re.MULTILINE), command
    assert "usage: harness" in out.stdout


@pytest.mark.parametrize("group", list(GROUPS))
def test_a_command_group_alone_prints_its_commands(group: str) -> None:
    out = harness(group)
    assert out.code == 0, out.stderr
    for command in GROUPS[group]:
        assert re.search(rf"^\s+{command}\s+\S", out.stdout, re.MULTILINE), command
    assert "_command" not in out.stdout + out.stderr


def test_an_unknown_subcommand_is_named_as_typed() -> None:
    out = harness("memory", "lst")
    assert out.code == 2
    assert "memory_command" not in out.stderr
    assert "invalid choice: 'lst'" in out.stderr and "harness memory" in out.stderr


def every_help() -> list[list[str]]:
    # `harness demo`'s flags belong to the demo's work package; `lsp` has none.
    helps = [[], *([c] for c in COMMANDS if c not in ("lsp", "demo"))]
    helps += [[g, c] for g, cs in GROUPS.items() for c in cs]
    return helps


@pytest.mark.parametrize("args", every_help(), ids=lambda a: " ".join(a) or "harness")
def test_no_help_cites_the_spec_and_every_flag_names_its_default(args: list[str]) -> None:
    out = harness(*args, "--help")
    assert out.code == 0, out.stderr
    assert "§" not in out.stdout and "SPEC" not in out.stdout
    if "options:" not in out.stdout:
        return
    for flag, text in flags(out.stdout).items():
        if flag in ("--help", "--version"):
            continue
        assert "default" in text, f"harness {' '.join(args)} {flag}: {text!r}"
        if flag in ENV:
            assert f"${ENV[flag]}" in text, f"{flag} names {ENV[flag]}: {text!r}"


def test_run_has_every_flag_of_the_spec() -> None:
    text = harness("run", "--help").stdout
    for flag in (
        "-w", "--provider", "--model", "--base-url", "--script", "--token-budget",
        "--max-steps", "--context-max-tokens", "--context-share", "--context-low-water",
        "--context-wire", "--verify", "--store", "--yes", "--json",
    ):  # fmt: skip
        assert re.search(rf"^\s+{flag}\b", text, re.MULTILINE) or f", {flag}" in text, flag
    assert "transcript" in text and "flat" in text


def test_context_flags_reach_the_contract(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    turns = script(tmp_path / "t.json", {"content": "ok"})
    store = tmp_path / "s.db"
    out = harness(
        "run", "x", "--script", turns, "-w", ws, "--store", store, "--context-low-water", "0.45",
        "--context-wire", "flat", "--context-share", "0.4",
    )  # fmt: skip
    assert out.code == 0, out.stderr
    (stored,) = sqlite3.connect(store).execute("SELECT contract FROM runs").fetchone()
    contract = json.loads(stored)
    assert contract["context_wire"] == "flat"
    assert contract["context_budget"]["low_water"] == 0.45
    assert contract["context_budget"]["share"] == 0.4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--context-low-water", "0"], "(0, 1]", id="low-water-zero"),
        pytest.param(["--context-wire", "xml"], "invalid choice", id="bad-wire"),
    ],
)
def test_bad_context_flags_exit_2(args: list[str], message: str) -> None:
    out = harness("run", "x", "--provider", "scripted", *args)
    assert out.code == 2
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1
