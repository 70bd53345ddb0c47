"""The parser ``harness`` builds for one command (issue 31's fast start): ``harness memory
list --help`` registers only ``memory``, ``harness --version`` no command, and what the user
reads — each command's and subcommand's help, a usage error, the version — is the same as
from the whole parser."""

from __future__ import annotations

import argparse

import pytest

from harness.cli import COMMANDS, _needed, build_parser


def _said(
    parser: argparse.ArgumentParser, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[object, str, str]:
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(argv)
    out = capsys.readouterr()
    return exit_.value.code, out.out, out.err


def _subcommands(name: str) -> list[str]:
    parser = build_parser([name])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    inner = [a for a in sub.choices[name]._actions if isinstance(a, argparse._SubParsersAction)]
    return list(inner[0].choices) if inner else []


def _cases() -> list[list[str]]:
    cases = [[name, "--help"] for name in COMMANDS]
    cases += [[name, sub, "--help"] for name in COMMANDS for sub in _subcommands(name)]
    cases += [[name, "--no-such-flag"] for name in COMMANDS]
    return cases


@pytest.mark.parametrize("argv", _cases(), ids=" ".join)
def test_a_commands_own_parser_says_what_the_whole_one_says(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _needed(argv) == argv[:1]
    whole = _said(build_parser(), argv, capsys)
    own = _said(build_parser(_needed(argv)), argv, capsys)
    assert own == whole
    assert whole[1] or whole[2]  # it said something


def test_the_version_needs_no_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert _needed(["--version"]) == ()
    own = _said(build_parser(()), ["--version"], capsys)
    assert own == _said(build_parser(), ["--version"], capsys)
    assert own[1].startswith("harness ")


@pytest.mark.parametrize("argv", [[], ["--help"], ["nonsense"], ["-w", "x", "run"]])
def test_anything_else_gets_the_whole_parser(argv: list[str]) -> None:
    assert _needed(argv) is None
