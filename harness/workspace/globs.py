"""Globs over workspace-relative paths, as the policy and the search tools mean them: ``*``
crosses ``/``, and a pattern matches the full path or the basename."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence

from harness.types import normalize_path


class PathGlob:
    """A glob over workspace-relative paths: ``*`` crosses ``/``; it matches the full path
    or the basename. With ``dirs=True`` a plain directory name also matches everything
    under it (``src`` matches ``src/a.py``), which is what a model means by it in a search.
    """

    def __init__(self, pattern: str, *, dirs: bool = False) -> None:
        self.pattern = pattern
        # fnmatch.translate gives a full-match regex in which `*` crosses `/`.
        self._full = re.compile(fnmatch.translate(pattern))
        stem = normalize_path(pattern).rstrip("/")
        self._under = (
            re.compile(fnmatch.translate(stem + "/*")) if dirs and stem not in ("", ".") else None
        )
        self._everything = dirs and stem in ("", ".")

    def matches(self, rel: str) -> bool:
        if self._everything or self._full.match(rel):
            return True
        base = rel.rpartition("/")[2]
        if base != rel and self._full.match(base):
            return True
        return self._under is not None and self._under.match(rel) is not None


class GlobSet:
    """Many globs with ``PathGlob`` semantics in one regex: does *any* of them match?"""

    def __init__(self, patterns: Sequence[str]) -> None:
        self._any = (
            re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))
            if patterns
            else None
        )

    def matches(self, rel: str) -> bool:
        if self._any is None:
            return False
        base = rel.rpartition("/")[2]
        return self._any.match(rel) is not None or (
            base != rel and self._any.match(base) is not None
        )


__all__ = ["GlobSet", "PathGlob"]
