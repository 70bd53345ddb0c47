"""What the agent never writes (§6.2, §6.3): ``.git/`` and ``.harness/`` wherever they
appear, and the harness's own files when the workspace holds them — the user config (the
``user`` policy layer and the trusted folders), the store and the approval files.

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

# Never written by the agent, wherever they appear (compared case-insensitively).
PROTECTED_DIRS: frozenset[str] = frozenset({".git", ".harness"})


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
class Protected:
    """The places under one root that the agent never writes."""

    root: Path
    # (parts relative to the root, casefolded; the place as it was given)
    own: tuple[tuple[tuple[str, ...], Path], ...] = ()

    @classmethod
    def under(cls, root: Path, places: Iterable[Path]) -> Protected:
        """``places`` that lie in ``root`` (after resolving symlinks), kept by their parts."""
        own: list[tuple[tuple[str, ...], Path]] = []
        for place in places:
            real = _canonical(place)
            if real is not None and (real == root or real.is_relative_to(root)):
                parts = tuple(p.casefold() for p in real.relative_to(root).parts)
                own.append((parts, place))
        return cls(root, tuple(own))

    def check(self, rel: str, parts: Sequence[str]) -> None:
        """``ContainmentError`` when the path ``parts`` (relative to the root: as asked, or
        as resolved) is inside ``.git/``, ``.harness/`` or one of the harness's own places."""
        for p in parts:
            if p.casefold() in PROTECTED_DIRS:
                raise ContainmentError(
                    f"`{rel}` is inside {p.casefold()}/; the agent never writes git's or the "
                    "harness's own files (.git/, .harness/)"
                )
        folded = tuple(p.casefold() for p in parts)
        for own, place in self.own:
            if folded[: len(own)] == own:
                raise ContainmentError(
                    f"`{rel}` is in {place}, which is the harness's own: the agent never "
                    "writes the user config, the trusted folders or the store"
                )

    def read_only_in_sandbox(self) -> tuple[Path, ...]:
        """What a sandboxed command must not write although it is in the workspace: the
        workspace's ``.harness`` and the harness's own places, those that exist. The
        harness's own directories in the workspace are created first (``0700``), so that a
        command cannot create them itself."""
        for directory in own_directories():
            real = _canonical(directory)
            if real is not None and real.is_relative_to(self.root) and not real.exists():
                try:
                    real.mkdir(mode=0o700, parents=True)
                except OSError:
                    continue
        candidates = [self.root / ".harness"]
        candidates += [_canonical(place) or place for _, place in self.own]
        seen: dict[str, Path] = {}
        for path in candidates:
            if path.exists() and not path.is_symlink():
                seen.setdefault(str(path), path)
        return tuple(seen.values())


__all__ = ["PROTECTED_DIRS", "Protected", "own_directories", "own_places"]
