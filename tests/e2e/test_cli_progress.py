"""What `harness run` shows a person (issue 13): one line per call ending in how it went,
colour on a terminal and none when piped, the workspace named at the start, and at the end
the outcome, steps, tokens and cached share, the files changed and the model's last words.

The real CLI in a subprocess — on a real pseudo-terminal (its size set on the terminal, the
screen read back through a VT100 emulator) or piped — with the scripted provider, or a real
Chat Completions server on 127.0.0.1 where cache figures and retries matter.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import Fault

from .cli import Result, call, calls, harness, harness_pty, reading, run_args, script, user_config


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A git repository with a secret, a source file in ``src/`` and a test."""
    ws = tmp_path / "shop"
    (ws / "src").mkdir(parents=True)
    (ws / ".git").mkdir()
    (ws / ".env").write_text("API_TOKEN=not-for-the-model\n")
    (ws / "src" / "pricing.py").write_text("def total(x):\n    return x\n")
    return ws


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """A user config and data dir of the test's own (no policy of the machine's user)."""
    user_config(tmp_path / "config")  # no test here is about diagnostics: none after edits
    return {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}


def exec_rule(home: dict[str, str], effect: str, glob: str) -> None:
    """The user's policy: one ``exec`` rule."""
    rule = f'[[rules]]\nact = "exec"\neffect = "{effect}"\nglob = "{glob}"\n'
    user_config(home["XDG_CONFIG_HOME"], rule)


def refusals(tmp_path: Path) -> Path:
    return script(
        tmp_path / "turns.json",
        reading(".env", "../../etc/passwd", said="Looking at the configuration first."),
        calls(call("edit_file", path="src/pricing.py", old="return y", new="return 2 * y")),
        calls(call("exec", argv=["pytest", "-q"])),
        calls(call("edit_file", path="src/pricing.py", old="return x", new="return 2 * x")),
        {"content": "Doubled total(); the tests could not be run here."},
    )


