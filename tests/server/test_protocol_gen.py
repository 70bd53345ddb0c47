"""``make protocol`` (``server.protocol.gen``): the generated files are what the declaration
gives (the lint check), the regions of a Markdown file are filled by name, and a throwaway
command added through the declaration alone — plus its function — comes out in the
manifest, the TypeScript and Lua declarations and docs/server.md's table, in a copy of the
tree that is then thrown away (issue 31: adding a command is the function, its callers, its
test)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server.protocol import COMMANDS
from server.protocol.gen.__main__ import ROOT
from server.protocol.gen.outputs import LUA, MANIFEST, TYPESCRIPT, outputs
from server.protocol.gen.regions import RegionError, fill, names

THROWAWAY = """
COMMANDS = (
    *COMMANDS,
    Command(
        name="harness.throwaway",
        key="throwaway",
        params="RunIdParams",
        arguments="`runId`",
        result="`{\\"thrown\\": runId}`",
    ),
)
"""
HANDLER = '''"""A throwaway command."""

from __future__ import annotations

from typing import Any

from server.lsp.commands.table import handles
from server.lsp.params import RunIdParams


@handles("harness.throwaway")
def throwaway(host: Any, params: RunIdParams) -> dict[str, int]:
    return {"thrown": params.run_id}
'''
COPIED = (TYPESCRIPT, LUA, Path("docs/server.md"))


def test_the_generated_files_are_the_declarations() -> None:
    """What `make lint` checks: `make protocol` would change nothing."""
    files, problems = outputs(ROOT)
    assert problems == []
    assert {p.relative_to(ROOT) for p in files} >= {
        MANIFEST,
        TYPESCRIPT,
        LUA,
        Path("docs/server.md"),
    }
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, f"{path}: run `make protocol`"


def test_docs_server_md_has_every_generated_table() -> None:
    text = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    assert names(text) == [
        "settings",
        "commands",
        "notifications",
        "events",
        "statuses",
        "outcomes",
        "requests",
        "decisions",
        "errors",
        "error-data",
    ]
    for command in COMMANDS:
        assert f"| `{command.name}` |" in text


def test_a_region_is_filled_by_name_and_the_rest_kept() -> None:
    text = "# T\n<!-- BEGIN generated:a -->\nold\nlines\n<!-- END generated:a -->\nafter\n"
    assert fill(text, {"a": "new\n"}) == (
        "# T\n<!-- BEGIN generated:a -->\nnew\n<!-- END generated:a -->\nafter\n"
    )
    assert fill("no regions\n", {}) == "no regions\n"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<!-- BEGIN generated:a -->\nx\n", "region 'a' has no `<!-- END generated:a -->`"),
        ("<!-- BEGIN generated:zz -->\n<!-- END generated:zz -->\n", "called 'zz'"),
    ],
    ids=["no-end", "unknown-name"],
)
def test_a_broken_region_is_an_error_naming_the_line(text: str, error: str) -> None:
    with pytest.raises(RegionError, match=error):
        fill(text, {"a": "x"}, "README.md")


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "server", root / "server", ignore=shutil.ignore_patterns("__pycache__"))
    for rel in COPIED:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, root / rel)
    return root


def _python(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Python in the copy: its ``server`` package, not this tree's."""
    return subprocess.run(
        [sys.executable, *args], cwd=root, capture_output=True, text=True, timeout=120
    )


def test_a_throwaway_command_comes_out_everywhere_from_the_declaration(tmp_path: Path) -> None:
    before = {rel: (ROOT / rel).read_bytes() for rel in (*COPIED, MANIFEST)}
    root = _copy(tmp_path)
    with (root / "server" / "protocol" / "commands.py").open("a", encoding="utf-8") as f:
        f.write(THROWAWAY)

    missing = _python(root, "-m", "server.protocol.gen", "--check")
    assert missing.returncode == 1
    assert "harness.throwaway: declared, but no @handles('harness.throwaway') function" in (
        missing.stderr
    )

    (root / "server" / "lsp" / "commands" / "throwaway.py").write_text(HANDLER, encoding="utf-8")
    wrote = _python(root, "-m", "server.protocol.gen")
    assert wrote.returncode == 0, wrote.stderr
    assert _python(root, "-m", "server.protocol.gen", "--check").returncode == 0

    ts = (root / TYPESCRIPT).read_text(encoding="utf-8")
    assert '  throwaway: "harness.throwaway",' in ts
    assert '  "harness.throwaway": RunIdParams;' in ts
    lua = (root / LUA).read_text(encoding="utf-8")
    assert "  throwaway = 'harness.throwaway'," in lua
    docs = (root / "docs" / "server.md").read_text(encoding="utf-8")
    assert '| `harness.throwaway` | `runId` | `{"thrown": runId}` |' in docs
    manifest = (root / MANIFEST).read_text(encoding="utf-8")
    assert '    "harness.throwaway": "server.lsp.commands.throwaway",' in manifest

    # The server of the copy serves it: the manifest finds the function, the declared
    # params model parses the argument.
    served = _python(
        root,
        "-c",
        "import asyncio\n"
        "from server.lsp.commands.table import COMMAND_MODULES, execute\n"
        "assert 'harness.throwaway' in COMMAND_MODULES\n"
        "print(asyncio.run(execute(None, 'harness.throwaway', ({'runId': 4},))))\n",
    )
    assert served.returncode == 0, served.stderr
    assert served.stdout.strip() == "{'thrown': 4}"

    shutil.rmtree(root)
    assert {rel: (ROOT / rel).read_bytes() for rel in before} == before, "nothing left behind"
    assert not (ROOT / "server" / "lsp" / "commands" / "throwaway.py").exists()
