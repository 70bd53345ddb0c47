"""``Workspace``: one root and everything a tool may do to a path under it — containment
checks, opening files for reading, atomic writes, walking, ignore rules (§6.2).

Containment cannot be turned off: absolute paths, ``~``, NUL bytes, ``..`` that leaves the
root, symlinks that resolve outside it and hard links with a name outside raise
``ContainmentError`` whatever the policy says; nothing under ``.git/`` or ``.harness/`` is
ever written, nor what stands for them, nor a program the harness runs
(``harness.workspace.protected``). Every open goes through ``resolver.locate`` (component
by component, from a directory fd, ``O_NOFOLLOW``), so a check cannot be raced.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from harness.errors import ConfigError, ContainmentError
from harness.types import FileWrite, normalize_path
from harness.workspace.files import OpenFile, PreparedWrite, open_located, prepare
from harness.workspace.ignores import ALWAYS_SKIPPED, IgnoreFile, IgnoreRules
from harness.workspace.links import HardLinks
from harness.workspace.programs import program_places
from harness.workspace.protected import PROTECTED_DIRS, Protected, own_places
from harness.workspace.resolver import Located, locate

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
_REMEDY = "paths are relative to the workspace root"

BeforeWrite = Callable[[str, bytes | None, bytes], None]


class Workspace:
    """A workspace root. Paths in and out are workspace-relative POSIX strings.
    ``protected``: absolute paths the agent may not write besides ``.git/``, ``.harness/``
    and the harness's own places (``own_places``), e.g. a store given with ``--store``."""

    def __init__(self, root: Path, *, protected: Iterable[Path] = ()) -> None:
        try:
            resolved = Path(root).expanduser().resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise ConfigError(f"workspace root {root} does not exist ({exc})") from exc
        if not resolved.is_dir():
            raise ConfigError(f"workspace root {root} is not a directory")
        self.root = resolved
        self.ignores = IgnoreRules(resolved)
        self.links = HardLinks(resolved)
        self.protected = Protected.under(
            resolved, (*own_places(), *protected), programs=program_places()
        )
        # What the tools remember about this root between calls (e.g. search's policy
        # verdicts); never needed for correctness.
        self.memo: dict[str, object] = {}

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # -- containment ---------------------------------------------------------------------

    def locate(self, rel: str, *, for_write: bool = False) -> Located:
        """Where ``rel`` is inside the root, with fds to use it (the caller closes them)."""
        norm = lexical_check(rel)
        places = self.protected.places() if for_write else ()
        if for_write:
            self.protected.check(rel, norm.split("/"), places)
        parts = () if norm == "." else tuple(norm.split("/"))
        try:
            loc = locate(self.root, parts, allow_missing=True)
        except ContainmentError as exc:
            raise ContainmentError(f"`{rel}` {exc}") from exc
        except OSError as exc:
            if isinstance(exc, FileNotFoundError | NotADirectoryError):
                raise
            raise ContainmentError(f"`{rel}` cannot be resolved ({exc.strerror})") from exc
        try:
            if for_write:
                if not loc.real:
                    raise ContainmentError(f"`{rel}` is the workspace root itself, not a file")
                self.protected.check(rel, loc.real, places)
            if loc.st is not None and not self.links.all_inside(loc.st):
                raise ContainmentError(
                    f"`{rel}` is a hard link to a file that also has a name outside the "
                    "workspace; the agent does not use it"
                )
        except BaseException:
            loc.close()
            raise
        return loc

    def resolve(self, rel: str, *, for_write: bool = False) -> Path:
        """The absolute real path of ``rel`` inside the root, or ``ContainmentError``. For a
        path that does not exist yet, its nearest existing ancestor decides."""
        with self.locate(rel, for_write=for_write) as loc:
            return self.root.joinpath(*loc.real)

    def relative(self, path: Path) -> str:
        """The normalised POSIX path of ``path`` relative to the root; ``ValueError`` when
        ``path`` is not under the root (a caller's mistake, not the model's)."""
        rel = Path(path).relative_to(self.root)
        return normalize_path(rel.as_posix())

    # -- reading -------------------------------------------------------------------------

    def open_file(self, rel: str) -> OpenFile:
        """A regular file inside the root, open for reading. Raises ``ContainmentError``,
        ``FileNotFoundError``, ``IsADirectoryError``, ``NotRegularFileError``."""
        loc = self.locate(rel)
        with loc:
            if loc.st is None:
                raise FileNotFoundError(f"`{rel}` does not exist")
            return open_located(loc)

    def read_bytes(self, rel: str, limit: int | None = None) -> bytes:
        with self.open_file(rel) as f:
            return f.read(limit)

    def hash_of(self, rel: str) -> str | None:
        """The content hash of the file (``harness.workspace.files.file_hash``), or None when
        it is missing, not a regular file, or not usable inside the workspace."""
        try:
            with self.open_file(rel) as f:
                return f.content_hash()
        except (ContainmentError, OSError):
            return None

    # -- writing -------------------------------------------------------------------------

    def prepare_write(self, rel: str) -> PreparedWrite:
        """Locate the target of a write and read its old bytes; nothing is written yet."""
        loc = self.locate(rel, for_write=True)
        return prepare(loc)

    def write_atomic(
        self, rel: str, data: bytes, *, before_write: BeforeWrite | None = None
    ) -> FileWrite:
        """Write through a temp file in the same directory and rename; keep the mode.
        ``before_write(real_rel, old_bytes_or_None, new_bytes)`` is called before the disk is
        touched; if it raises, nothing is written."""
        with self.prepare_write(rel) as prepared:
            if before_write is not None:
                before_write(prepared.rel, prepared.before, data)
            return prepared.commit(data)

    # -- ignore rules and walking --------------------------------------------------------

    def is_ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` is skipped by search: always-skipped directories or .gitignore."""
        norm = normalize_path(rel)
        if norm == ".":
            return False
        parts = norm.split("/")
        if any(p in ALWAYS_SKIPPED for p in parts):
            return True
        files: list[IgnoreFile] = []
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
        """Relative paths of the regular files under ``under``, in sorted order, ignores
        applied. Symlinks are not followed (a file symlink inside the root is yielded)."""
        start = self.resolve(under)
        if not start.is_dir():
            return
        base = self.relative(start)
        if self.is_ignored(base, True):
            return
        inherited = self._ignore_files_above(base)
        yield from self._walk(start, "" if base == "." else base, inherited)

    def _ignore_files_above(self, base: str) -> list[IgnoreFile]:
        if base == ".":
            return []
        parts = base.split("/")
        found = (self.ignores.file_for("/".join(parts[:d])) for d in range(len(parts)))
        return [f for f in found if f is not None]

    def _walk(self, path: Path, rel: str, inherited: list[IgnoreFile]) -> Iterator[str]:
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


def lexical_check(rel: str) -> str:
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


__all__ = ["PROTECTED_DIRS", "BeforeWrite", "Workspace", "lexical_check"]
