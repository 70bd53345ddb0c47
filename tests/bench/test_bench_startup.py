"""Start-up CPU (issue 31; numbers in docs/MEASUREMENTS.md "Start-up"): whole-process user +
system CPU of ``harness --version``, ``harness memory list --help``, ``harness-lsp`` and
``harness acp`` to their answer to a real ``initialize`` over stdio, beside the floors (a
bare interpreter, ``import pygls.lsp.server``, ``import acp``) measured in the same run
(``tools/startup_cpu.py``). Printed, never asserted by time; the gate is the module set
(``tools/check_startup.py`` in ``make lint``)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.bench.conftest import record
from tests.tools.test_check_imports import load

startup = load("startup_cpu")
RUNS = int(os.environ.get("HARNESS_STARTUP_RUNS", "7"))


def test_start_up_cpu_against_the_floors(tmp_path: Path) -> None:
    os.environ.setdefault("HARNESS_STORE", str(tmp_path / "store.db"))
    found = startup.measure_all(RUNS, Path(startup.sys.executable).parent, [None])
    for name, seconds in found.items():
        record("start-up", f"{seconds:.3f} s CPU  {name} (median of {RUNS})")
    bare = found["python -c pass"]
    lsp = found["harness-lsp → initialize"] - found["python -c 'import pygls.lsp.server'"]
    acp = found["harness acp → initialize"] - found["python -c 'import acp'"]
    record("start-up", f"over the floors: harness-lsp +{lsp:.3f} s, harness acp +{acp:.3f} s")
    record("start-up", f"harness --version: {found['harness --version'] / bare:.1f}x `pass`")
