"""What the agent never writes (§6.2, §6.3): ``.git/`` and ``.harness/`` wherever they
appear, and the harness's own files when the workspace holds them — the user config (the
``user`` policy layer and the trusted folders), the store and the approval files — and
whatever stands for them under another name: a ``.harness`` that is a symlink (its target),
the directory git really uses and the hooks it runs (``harness.workspace.gitdir``), and the
programs the harness runs (``harness.workspace.programs``).

Names are compared with every path the write goes by: as asked and as resolved through
symlinks, so a symlink to ``.git`` is refused as ``.git`` is. The aliases are read again at
each check; the harness's own places and programs are found when the workspace is opened.

A workspace holds them more often than one would think: ``harness run`` in a home directory
that is not a git repository works in ``~``, which holds ``~/.config/harness``. Were that
writable, the agent could write ``[defaults] exec = "allow"`` (or ``trusted = ["~"]``) into
the user config in one run and run commands unasked in the next.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from harness.errors import ContainmentError
from harness.workspace.gitdir import HOOKS_PATH, git_places
from harness.workspace.programs import workspace_server

# Never written by the agent, wherever they appear (compared case-insensitively). `.hg` is
# Mercurial's `.git`: its `hgrc` names hooks that `hg` runs.
PROTECTED_DIRS: frozenset[str] = frozenset({".git", ".hg", ".harness"})


def own_directories() -> tuple[Path, ...]:
    """The harness's own directories: the user config directory (``policy.toml``: the
    ``user`` layer and the trusted folders) and the user data directory (the default store
    and its approval files)."""
    return (
        Path(platformdirs.user_config_dir("harness")),
        Path(platformdirs.user_data_dir("harness", appauthor=False)),
    )


def own_places(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """``own_directories``, and ``$HARNESS_STORE`` with its ``-wal``, ``-shm``,
    ``-journal`` and the ``approvals`` directory beside it."""
    env = os.environ if environ is None else environ
    places = list(own_directories())
    store = env.get("HARNESS_STORE", "").strip()
    if store:
        path = Path(store).expanduser()
        places += [Path(f"{path}{end}") for end in ("", "-wal", "-shm", "-journal")]
        places.append(path.parent / "approvals")
    return tuple(places)


def _canonical(path: Path) -> Path | None:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):
        return None


@dataclass(frozen=True)
class Place:
    """One protected place under the root: its parts (relative, casefolded), its real path,
    and what the model is told (after "`rel` is in PATH, ")."""

    parts: tuple[str, ...]
    path: Path
    why: str
    # A sandboxed command may write it (the git directory: `git commit` writes there, as it
    # writes `.git`); everything else is bound read-only in the sandbox.
    sandbox_writable: bool = False


_OWN = (
    "which is the harness's own: the agent never writes the user config, the trusted "
    "folders or the store"
)


def _program(what: str) -> str:
    return (
        f"a program the harness itself runs ({what}); the agent never writes it: a change "
        "there would run outside the sandbox"
    )


def _git(how: str) -> str:
    return f"the directory git really uses ({how}); the agent never writes git's own files"


_HARNESS_ALIAS = (
    "which `.harness` stands for; the agent never writes the harness's files (.harness/)"
)


def _places(
    root: Path, given: Iterable[tuple[Path, str]], *, sandbox_writable: bool = False
) -> list[Place]:
    """Those of ``given`` (place, message) that lie in ``root`` after resolving symlinks."""
    out: list[Place] = []
    for place, why in given:
        real = _canonical(place)
        if real is not None and (real == root or real.is_relative_to(root)):
            parts = tuple(p.casefold() for p in real.relative_to(root).parts)
            out.append(Place(parts, real, why, sandbox_writable))
    return out


def aliases(root: Path) -> tuple[Place, ...]:
    """What stands for ``.git`` or ``.harness`` under another name, and the server program
    of the workspace, read now (they can change between two writes of a run)."""
    found = list(git_places(root))
    hooks = [(p, _git(how)) for p, how in found if how.startswith(HOOKS_PATH)]
    data = [(p, _git(how)) for p, how in found if not how.startswith(HOOKS_PATH)]
    given = [*hooks]
    harness = root / ".harness"
    if harness.is_symlink():
        given.append((harness, _HARNESS_ALIAS))
    venv, what = workspace_server(root)
    given.append((venv, _program(what)))
    return (*_places(root, data, sandbox_writable=True), *_places(root, given))


@dataclass(frozen=True)
class Protected:
    """The places under one root that the agent never writes: ``.git/`` and ``.harness/``
    by name, and ``fixed`` (the harness's own places and programs, found when the workspace
    is opened) and ``aliases`` (read at each check)."""

    root: Path
    fixed: tuple[Place, ...] = ()

    @classmethod
    def under(
        cls, root: Path, places: Iterable[Path], programs: Iterable[tuple[Path, str]] = ()
    ) -> Protected:
        """``places`` (the harness's own) and ``programs`` (a program the harness runs, and
        what it is) that lie in ``root`` (after resolving symlinks)."""
        own = [(place, _OWN) for place in places]
        runs = [(place, _program(what)) for place, what in programs]
        return cls(root, tuple(_places(root, [*own, *runs])))

    def places(self) -> tuple[Place, ...]:
        return (*self.fixed, *aliases(self.root))

    def check(self, rel: str, parts: Sequence[str], places: Sequence[Place] | None = None) -> None:
        """``ContainmentError`` when the path ``parts`` (relative to the root: as asked, or
        as resolved) is inside ``.git/``, ``.harness/``, one of the harness's own places or
        programs, or what stands for one of them (``places``: ``places()``, read once for
        the checks of one path)."""
        for p in parts:
            if p.casefold() in PROTECTED_DIRS:
                raise ContainmentError(
                    f"`{rel}` is inside {p.casefold()}/; the agent never writes git's or the "
                    "harness's own files (.git/, .hg/, .harness/)"
                )
        folded = tuple(p.casefold() for p in parts)
        # The most specific place names the reason: `.venv/bin/rg` is the ripgrep it runs.
        found = self.places() if places is None else places
        for place in sorted(found, key=lambda p: -len(p.parts)):
            if folded[: len(place.parts)] == place.parts:
                raise ContainmentError(f"`{rel}` is in {place.path}, {place.why}")

    def read_only_in_sandbox(self) -> tuple[Path, ...]:
        """What a sandboxed command must not write although it is in the workspace: the
        workspace's ``.harness`` (or what it stands for), the harness's own places and
        programs, and the hooks directory git runs (``core.hooksPath``) — those that exist.
        The git directory itself stays writable, as ``.git`` does (``git commit`` writes
        it). The harness's own directories in the workspace are created first (``0700``),
        so that a command cannot create them itself."""
        for directory in own_directories():
            real = _canonical(directory)
            if real is not None and real.is_relative_to(self.root) and not real.exists():
                try:
                    real.mkdir(mode=0o700, parents=True)
                except OSError:
                    continue
        candidates = [self.root / ".harness"]
        candidates += [p.path for p in self.places() if not p.sandbox_writable]
        seen: dict[str, Path] = {}
        for path in candidates:
            if path.exists() and not path.is_symlink():
                seen.setdefault(str(path), path)
        return tuple(seen.values())


__all__ = ["PROTECTED_DIRS", "Place", "Protected", "aliases", "own_directories", "own_places"]
