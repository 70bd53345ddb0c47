"""A run of the real ``harness`` command line with a scripted model (``--script``) in a
subprocess, its own user config directory, and the tool results of each step read back from
its store (``harness trace step --json``): for attack tests that drive the tools the way a
prompt-injected model would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.cli import ROOT

TIMEOUT_S = 120


@dataclass(frozen=True)
class ScriptedRun:
    """One finished ``harness run``: its process result and where its store is."""

    done: subprocess.CompletedProcess[str]
    store: Path
    python: str

    def result(self, step: int, run: int = 1) -> str:
        """Every tool result of ``step`` of ``run``, as the model read them."""
        return str(self.step(step, run)["result"])

    def prompt_text(self, step: int, run: int = 1) -> str:
        """The text of every message of the request of ``step`` of ``run``."""
        messages = self.step(step, run)["prompt"]
        return "\n".join(str(m.get("content") or "") for m in messages)

    def step(self, step: int, run: int = 1) -> dict[str, Any]:
        """``harness trace step RUN STEP --json``."""
        shown = subprocess.run(
            [self.python, "-m", "harness", "trace", "step", str(run), str(step), "--store",
             str(self.store), "--json"],
            capture_output=True, text=True, cwd=ROOT, timeout=TIMEOUT_S, check=True,
            env=_env(self.store.parent),
        )  # fmt: skip
        found: dict[str, Any] = json.loads(shown.stdout)
        return found


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env = {k: v for k, v in env.items() if not k.endswith("_API_KEY")}
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    env["XDG_DATA_HOME"] = str(tmp / "data")
    return env


def user_config(tmp: Path) -> Path:
    """The ``policy.toml`` of the user config the runs of ``tmp`` read."""
    return tmp / "config" / "harness" / "policy.toml"


def scripted_run(
    ws: Path,
    tmp: Path,
    turns: Sequence[dict[str, Any]],
    *more: str,
    python: str = sys.executable,
    goal: str = "look",
) -> ScriptedRun:
    """``harness run`` in ``ws`` replaying ``turns``, stdin closed (no one to ask unless
    ``--yes`` is in ``more``), store and user config under ``tmp``."""
    script = tmp / "script.json"
    script.write_text(json.dumps({"turns": list(turns)}))
    store = tmp / "s.db"
    argv = [python, "-m", "harness", "run", goal, "-w", str(ws), "--script", str(script),
            "--store", str(store), "--json", *more]  # fmt: skip
    done = subprocess.run(
        argv, capture_output=True, text=True, env=_env(tmp), cwd=ROOT, timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return ScriptedRun(done, store, python)
