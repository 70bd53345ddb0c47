"""Attack: a hostile provider puts the harness's own API key into a file (issue 30, item 18:
"a hostile provider's key in a `write_file`'s content reaches the disk while the trace says
`[redacted]`; a fresh server answers it in `harness.run.changes`").

The real CLI against the fake OpenAI-wire server on 127.0.0.1 with ``HARNESS_API_KEY`` set:
the model writes the key whole, a 20-character piece of it, and an ``edit_file`` that adds
it. None is written — each is an observation saying why — so neither the disk nor the
store (its edits rows, which ``harness.run.changes`` and revert read) ever holds it; an
ordinary write in the same turn goes through.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.cli import harness
from tests.support.fake_llm import FakeLLM
from tests.support.scripted_turns import call

KEY = "sk-hostile-" + "Q7xk" * 10  # 51 characters: a real key, redacted in pieces too


def _turns() -> list[dict[str, Any]]:
    return [
        {
            "tool_calls": [
                call("write_file", path="config.py", content=f'API_KEY = "{KEY}"\n'),
                call("write_file", path="notes.txt", content=f"part: {KEY[5:25]}\n"),
                call("edit_file", path="app.py", old="TOKEN = None", new=f"TOKEN = '{KEY}'"),
                call("write_file", path="ok.py", content="OK = 1\n"),
            ]
        },
        {"content": "done"},
    ]


def test_the_key_never_reaches_the_disk_or_the_store(tmp_path: Path, fake_llm: Any) -> None:
    ws, store = tmp_path / "ws", tmp_path / "store" / "harness.db"
    ws.mkdir()
    (ws / "app.py").write_text("TOKEN = None\n")
    fake: FakeLLM = fake_llm(_turns())
    out = harness(
        "run", "configure it", "-w", ws, "--provider", "openai", "--base-url", fake.url,
        "--model", "m", "--store", store, "--json",
        HARNESS_API_KEY=KEY, XDG_CONFIG_HOME=str(tmp_path / "config"),
    )  # fmt: skip
    assert out.code == 0, out.stderr
    assert not (ws / "config.py").exists() and not (ws / "notes.txt").exists()
    assert (ws / "app.py").read_text() == "TOKEN = None\n"
    assert (ws / "ok.py").read_text() == "OK = 1\n"
    for path in ws.rglob("*"):
        if path.is_file():
            assert KEY[5:25].encode() not in path.read_bytes(), path
    for path in store.parent.iterdir():  # the database, its WAL, the approvals
        if path.is_file():
            assert KEY[5:25].encode() not in path.read_bytes(), path
    shown = harness("trace", "step", "1", "1", "--store", store, "--json").stdout
    assert shown.count("holds an API key the harness uses") == 3, shown
    changed = harness("trace", "show", "1", "--store", store, "--json").json()["run"][
        "filesChanged"
    ]
    assert changed == ["ok.py"], changed
