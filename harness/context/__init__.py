"""Context assembly (§3): what each request carries of the run's ledger.

- ``engine.BoundedContext``: the bounded assembler of one run (stable prefix, supersession,
  staleness by the shown text with re-reads at the end, a window that slides in steps,
  both wire forms); ``naive.NaiveContext``: the honest baseline.
- ``frame``: what every request opens with, and what both engines share in sending it.
- ``emission``: one turn's entries and what the assembly did; ``wire``: rendering the
  transcript and the flat form, and the shared-prefix measure.
"""

from harness.context.emission import Emission, Entry, Form
from harness.context.engine import BoundedContext
from harness.context.frame import MemorySource, RunFrame
from harness.context.naive import NaiveContext
from harness.context.refresh import Refresher, RefreshOutcome
from harness.context.texts import (
    cap_entry,
    collapse_line,
    refused_stub,
    reread_text,
    superseded_stub,
    truncation_marker,
    unchanged_stub,
    window_stub,
)
from harness.context.turn import Placement
from harness.context.wire import Wire, render, shared_prefix_chars

__all__ = [
    "BoundedContext",
    "Emission",
    "Entry",
    "Form",
    "MemorySource",
    "NaiveContext",
    "Placement",
    "RefreshOutcome",
    "Refresher",
    "RunFrame",
    "Wire",
    "cap_entry",
    "collapse_line",
    "refused_stub",
    "render",
    "reread_text",
    "shared_prefix_chars",
    "superseded_stub",
    "truncation_marker",
    "unchanged_stub",
    "window_stub",
]
