"""The folders the user trusts (§6.3): the ``trusted`` list of the user config, whether a
workspace is covered by it, and recording trust there with its comments and layout kept.

A trusted folder covers its subfolders (as VS Code's Workspace Trust does): trusting
``~/src/app`` trusts ``~/src/app/docs`` too. Entries are absolute or start with ``~``, and
are compared by their canonical resolved path, so a symlink to a trusted folder is trusted
and ``~/src/app/`` is ``~/src/app``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import ConfigError
from harness.policy.source import read_policy_file

if TYPE_CHECKING:  # tomlkit loads to record trust, not to read it (every run reads it)
    import tomlkit
    from tomlkit.items import Array

TRUSTED_KEY = "trusted"
_NEW_CONFIG_HEADER = (
    "harness user configuration: the policy layer `user` (§6.3) and the trusted folders"
)


def canonical(path: Path) -> Path:
    """``path`` with ``~`` expanded and symlinks resolved (as far as it exists)."""
    expanded = path.expanduser()
    try:
        return expanded.resolve()
    except (OSError, RuntimeError):
        return expanded.absolute()


def parse_trusted(value: object, source: str) -> tuple[Path, ...]:
    """The ``trusted`` list of a user config, canonical; ``ConfigError`` naming the entry."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: `{TRUSTED_KEY}` must be a list of folder paths (strings)")
    folders: list[Path] = []
    for entry in value:
        path = Path(entry).expanduser()
        if not path.is_absolute():
            raise ConfigError(
                f"{source}: `{TRUSTED_KEY}` entry {entry!r} must be an absolute path or start "
                "with ~"
            )
        folders.append(canonical(path))
    return tuple(folders)


def covering(root: Path, trusted: Iterable[Path]) -> Path | None:
    """The trusted folder that covers ``root``: ``root`` itself, else its nearest ancestor."""
    folder = canonical(root)
    found = [t for t in trusted if t == folder or t in folder.parents]
    return max(found, key=lambda t: len(t.parts)) if found else None


@dataclass(frozen=True)
class TrustChange:
    """What ``record_trust`` did. ``trusted`` is the folder's trust after the change, which
    stays true after a revoke while a trusted parent folder still covers it."""

    folder: Path
    trusted: bool
    changed: bool  # the config file was written
    config: Path
    covered_by: Path | None  # the entry that trusts the folder now (itself or a parent)


def record_trust(folder: Path, trusted: bool, *, config: Path) -> TrustChange:
    """Add ``folder`` to (or remove it from) the ``trusted`` list of the user config
    ``config``, creating the file if needed. Comments and other settings are kept."""
    folder = canonical(folder)
    document = _read_document(config)
    entries = _trusted_array(document, config)
    listed = [canonical(Path(str(e)).expanduser()) for e in entries]
    changed = False
    if trusted and folder not in listed:
        entries.append(str(folder))
        changed = True
    elif not trusted:
        for index in reversed(range(len(listed))):
            if listed[index] == folder:
                del entries[index]
                changed = True
    if changed:
        _write_atomic(config, document.as_string())
    now = [canonical(Path(str(e)).expanduser()) for e in entries]
    cover = covering(folder, now)
    return TrustChange(folder, cover is not None, changed, config, cover)


def _read_document(config: Path) -> tomlkit.TOMLDocument:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    raw = read_policy_file(config, "user config")
    if raw is None:
        document = tomlkit.document()
        document.add(tomlkit.comment(_NEW_CONFIG_HEADER))
        return document
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"user config {config} cannot be read: {exc}") from exc
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"user config {config} is not valid TOML: {exc}") from exc


def _trusted_array(document: tomlkit.TOMLDocument, config: Path) -> Array:
    import tomlkit
    from tomlkit.items import Array

    source = f"user config {config}"
    if TRUSTED_KEY not in document:
        document[TRUSTED_KEY] = tomlkit.array()
    entries: Any = document[TRUSTED_KEY]
    if not isinstance(entries, Array):
        raise ConfigError(f"{source}: `{TRUSTED_KEY}` must be a list of folder paths (strings)")
    parse_trusted(list(entries), source)  # refuse to edit a list that is already wrong
    return entries


def _write_atomic(path: Path, text: str) -> None:
    """Write ``path`` through a temporary file and a rename, keeping an existing file's mode
    (a new one is private to the user)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        mode: int | None = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = [
    "TRUSTED_KEY",
    "TrustChange",
    "canonical",
    "covering",
    "parse_trusted",
    "record_trust",
]