def test_on_a_terminal_a_refused_call_shows_a_cross_and_why(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    turns = refusals(tmp_path)
    screen = harness_pty(
        "run",
        "Double the total",
        "--script",
        turns,
        "--store",
        tmp_path / "s.db",
        cwd=shop / "src",
        answers=[("(default: deny)?", "d\n")],
        **home,
    )
    text = screen.text
    assert screen.code == 0, text
    lines = screen.lines
    assert all(len(line) <= 80 for line in lines), text

    def line_of(label: str) -> str:
        (found,) = [line for line in lines if label in line and ("✓" in line or "✗" in line)]
        return found

    assert line_of("read .env").endswith("✗ refused (builtin: .env)")
    assert line_of("read ../../etc/passwd").endswith("✗ leaves the workspace")
    assert "✗ `old` was not found in `src/pricing.py`" in line_of("edit src/pricing.py ✗")
    assert line_of("exec pytest -q").endswith("✗ denied by you")
    assert line_of("edit src/pricing.py ✓").endswith("✓")
    assert "\x1b[" in screen.raw and "31m" in screen.raw, "a refusal is red on a terminal"


def test_piped_progress_has_no_colour_and_never_wraps(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    out = harness(
        "run",
        "Double the total " + "with a long goal " * 10,
        "--script",
        refusals(tmp_path),
        "--store",
        tmp_path / "s.db",
        cwd=shop / "src",
        COLUMNS="80",
        **home,
    )
    assert out.code == 0, out.stderr
    assert "\x1b" not in out.stdout + out.stderr
    lines = out.stderr.splitlines()
    # with no terminal and no --yes, the ask is refused and says so
    (exec_line,) = [line for line in lines if "exec pytest -q" in line]
    assert exec_line.endswith("! needs approval — not available")
    (secret_line,) = [line for line in lines if "read .env" in line]
    assert secret_line.endswith("✗ refused (builtin: .env)")
    # a piped line is one line, however long: no line starts mid-phrase
    assert any(len(line) > 80 for line in lines), "the long goal is on one line"
    for line in lines:
        assert line.startswith(("harness", "run", "step", "  ", "warning")), line


def test_no_color_on_a_terminal_means_no_colour(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    screen = harness_pty(
        "run",
        "x",
        "--script",
        refusals(tmp_path),
        "--store",
        tmp_path / "s.db",
        "--yes",
        cwd=shop,
        NO_COLOR="1",
        **home,
    )
    assert screen.code == 0, screen.text
    assert "✗ refused (builtin: .env)" in screen.text
    assert "m\x1b[" not in screen.raw and "\x1b[31m" not in screen.raw
    assert "\x1b[1;31m" not in screen.raw


def test_the_end_shows_last_words_files_changed_and_the_step_count_in_words(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    turns = script(
        tmp_path / "one.json",
        {
            "content": "Nothing to change: total() already doubles.",
        },
    )
    out = harness("run", "Check total", "--script", turns, "--store", tmp_path / "s.db", **home)
    assert out.code == 0, out.stderr
    end = out.stdout.splitlines()
    assert "Nothing to change: total() already doubles." in end
    assert end[-1].startswith("run 1 finished · 1 step · ")
    assert "1 steps" not in out.stdout + out.stderr
    assert "no cache figures" in end[-1]
    assert "no files changed" in end[-1]

    turns = refusals(tmp_path)
    out = harness(
        "run", "Double", "--script", turns, "--store", tmp_path / "s.db", "-w", shop, **home
    )
    end = out.stdout.splitlines()
    assert "Doubled total(); the tests could not be run here." in end
    assert "files changed: src/pricing.py" in end
    assert end[-1].startswith("run 2 finished · 5 steps · ")
    assert "1 file changed" in end[-1]


def test_json_is_exactly_the_run_object(shop: Path, tmp_path: Path, home: dict[str, str]) -> None:
    out = harness(
        "run",
        "Double",
        "--script",
        refusals(tmp_path),
        "--store",
        tmp_path / "s.db",
        "-w",
        shop,
        "--json",
        **home,
    )
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)  # nothing else on stdout
    assert result == {
        "runId": 1,
        "conversationId": 1,
        "turn": 1,
        "outcome": "finished",
        "steps": 5,
        "spentTokens": result["spentTokens"],
        "costUsd": None,  # the scripted provider has no price
        "summary": "Doubled total(); the tests could not be run here.",
        "filesChanged": ["src/pricing.py"],
        # .env, ../../etc/passwd, and the exec nobody could approve; the edit not found
        "refused": 3,
        "denied": 0,
        "failed": 1,
    }


def test_the_cached_share_is_what_the_provider_reported(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm(
        [
            calls(call("read_file", path="src/pricing.py")),
            calls(call("list_dir")),
            {"content": "ok"},
        ]
    )
    out = harness(*run_args("Look", fake.url, shop, tmp_path / "s.db")[:-1], **home)
    assert out.code == 0, out.stderr
    prompt = sum(u["prompt_tokens"] for u in fake.usages if u)
    cached = sum(u["prompt_tokens_details"]["cached_tokens"] for u in fake.usages if u)
    assert cached > 0, "the fake's prefix cache hits from the second request on"
    share = round(100 * cached / prompt)
    assert f"{share}% cached" in out.stdout.splitlines()[-1]


def test_the_workspace_is_the_git_root_of_the_current_directory(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    turns = script(tmp_path / "t.json", calls(call("list_dir")), {"content": "seen"})
    store = tmp_path / "s.db"
    out = harness("run", "Look", "--script", turns, "--store", store, cwd=shop / "src", **home)
    assert out.code == 0, out.stderr
    first = out.stderr.splitlines()[0]
    assert first == f"harness · workspace {shop.resolve()} (the git root of the current directory)"
    runs = harness("trace", "runs", "--store", store, "--json").json()
    assert runs[0]["workspace"] == str(shop.resolve())

    written = harness("memory", "write", "k", "v", "--store", store, cwd=shop / "src")
    assert written.code == 0, written.stderr
    listed = harness("memory", "list", "--store", store, cwd=shop / "src")
    assert listed.stdout.splitlines()[0].startswith(f"workspace {shop.resolve()}: 1 of 64 notes")

    outside = tmp_path / "plain"
    outside.mkdir()
    out = harness("run", "Look", "--script", turns, "--store", store, cwd=outside, **home)
    assert out.stderr.splitlines()[0] == f"harness · workspace {outside.resolve()}"


def run_verified(
    shop: Path, tmp_path: Path, home: dict[str, str], turns: list[dict[str, Any]], *more: str
) -> Result:
    """``harness run`` in ``shop`` on scripted ``turns``, verified by ``python check.py``."""
    path = script(tmp_path / "t.json", *turns)
    return harness(
        "run", "x", "--script", path, "--store", tmp_path / "s.db", "-w", shop, "--verify",
        f"{sys.executable} check.py", *more, **home,
    )  # fmt: skip


# What the final line says of a refusal the run met.
NO_APPROVER = "1 call refused (needs approval — not available: run with --yes)"
VERIFY_REFUSED = "the verification was refused (user: *check.py*)"


def assert_final_line(out: Result, begins: str, says: str) -> None:
    last = out.stdout.splitlines()[-1]
    assert last.startswith(begins), last
    assert says in last, last


def test_a_refusal_the_run_met_is_in_its_final_line(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    # Seen: with no terminal and no --yes, `exec pytest` was refused and the run still
    # printed `success`.
    (shop / "check.py").write_text("print('ok')\n")
    turns = [calls(call("exec", argv=["pytest", "-q"])), {"content": "Done."}]
    out = run_verified(shop, tmp_path, home, turns)
    assert out.code == 0, out.stderr
    assert_final_line(out, "run 1 success · 2 steps", NO_APPROVER)


def test_a_verification_a_rule_refused_says_so_in_the_final_line(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    exec_rule(home, "deny", "*check.py*")
    out = run_verified(shop, tmp_path, home, [{"content": "Done."}] * 2, "--max-steps", "2")
    assert out.code == 1, out.stderr
    assert any(
        "verify" in line and line.endswith("✗ refused (user: *check.py*)")
        for line in out.stderr.splitlines()
    ), out.stderr
    assert_final_line(out, "run 1 verification_failed · 2 steps", VERIFY_REFUSED)


def test_an_exec_allowed_by_a_rule_leaves_a_policy_event(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    exec_rule(home, "allow", "*-c*")
    turns = script(
        tmp_path / "t.json", calls(call("exec", argv=[sys.executable, "-c", "print(1)"]))
    )
    store = tmp_path / "s.db"
    out = harness("run", "x", "--script", turns, "--store", store, "-w", shop, **home)
    assert out.code == 0, out.stderr
    rows = sqlite3.connect(store).execute(
        "SELECT act, effect, rule, layer, allowed, detail FROM policy_events"
    )
    assert rows.fetchall() == [("exec", "allow", "*-c*", "user", 1, "allowed")]
    step = harness("trace", "step", "1", "1", "--store", store).stdout
    assert "event policy:" in step and '"allowed": true' in step


def test_a_rate_limit_shows_the_retry_and_its_count_in_the_spinner(
    shop: Path, tmp_path: Path, home: dict[str, str], fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm([{"content": "ok"}])
    fake.inject(Fault.rate_limited(retry_after="1"))
    args = run_args("x", fake.url, shop, tmp_path / "s.db", "--max-steps", "10")
    screen = harness_pty(*[a for a in args if a != "--json"], **home)
    assert screen.code == 0, screen.text
    assert "step 1/10 · retry 2 of 5 in 1.0 s after HTTP 429" in screen.stream
    # the retry is a line of its own too, so a scrolled-away spinner loses nothing
    assert any("HTTP 429" in line and "retry 2 of 5" in line for line in screen.lines)


def test_the_spinner_says_when_the_verification_runs(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    (shop / "slow.py").write_text("import time\ntime.sleep(1.5)\n")
    turns = script(tmp_path / "t.json", {"content": "Done."})
    verify = f"{sys.executable} slow.py"
    screen = harness_pty(
        "run", "x", "--script", turns, "--store", tmp_path / "s.db", "-w", shop, "--verify",
        verify, "--max-steps", "10", **home,
    )  # fmt: skip
    assert screen.code == 0, screen.text
    assert f"step 1/10 · verifying: {verify}" in screen.stream
    assert "waiting for the model" in screen.stream


def test_an_unreachable_server_is_tried_twice_and_the_cli_says_so(
    shop: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    out = harness(*run_args("x", url, shop, tmp_path / "s.db")[:-1], **home)
    assert out.code == 1
    tries = [line for line in out.stderr.splitlines() if "cannot connect" in line]
    assert len(tries) == 2, out.stderr
    assert "retry 2 of 2" in tries[0]
    assert "giving up after 2 attempts" in tries[1]
    assert out.stdout.splitlines()[-1].startswith("run 1 provider_error · 0 steps")
