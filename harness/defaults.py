"""The task contract's default numbers as plain constants (§3): what ``harness run --help``
prints, without building the contract's pydantic models; ``harness.contract`` declares its
fields with them."""

from __future__ import annotations

from typing import Literal

DEFAULT_TOKEN_BUDGET = 2_000_000
DEFAULT_MAX_STEPS = 100
DEFAULT_CONTEXT_MAX_TOKENS = 24_000
DEFAULT_CONTEXT_SHARE = 0.5
DEFAULT_LOW_WATER = 0.25  # measured: issue 34 (docs/MEASUREMENTS.md, "third pass")
DEFAULT_CONTEXT_WIRE: Literal["transcript"] = "transcript"

__all__ = [
    "DEFAULT_CONTEXT_MAX_TOKENS",
    "DEFAULT_CONTEXT_SHARE",
    "DEFAULT_CONTEXT_WIRE",
    "DEFAULT_LOW_WATER",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_TOKEN_BUDGET",
]
