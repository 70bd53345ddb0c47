"""Attack: one committed file whose name is not UTF-8 (issue 20, item 7; SPEC §5). On main
the run ended at its first ``list_dir`` or ``find`` with a ``UnicodeEncodeError`` (the name,
decoded with surrogates, could not be stored), outcome ``cancelled``.

Now the name is shown escaped (``bad\\xff.txt``), everything the store keeps is valid UTF-8,
and the run goes on to finish.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeFakeLLM
from tests.support.tool_env import make_tool_env
from tests.support.workspace import make_workspace

BAD = b"bad\xff.txt"
SHOWN = "bad\\xff.txt"


def plant(root: Path) -> None:
    with open(os.path.join(os.fsencode(root), BAD), "wb") as f:
        f.write(b"needle in a badly named file\n")
    (root / "sub").mkdir(exist_ok=True)
    with open(os.path.join(os.fsencode(root / "sub"), b"\xfe\xfd.py"), "wb") as f:
        f.write(b"x = 1\n")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("list_dir", {}, id="list_dir"),
        pytest.param("find", {"name_glob": "*.txt"}, id="find"),
        pytest.param("grep", {"pattern": "needle"}, id="grep"),
    ],
)
async def test_a_non_utf8_name_is_shown_escaped(
    tmp_path: Path, tool: str, arguments: dict[str, str]
) -> None:
    env = make_tool_env(tmp_path / "ws")
    plant(env.root)
    result = await env.call(tool, **arguments)
    assert result.ok, result.text
    assert SHOWN in result.text, result.text
    result.text.encode("utf-8")  # valid UTF-8: no lone surrogate left in it


async def test_a_non_utf8_directory_name_is_escaped_too(tmp_path: Path) -> None:
    env = make_tool_env(tmp_path / "ws")
    plant(env.root)
    found = await env.call("find", name_glob="*.py")
    assert "sub/\\xfe\\xfd.py" in found.text, found.text
    found.text.encode("utf-8")


def test_a_run_that_lists_a_non_utf8_name_finishes(fake_llm: MakeFakeLLM, tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path, {"a.py": "print('a')\n"})
    plant(workspace)
    calls = [
        {"name": "list_dir", "arguments": {}},
        {"name": "find", "arguments": {"name_glob": "*"}},
        {"name": "grep", "arguments": {"pattern": "needle|x ="}},
    ]
    fake = fake_llm([{"tool_calls": calls}, {"content": "done"}])
    store = tmp_path / "harness.db"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env = {k: v for k, v in env.items() if not k.startswith("HARNESS_")}
    env["HARNESS_API_KEY"] = "sk-robust-names-0123456789"
    argv = [sys.executable, "-m", "harness", "run", "look around", "-w", str(workspace)]
    argv += ["--provider", "openai", "--base-url", fake.url, "--model", "m"]
    argv += ["--store", str(store), "--json", "--yes"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["outcome"] == "finished", done.stdout + done.stderr
    # The model was shown the names escaped.
    sent = json.dumps(fake.requests[1])
    assert json.dumps(SHOWN)[1:-1] in sent
    # Every text value in the store is valid UTF-8.
    with sqlite3.connect(store) as db:
        db.text_factory = bytes
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        seen = 0
        for table in tables:
            for row in db.execute(f'SELECT * FROM "{table.decode()}"'):
                for value in row:
                    if isinstance(value, bytes):
                        value.decode("utf-8")  # raises on an invalid byte
                        seen += SHOWN.encode() in value
    assert seen, "the escaped name was stored somewhere (the step's results)"
