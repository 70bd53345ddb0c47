"""Context assembly (§3): what each request carries of the run's ledger.

- ``engine.BoundedContext``: the bounded assembler of one run (stable prefix, supersession,
  staleness by the shown text, a window that slides in steps, both wire forms);
  ``naive.NaiveContext``: the honest baseline.
- ``emission``: one turn's entries and what the assembly did; ``wire``: rendering the
  transcript and the flat form, and the shared-prefix measure.
- ``legacy.assemble``: today's per-turn assembly, which the loop calls until phase 2 of
  issue 12 switches it to ``BoundedContext``.
"""

from harness.context.emission import Emission, Entry, Form
from harness.context.engine import BoundedContext, MemorySource, RunFrame
from harness.context.legacy import (
    Assembly,
    assemble,
    assemble_naive,
    collapse_line,
    refused_stub,
    reread_entry,
    superseded_stub,
    window_stub,
)
from harness.context.naive import NaiveContext
from harness.context.refresh import Refresher, RefreshOutcome
from harness.context.texts import cap_entry, truncation_marker
from harness.context.wire import Wire, render, shared_prefix_chars

__all__ = [
    "Assembly",
    "BoundedContext",
    "Emission",
    "Entry",
    "Form",
    "MemorySource",
    "NaiveContext",
    "RefreshOutcome",
    "Refresher",
    "RunFrame",
    "Wire",
    "assemble",
    "assemble_naive",
    "cap_entry",
    "collapse_line",
    "refused_stub",
    "render",
    "reread_entry",
    "shared_prefix_chars",
    "superseded_stub",
    "truncation_marker",
    "window_stub",
]
