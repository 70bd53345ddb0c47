"""``harness demo``: the main job with no API key (filled in with the demo scenario)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="scripted demo: bounded vs naive context, and memory")
    p.set_defaults(func=lambda args: 0)
