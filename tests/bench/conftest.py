"""Benchmark output: each benchmark records lines; they are printed together at the end of
the session so ``make bench`` shows one readable report."""

from __future__ import annotations

import platform
from collections import defaultdict
from collections.abc import Iterator

import pytest

_LINES: dict[str, list[str]] = defaultdict(list)


def record(topic: str, line: str) -> None:
    _LINES[topic].append(line)
    print(f"[{topic}] {line}")


@pytest.fixture(scope="session", autouse=True)
def _report() -> Iterator[None]:
    yield
    if not _LINES:
        return
    import os

    print("\n\n== benchmark report ==")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {platform.platform()}"
    )
    for topic, lines in _LINES.items():
        print(f"-- {topic}")
        for line in lines:
            print(f"   {line}")
