"""What the context reads of the tools (§3): each tool's declaration — the label of its
headers and stubs, what its results supersede — and the text rules of a read (the body of
an empty file, a read's body cap), imported from ``harness.tools`` on first use, not at
import: importing ``harness.context`` loads no tool, no sandbox and no policy
(``tests/harness/test_context_imports.py``). The first use happens when a run
assembles, by which time the run has every tool declared anyway."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.tools.base import Declaration


def declaration(kind: str) -> Declaration:
    """What the tool ``kind`` declared (its own name as label if it is no tool)."""
    from harness.tools import declaration as declared

    return declared(kind)


def label_of(kind: str) -> str:
    """How results of ``kind`` are labelled: ``read`` for ``read_file``."""
    return declaration(kind).label


def header(kind: str, target: str) -> str:
    """``[read src/a.py]``: the first line of a result and of its stub."""
    from harness.tools import header as tool_header

    return tool_header(kind, target)


def empty_file() -> str:
    """The body ``read_file`` gives an empty file."""
    from harness.tools.span import EMPTY_FILE

    return EMPTY_FILE


def read_body_cap(limit_chars: int, target: str, notes: tuple[str, ...] = ()) -> int:
    """The cap on a read's body under the per-result cap ``limit_chars`` (``read_file``'s)."""
    from harness.tools.span import read_body_cap as cap

    return cap(limit_chars, target, notes)


__all__ = ["declaration", "empty_file", "header", "label_of", "read_body_cap"]
