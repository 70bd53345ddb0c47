"""Running the real ``harness`` command line in a subprocess, for the end-to-end tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    base.pop("HARNESS_PROVIDER", None)
    base.update(extra)
    return base


def harness(*args: str | Path, timeout: float = 120, **extra_env: str) -> Result:
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env(**extra_env),
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def run_args(goal: str, url: str, workspace: Path, store: Path, *more: str) -> list[str]:
    return [
        "run",
        goal,
        "--provider",
        "openai",
        "--base-url",
        url,
        "--model",
        "m",
        "-w",
        str(workspace),
        "--store",
        str(store),
        "--json",
        *more,
    ]
