"""The model's memory tools, ``remember`` and ``forget`` (§4). Filled in by the memory work;
the registry in ``harness.tools`` includes whatever ``MEMORY_TOOLS`` lists."""

from __future__ import annotations

from harness.tools.base import Tool

MEMORY_TOOLS: tuple[type[Tool], ...] = ()
