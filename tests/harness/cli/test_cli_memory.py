"""``harness memory ...`` through ``main(argv)`` and through the installed command: the
§8.1 shapes, exit status (0 ok, 1 not found, 2 usage), scopes and pinned notes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.store import Store
from tests.support.memory_note import NOTE_FIELDS


class Cli:
    def __init__(self, store: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.store, self.ws, self.capsys = store, ws, capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        try:
            code = main(["memory", *argv, "--store", str(self.store)])
        except SystemExit as exited:  # argparse's usage errors
            code = int(exited.code or 0)
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *argv: str) -> Any:
        code, out, err = self(*argv, "-w", str(self.ws), "--json")
        assert code == 0, err
        return json.loads(out)


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    # The tables fit $COLUMNS (pytest-xdist's workers set it to 80): wide enough here that a
    # whole note's value shows.
    monkeypatch.setenv("COLUMNS", "200")
    ws = tmp_path / "ws"
    ws.mkdir()
    return Cli(tmp_path / "store.db", ws, capsys)


def test_write_list_get_in_the_8_1_shape(cli: Cli) -> None:
    written = cli.json("write", "build-command", "make test")
    assert list(written) == ["note", "replaced", "truncated", "evicted", "similar"]
    assert list(written["note"]) == NOTE_FIELDS
    note = written["note"]
    assert (note["kind"], note["pinned"], note["scope"], note["runId"], note["step"]) == (
        "decision",
        False,
        "workspace",
        None,
        None,
    )
    listed = cli.json("list")
    assert [n["key"] for n in listed] == ["build-command"] and list(listed[0]) == NOTE_FIELDS
    got = cli.json("get", "build-command")
    assert got["value"] == "make test" and got["recalls"] == 0


def test_kind_pin_and_unpin(cli: Cli) -> None:
    note = cli.json("write", "retries", "3", "--kind", "fact", "--pin")["note"]
    assert note["kind"] == "fact" and note["pinned"] is True
    assert cli.json("pin", "retries", "--unpin")["pinned"] is False
    assert cli.json("pin", "retries")["pinned"] is True


def test_delete_and_clear_remove_pinned_notes(cli: Cli) -> None:
    cli.json("write", "a", "1", "--pin")
    cli.json("write", "b", "2", "--pin")
    cli.json("write", "c", "3")
    deleted = cli.json("delete", "a")
    assert deleted["deleted"] == 1 and deleted["note"]["key"] == "a" and deleted["note"]["pinned"]
    assert cli.json("clear", "--yes") == {"deleted": 2, "pinned": 1}
    assert cli.json("list") == []


def test_not_found_exits_1_with_a_message(cli: Cli) -> None:
    for argv in (("get", "nope"), ("delete", "nope"), ("pin", "nope")):
        code, out, err = cli(*argv, "-w", str(cli.ws))
        assert code == 1 and out == ""
        assert err.strip() == f"harness: no note `nope` in workspace {cli.ws.resolve()}"


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(("get", ""), id="empty-key"),
        pytest.param(("write", "k", ""), id="empty-value"),
        pytest.param(("write", "k", "v", "--kind", "rumour"), id="bad-kind"),
        pytest.param(("list", "--global", "-w", "."), id="global-and-workspace"),
        pytest.param(("frobnicate",), id="unknown-subcommand"),
    ],
)
def test_usage_errors_exit_2_with_one_line(cli: Cli, argv: tuple[str, ...]) -> None:
    code, out, err = cli(*argv)
    assert code == 2
    assert out == "" and len(err.strip().splitlines()) == 1


def test_global_scope_is_separate(cli: Cli) -> None:
    code, _, _ = cli("write", "style", "small diffs", "--global")
    assert code == 0
    code, out, _ = cli("list", "--global", "--json")
    assert code == 0 and [n["scope"] for n in json.loads(out)] == ["global"]
    assert cli.json("list") == []


def test_w_defaults_to_the_current_directory(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(cli.ws)
    code, _, _ = cli("write", "here", "cwd note")
    assert code == 0
    with Store(cli.store) as store:
        assert store.memory_get(cli.ws, "here") is not None


def test_notes_written_by_a_run_show_its_id_and_step(cli: Cli) -> None:
    with Store(cli.store) as store:
        run = store.create_run(
            goal="g", workspace=str(cli.ws), provider="p", model="m", contract="{}"
        )
        store.memory_write(cli.ws, "build-command", "make test", run, 2, "fact")
    [note] = cli.json("list")
    assert (note["runId"], note["step"], note["kind"]) == (run, 2, "fact")


def test_text_output_is_readable_and_escapes_control_characters(cli: Cli) -> None:
    code, out, _ = cli("write", "danger", "line one\nline two \x1b[31mred", "-w", str(cli.ws))
    assert code == 0 and "stored `danger`" in out
    code, out, _ = cli("list", "-w", str(cli.ws))
    assert code == 0 and "danger" in out and "1 of 64 notes" in out
    assert "\x1b" not in out and "\\x1b[31mred" in out
    code, out, _ = cli("get", "danger", "-w", str(cli.ws))
    assert code == 0 and "line one\nline two \\x1b[31mred" in out


def test_a_long_value_is_truncated_and_reported(cli: Cli) -> None:
    result = cli.json("write", "long", "x" * 5_000)
    assert result["truncated"] is True and len(result["note"]["value"]) == 2_000


def test_the_installed_command(tmp_path: Path) -> None:
    harness = Path(sys.executable).parent / "harness"
    if not harness.exists():
        pytest.skip("the harness console script is not installed in this environment")
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {**os.environ, "HARNESS_STORE": str(tmp_path / "env-store.db")}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(harness), "memory", *argv, "-w", str(ws)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    assert run("write", "build-command", "make test", "--json").returncode == 0
    listed = run("list", "--json")
    assert listed.returncode == 0
    assert [n["key"] for n in json.loads(listed.stdout)] == ["build-command"]
    missing = run("get", "nope")
    assert missing.returncode == 1 and "no note `nope`" in missing.stderr
    assert (tmp_path / "env-store.db").exists()  # $HARNESS_STORE is the default store
