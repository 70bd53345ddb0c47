"""Start-up CPU (issue 31; numbers in docs/MEASUREMENTS.md): whole-process user + system
CPU of each start path, medians of ``--runs`` runs, beside the floors measured in the same
run (a bare interpreter, ``import pygls.lsp.server``, ``import acp``).

A command that exits is timed by ``wait4``. A server is started on pipes, sent a real
``initialize`` (LSP: ``Content-Length`` framing; ACP: one JSON line) and read from
``/proc/PID/stat`` the moment its answer arrives, then killed: the CPU to the answer.

    python tools/startup_cpu.py [--runs N] [--bin DIR] [--tree DIR]... [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def exited_cpu(argv: list[str], env: dict[str, str] | None = None) -> float:
    """User + system CPU of ``argv`` run to its end, its output discarded."""
    devnull = subprocess.DEVNULL
    child = subprocess.Popen(argv, stdin=devnull, stdout=devnull, stderr=devnull, env=env)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0
    return usage.ru_utime + usage.ru_stime


def _proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def _lsp_initialize() -> bytes:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        }
    ).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _acp_initialize() -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}},
    }
    return json.dumps(message).encode() + b"\n"


def answered_cpu(argv: list[str], request: bytes, env: dict[str, str]) -> float:
    """CPU of a server from its start to the first bytes of its answer to ``request``."""
    pipe = subprocess.PIPE
    with subprocess.Popen(
        argv, stdin=pipe, stdout=pipe, stderr=subprocess.DEVNULL, env=env
    ) as child:  # the pipes are closed and the child reaped on the way out
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(request)
        child.stdin.flush()
        first = child.stdout.read1(65536)
        spent = _proc_cpu(child.pid)
        child.kill()
    if b'"id":1' not in first.replace(b" ", b"") and b"Content-Length" not in first:
        raise RuntimeError(f"{argv[0]}: no initialize answer: {first[:200]!r}")
    return spent


def floors(py: str) -> dict[str, Callable[[], float]]:
    return {
        "python -c pass": lambda: exited_cpu([py, "-c", "pass"]),
        "python -c 'import pygls.lsp.server'": lambda: exited_cpu(
            [py, "-c", "import pygls.lsp.server"]
        ),
        "python -c 'import acp'": lambda: exited_cpu([py, "-c", "import acp"]),
    }


def start_paths(bin_dir: Path, env: dict[str, str], tag: str) -> dict[str, Callable[[], float]]:
    """The four start paths of the tree ``env`` puts first on ``PYTHONPATH``."""
    harness = str(bin_dir / "harness")
    return {
        f"harness --version{tag}": lambda: exited_cpu([harness, "--version"], env),
        f"harness memory list --help{tag}": lambda: exited_cpu(
            [harness, "memory", "list", "--help"], env
        ),
        f"harness-lsp → initialize{tag}": lambda: answered_cpu(
            [str(bin_dir / "harness-lsp")], _lsp_initialize(), env
        ),
        f"harness acp → initialize{tag}": lambda: answered_cpu(
            [harness, "acp"], _acp_initialize(), env
        ),
    }


def measure_all(runs: int, bin_dir: Path, trees: list[Path | None]) -> dict[str, float]:
    """Every floor and start path (of each tree: None is the installed one), interleaved
    in the same run so that a burst of load hits them alike; medians."""
    paths = floors(str(bin_dir / "python"))
    for tree in trees:
        env = dict(os.environ)
        env.setdefault("HARNESS_STORE", "/tmp/startup-cpu.db")
        if tree is not None:
            env["PYTHONPATH"] = str(tree)
        paths |= start_paths(bin_dir, env, "" if tree is None else f" [{tree}]")
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(runs):
        for name, measure in paths.items():
            samples[name].append(measure())
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--bin", type=Path, default=Path(sys.executable).parent)
    parser.add_argument(
        "--tree",
        type=Path,
        action="append",
        default=[],
        help="also measure the source tree DIR (put first on PYTHONPATH), e.g. a worktree "
        "of an older commit",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    found = measure_all(args.runs, args.bin, [*args.tree, None])
    if args.json:
        print(json.dumps(found))
    else:
        for name, value in found.items():
            print(f"{value:.3f} s  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
