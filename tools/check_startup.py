"""The start-up budget, checked by the modules a start path loads (run by ``make lint``).

Each path runs in a fresh interpreter and must not have imported any of the heavy packages
named for it: ``harness --version`` and ``harness memory list --help`` load no store, no
pydantic, no rich, no OpenTelemetry, no psycopg, no genai-prices, no ACP; the server's and
the ACP agent's start paths load only what answering ``initialize`` needs; a scripted
``harness run`` that writes ``x.txt`` loads no HTTP client, no language server client, no
MCP client. A set of modules is a gate that holds on a loaded machine; the CPU each path
costs is reported beside it (``--cpu``) as a ratio to a bare interpreter measured in the
same run, not gated.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
HEAVY = (
    "harness.store",
    "psycopg",
    "opentelemetry",
    "rich",
    "genai_prices",
    "acp",
    "pydantic",
    "httpx",
)
_CLI = "from harness.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
# A two-step scripted run that writes ``x.txt`` in a fresh workspace and user config: the
# run the tests start hundreds of times (issue 31).
_RUN = """
import json, os, shutil, tempfile
from pathlib import Path
tmp = Path(tempfile.mkdtemp())
os.environ.update(XDG_CONFIG_HOME=str(tmp / "config"), XDG_DATA_HOME=str(tmp / "data"))
(tmp / "ws").mkdir()
write = {"name": "write_file", "arguments": {"path": "x.txt", "content": "hi\\n"}}
(tmp / "script.json").write_text(json.dumps({"turns": [{"tool_calls": [write]}]}))
from harness.cli import main
try:
    main(["run", "write x.txt", "-w", str(tmp / "ws"), "--provider", "scripted", "--script",
          str(tmp / "script.json"), "--store", str(tmp / "s.db"), "--json", "--yes"])
except SystemExit:
    pass
shutil.rmtree(tmp)
"""
# What that run needs none of: the HTTP client (the scripted model makes no request), the
# language servers' client (no server reads ``.txt``), an MCP client (none configured).
NOT_IN_A_SCRIPTED_RUN = (
    "psycopg",
    "opentelemetry",
    "genai_prices",
    "acp",
    "httpx",
    "lsprotocol",
    "pygls",
    "langservers",
    "mcp",
    "markdown_it",
)


class StartPath(NamedTuple):
    """A start path: the code a fresh interpreter runs, and the packages it must not load."""

    name: str
    code: str
    forbidden: tuple[str, ...]


# What a run needs and answering ``initialize`` does not: the session, the tools, the
# context engine, the gate, the file watcher, the OpenTelemetry SDK.
RUN_MACHINERY = (
    "harness.run.session",
    "harness.tools",
    "harness.context",
    "harness.policy.gate",
    "watchfiles",
    "opentelemetry.sdk",
)
# What the ACP agent opens once ``initialize`` is answered (issue 38): the store's SQL, the
# policy (and tomlkit), telemetry's configuration, the semantic tools' ports.
AFTER_INITIALIZE = (
    "tomlkit",
    "harness.store.facade",
    "harness.policy",
    "harness.telemetry",
    "harness.semantic",
)

PATHS = (
    StartPath("harness --version", _CLI.format(argv=["--version"]), HEAVY + RUN_MACHINERY),
    StartPath(
        "harness memory list --help",
        _CLI.format(argv=["memory", "list", "--help"]),
        HEAVY + RUN_MACHINERY,
    ),
    StartPath("harness --help", _CLI.format(argv=["--help"]), HEAVY + RUN_MACHINERY),
    StartPath(
        "harness-lsp to initialize (server.lsp.app.create_server)",
        "from server.lsp.app import create_server\ncreate_server()",
        HEAVY + RUN_MACHINERY,
    ),
    StartPath(
        # The ACP package brings pydantic and OpenTelemetry's API; the store, the policy,
        # telemetry and the semantic ports load once `initialize` is answered (issue 38).
        "harness acp to initialize (server.acp.main)",
        "import server.acp.main",
        ("psycopg", "rich", "genai_prices", "httpx", *AFTER_INITIALIZE, *RUN_MACHINERY),
    ),
    StartPath("harness run --script (writes x.txt)", _RUN, NOT_IN_A_SCRIPTED_RUN),
)

_REPORT = (
    "\nimport json, sys\nsys.__stdout__.write('\\n@@' + json.dumps(sorted(sys.modules)) + '\\n')\n"
)


def loaded(code: str) -> set[str]:
    """The modules a fresh interpreter has imported after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", code + _REPORT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    line = done.stdout.rsplit("@@", 1)[1]
    return set(json.loads(line))


def offenders(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """The forbidden packages (or their submodules) among ``modules``."""
    return sorted(
        name for name in forbidden if any(m == name or m.startswith(name + ".") for m in modules)
    )


def cpu_seconds(code: str) -> float:
    """User + system CPU of a fresh interpreter running ``code`` (its output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str]) -> int:
    failed = 0
    for path in PATHS:
        bad = offenders(loaded(path.code), path.forbidden)
        if bad:
            failed += 1
            print(f"{path.name}: imports {', '.join(bad)}", file=sys.stderr)
    if "--cpu" in argv:
        floor = min(cpu_seconds("pass") for _ in range(3))
        for path in PATHS:
            spent = sorted(cpu_seconds(path.code) for _ in range(3))[1]
            print(f"{path.name}: {spent:.3f} s CPU ({spent / floor:.1f}x `python -c pass`)")
    if not failed:
        print(f"start-up contract: ok ({len(PATHS)} start paths)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
