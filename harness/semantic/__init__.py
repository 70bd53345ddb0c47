"""Semantic tools through language servers (§14): the port a back end implements
(``model``), text addressing and edit application (``text``) and what answers read to the
model (``format``). The four tools are ``harness.tools.semantic`` (their reads
``semantic_reads``, a rename's write ``renaming``)."""

from harness.semantic.model import (
    Answer,
    Diagnostic,
    FileEdit,
    Location,
    NoSemantics,
    Position,
    Query,
    SemanticPort,
    SemanticUnavailable,
    Severity,
    Span,
    Symbol,
    TextEdit,
)

__all__ = [
    "Answer",
    "Diagnostic",
    "FileEdit",
    "Location",
    "NoSemantics",
    "Position",
    "Query",
    "SemanticPort",
    "SemanticUnavailable",
    "Severity",
    "Span",
    "Symbol",
    "TextEdit",
]
