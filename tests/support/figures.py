"""The figures the standing reliability suite records (issue 11): what each test tried and
survived — inputs sent, faults injected, crashes, steps lost, escapes, peak RSS — kept in one
JSON file for ``tools/reliability_report.py`` to print and ``docs/RELIABILITY.md`` to quote.

    from tests.support import figures
    figures.record("containment race", calls=3012, escapes=0)   # set these figures
    figures.add("provider faults", faults_injected=1)           # sum over parametrized cases
    figures.peak("provider faults", peak_rss_mib=88.1)          # keep the largest

Recording is in addition to the test's own assertions, never instead of them. The file is
``$HARNESS_FIGURES`` or ``.pytest_cache/harness-figures.json`` in the repository (ignored by
git). An area's figures belong to one pytest process: the first ``record``/``add``/``peak``
of a new process starts the area afresh, so counts never pile up across runs, while areas
a later, partial run did not touch keep their older figures (each says when it was taken).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import platform
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIGURES_ENV = "HARNESS_FIGURES"
Figure = int | float | str


def figures_path() -> Path:
    configured = os.environ.get(FIGURES_ENV)
    return Path(configured) if configured else ROOT / ".pytest_cache" / "harness-figures.json"


def _session() -> str:
    """This process, told apart from an earlier one with the same pid by its start time."""
    start = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19]
    return f"{os.getpid()}:{start}"


def machine() -> dict[str, Any]:
    return {
        "host": platform.node(),
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }


def load(path: Path | None = None) -> dict[str, Any]:
    """Every recorded area: ``{"areas": {name: {"figures", "recorded_at", ...}}}``."""
    path = path or figures_path()
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"areas": {}}
    return data if isinstance(data, dict) and isinstance(data.get("areas"), dict) else {"areas": {}}


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[dict[str, Any]]:
    """The file's contents, written back atomically; a lock file keeps writers in turn."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = load(path)
        yield data
        temp = path.with_suffix(".tmp")
        temp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        os.replace(temp, path)


def _update(area: str, merge: Callable[[dict[str, Figure]], None]) -> None:
    session = _session()
    with _locked(figures_path()) as data:
        entry = data["areas"].get(area)
        if not isinstance(entry, dict) or entry.get("session") != session:
            entry = {"figures": {}}
        merge(entry["figures"])
        entry.update(
            session=session,
            recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
            soak=os.environ.get("HARNESS_SOAK") == "1",
            machine=machine(),
        )
        data["areas"][area] = entry


def record(area: str, **figures: Figure) -> None:
    """Set ``figures`` of ``area`` (others of the area recorded in this process stay)."""
    _update(area, lambda current: current.update(figures))


def add(area: str, **counts: int) -> None:
    """Add ``counts`` to the area's figures of the same names (from 0 in a new process)."""

    def merge(current: dict[str, Figure]) -> None:
        for name, count in counts.items():
            old = current.get(name, 0)
            current[name] = (old if isinstance(old, int) else 0) + count

    _update(area, merge)


def peak(area: str, **values: int | float) -> None:
    """Keep the largest value seen of each figure (e.g. a peak RSS over many cases)."""

    def merge(current: dict[str, Figure]) -> None:
        for name, value in values.items():
            old = current.get(name)
            current[name] = value if not isinstance(old, int | float) else max(old, value)

    _update(area, merge)
