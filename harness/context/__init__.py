"""Context assembly (§3): what each request carries of the run's ledger.

- ``engine.BoundedContext``: the bounded assembler of one run — one module per rule:
  ``memory_block`` (rule 1), ``supersede`` (rule 2), ``refresh`` and ``hunks`` (rule 3),
  ``slide`` and ``window`` (rule 5), over a ``plan.Plan`` per turn and one ``Ceiling``;
  ``naive.NaiveContext``: the honest baseline.
- ``frame``: what every request opens with, and what both engines share in sending it.
- ``emission``: one turn's entries and what the assembly did; ``wire``: rendering the
  transcript and the flat form, and the shared-prefix measure.
"""

from harness.context.ceiling import Ceiling
from harness.context.emission import Emission, Entry, Form, Refreshed
from harness.context.engine import BoundedContext
from harness.context.frame import RunFrame
from harness.context.hunks import changed_lines
from harness.context.memory_block import MemorySource
from harness.context.naive import NaiveContext
from harness.context.outcome import Refresher, RefreshOutcome
from harness.context.texts import (
    cap_entry,
    collapse_line,
    current_text,
    refresh_text,
    refused_stub,
    replaces_text,
    superseded_stub,
    truncation_marker,
    unchanged_stub,
    unrefreshed_text,
    window_stub,
)
from harness.context.wire import Wire, render, shared_prefix_chars

__all__ = [
    "BoundedContext",
    "Ceiling",
    "Emission",
    "Entry",
    "Form",
    "MemorySource",
    "NaiveContext",
    "RefreshOutcome",
    "Refreshed",
    "Refresher",
    "RunFrame",
    "Wire",
    "cap_entry",
    "changed_lines",
    "collapse_line",
    "current_text",
    "refresh_text",
    "refused_stub",
    "render",
    "replaces_text",
    "shared_prefix_chars",
    "superseded_stub",
    "truncation_marker",
    "unchanged_stub",
    "unrefreshed_text",
    "window_stub",
]
