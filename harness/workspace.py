"""The workspace root: path containment, ignore rules, walking files and atomic writes (§6.2).

Every path a tool touches goes through ``Workspace.resolve``. Containment cannot be turned
off: absolute paths, ``~``, NUL bytes, ``..`` that leaves the root and symlinks that resolve
outside it raise ``ContainmentError`` whatever the policy says, and nothing under ``.git/``
is ever written. ``resolve`` returns the *resolved* path, so a caller never follows a
symlink out of the root after the check.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

from harness.errors import ConfigError, ContainmentError
from harness.types import FileWrite, content_hash, normalize_path

# Never descended, wherever they appear: a repository's internals and vendored trees.
ALWAYS_SKIPPED: frozenset[str] = frozenset({".git", "node_modules", ".venv"})

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
_REMEDY = "paths are relative to the workspace root"


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


@dataclass(frozen=True)
class _IgnoreFile:
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

    def file_for(self, dir_rel: str) -> _IgnoreFile | None:
        path = self._root / dir_rel / ".gitignore" if dir_rel else self._root / ".gitignore"
        try:
            st = path.stat()
        except OSError:
            self._cache.pop(dir_rel, None)
            return None
        key = (st.st_mtime_ns, st.st_size)
        cached = self._cache.get(dir_rel)
        if cached is None or cached[0] != key:
            cached = (key, _load_spec(path))
            self._cache[dir_rel] = cached
        spec = cached[1]
        return _IgnoreFile(dir_rel, spec) if spec is not None else None

    @staticmethod
    def ignored_by(files: Sequence[_IgnoreFile], rel: str, is_dir: bool) -> bool:
        verdict: bool | None = None
        for f in files:
            sub = rel[len(f.base) + 1 :] if f.base else rel
            result = f.spec.check_file(sub + "/" if is_dir else sub).include
            if result is not None:
                verdict = result
        return bool(verdict)


def _load_spec(path: Path) -> GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    spec = GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


class Workspace:
    """A workspace root. Paths in and out are workspace-relative POSIX strings."""

    def __init__(self, root: Path) -> None:
        try:
            resolved = Path(root).expanduser().resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise ConfigError(f"workspace root {root} does not exist ({exc})") from exc
        if not resolved.is_dir():
            raise ConfigError(f"workspace root {root} is not a directory")
        self.root = resolved
        self.ignores = IgnoreRules(resolved)

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # -- containment ---------------------------------------------------------------------

    def resolve(self, rel: str, *, for_write: bool = False) -> Path:
        """The absolute, resolved path of ``rel`` inside the root, or ``ContainmentError``."""
        norm = _lexical_check(rel)
        candidate = self.root if norm == "." else self.root / norm
        try:
            # For a path that does not exist yet, resolve() follows the existing ancestors
            # and appends the rest: the nearest existing ancestor decides containment.
            resolved = candidate.resolve(strict=False)
        except (OSError, RuntimeError) as exc:
            raise ContainmentError(f"`{rel}` cannot be resolved ({exc}); {_REMEDY}") from exc
        if resolved != self.root and not resolved.is_relative_to(self.root):
            raise ContainmentError(
                f"`{rel}` resolves through a symlink to outside the workspace; "
                "only files inside the workspace root can be used"
            )
        if for_write:
            self._check_writable(rel, norm, resolved)
        return resolved

    def _check_writable(self, rel: str, norm: str, resolved: Path) -> None:
        parts = [*norm.split("/"), *resolved.relative_to(self.root).parts]
        if any(p.casefold() == ".git" for p in parts):
            raise ContainmentError(
                f"`{rel}` is inside .git/; the agent never writes git's own files"
            )
        if resolved == self.root:
            raise ContainmentError(f"`{rel}` is the workspace root itself, not a file")

    def relative(self, path: Path) -> str:
        """The normalised POSIX path of ``path`` relative to the root; ``ValueError`` when
        ``path`` is not under the root (a caller's mistake, not the model's)."""
        rel = Path(path).relative_to(self.root)
        return normalize_path(rel.as_posix())

    # -- ignore rules and walking --------------------------------------------------------

    def is_ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` is skipped by search: always-skipped directories or .gitignore."""
        norm = normalize_path(rel)
        if norm == ".":
            return False
        parts = norm.split("/")
        if any(p in ALWAYS_SKIPPED for p in parts):
            return True
        files: list[_IgnoreFile] = []
        for depth in range(len(parts)):
            f = self.ignores.file_for("/".join(parts[:depth]))
            if f is not None:
                files.append(f)
            prefix = "/".join(parts[: depth + 1])
            last = depth == len(parts) - 1
            if IgnoreRules.ignored_by(files, prefix, is_dir or not last):
                return True
        return False

    def walk_files(self, under: str = ".") -> Iterator[str]:
        """Relative paths of the files under ``under``, in sorted order, ignores applied.

        Directory symlinks are not followed; file symlinks are yielded only when they resolve
        inside the root.
        """
        start = self.resolve(under)
        if not start.is_dir():
            return
        base = self.relative(start)
        if self.is_ignored(base, True):
            return
        inherited = self._ignore_files_above(base)
        yield from self._walk(start, "" if base == "." else base, inherited)

    def _ignore_files_above(self, base: str) -> list[_IgnoreFile]:
        if base == ".":
            return []
        parts = base.split("/")
        found = (self.ignores.file_for("/".join(parts[:d])) for d in range(len(parts)))
        return [f for f in found if f is not None]

    def _walk(self, path: Path, rel: str, inherited: list[_IgnoreFile]) -> Iterator[str]:
        own = self.ignores.file_for(rel)
        files = [*inherited, own] if own is not None else inherited
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except OSError:
            return
        # Sorting directories as "name/" makes this walk yield paths in plain string order.
        keyed = [(e.name + "/" if _is_real_dir(e) else e.name, e) for e in entries]
        keyed.sort(key=lambda pair: pair[0])
        for key, entry in keyed:
            child = f"{rel}/{entry.name}" if rel else entry.name
            is_dir = key.endswith("/")
            if entry.name in ALWAYS_SKIPPED or (
                files and IgnoreRules.ignored_by(files, child, is_dir)
            ):
                continue
            if is_dir:
                yield from self._walk(Path(entry.path), child, files)
            elif self._is_walkable_file(entry):
                yield child

    def _is_walkable_file(self, entry: os.DirEntry[str]) -> bool:
        try:
            if not entry.is_symlink():
                return entry.is_file(follow_symlinks=False)
            target = Path(entry.path).resolve(strict=True)
        except (OSError, RuntimeError):
            return False
        return target.is_relative_to(self.root) and target.is_file()

    # -- reading and writing -------------------------------------------------------------

    def read_bytes(self, rel: str) -> bytes:
        return self.resolve(rel).read_bytes()

    def hash_of(self, rel: str) -> str | None:
        """sha256 of the file's bytes, or None when it is missing, not a file, or not in the
        workspace (a path outside is missing as far as the workspace is concerned)."""
        try:
            return content_hash(self.read_bytes(rel))
        except (ContainmentError, FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def write_atomic(self, rel: str, data: bytes) -> FileWrite:
        """Write through a temp file in the same directory and ``os.replace``; keep the mode."""
        path = self.resolve(rel, for_write=True)
        if path.is_dir():
            raise IsADirectoryError(f"`{rel}` is a directory")
        try:
            before: bytes | None = path.read_bytes()
            mode: int | None = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            before, mode = None, None
        path.parent.mkdir(parents=True, exist_ok=True)
        _replace_atomically(path, data, mode)
        return FileWrite(path=self.relative(path), before=before, after=data)


def _lexical_check(rel: str) -> str:
    """Refuse what is wrong before touching the disk; return the normalised path."""
    if not isinstance(rel, str):
        raise ContainmentError(f"path must be a string, not {type(rel).__name__}")
    if "\x00" in rel:
        raise ContainmentError(f"`{rel!r}` contains a NUL byte; {_REMEDY}")
    stripped = rel.strip()
    if stripped.startswith("~"):
        raise ContainmentError(f"`{rel}` uses `~` (a home directory); {_REMEDY}")
    if stripped.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(stripped):
        raise ContainmentError(f"`{rel}` is an absolute path; {_REMEDY}")
    norm = normalize_path(rel)
    if norm == ".." or norm.startswith("../"):
        raise ContainmentError(f"`{rel}` leaves the workspace; {_REMEDY}")
    return posixpath.normpath(norm)


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _replace_atomically(path: Path, data: bytes, mode: int | None) -> None:
    tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.harness-tmp"
    # Created with 0o666 so the kernel applies the umask to a new file, as any editor would.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


__all__ = ["ALWAYS_SKIPPED", "GlobSet", "IgnoreRules", "PathGlob", "Workspace"]
