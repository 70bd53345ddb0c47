"""``.gitignore`` rules as git applies them, for list_dir and the watcher (grep and find
leave this to ripgrep): nested files, negations, and the directories never descended.

Like git (2.32 on), a ``.gitignore`` that is a symlink is not followed; and only a regular
file of at most ``MAX_IGNORE_BYTES`` is read — a repository choosing a FIFO or a link to
``/dev/zero`` must not block or fill the harness."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

# Never descended, wherever they appear: a repository's internals and vendored trees.
ALWAYS_SKIPPED: frozenset[str] = frozenset({".git", "node_modules", ".venv"})
MAX_IGNORE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class IgnoreFile:
    """One ``.gitignore``: the directory it sits in (relative, "" for the root) and its spec."""

    base: str
    spec: GitIgnoreSpec


class IgnoreRules:
    """``.gitignore`` files of the root and of nested directories, cached by mtime and size.

    Git semantics: deeper files override shallower ones, the last matching pattern wins, and
    nothing under an ignored directory can be re-included.
    """

    def __init__(self, root: Path) -> None:
        self._root = root
        self._cache: dict[str, tuple[tuple[int, int], GitIgnoreSpec | None]] = {}

    def file_for(self, dir_rel: str) -> IgnoreFile | None:
        path = self._root / dir_rel / ".gitignore" if dir_rel else self._root / ".gitignore"
        try:
            st = os.lstat(path)
        except OSError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode) or st.st_size > MAX_IGNORE_BYTES:
            self._cache.pop(dir_rel, None)
            return None
        key = (st.st_mtime_ns, st.st_size)
        cached = self._cache.get(dir_rel)
        if cached is None or cached[0] != key:
            cached = (key, _load_spec(path))
            self._cache[dir_rel] = cached
        spec = cached[1]
        return IgnoreFile(dir_rel, spec) if spec is not None else None

    @staticmethod
    def ignored_by(files: Sequence[IgnoreFile], rel: str, is_dir: bool) -> bool:
        verdict: bool | None = None
        for f in files:
            sub = rel[len(f.base) + 1 :] if f.base else rel
            result = f.spec.check_file(sub + "/" if is_dir else sub).include
            if result is not None:
                verdict = result
        return bool(verdict)


def _load_spec(path: Path) -> GitIgnoreSpec | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, MAX_IGNORE_BYTES)
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    lines = data.decode("utf-8", errors="replace").splitlines()
    spec = GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


__all__ = ["ALWAYS_SKIPPED", "IgnoreFile", "IgnoreRules"]
