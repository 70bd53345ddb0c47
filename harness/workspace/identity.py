"""A workspace's portable identity (§4, §12): the key its notes are stored under, the same
for every checkout of one repository on any machine.

A folder inside a git repository with an ``origin`` remote is
``git:<normalised origin>`` plus ``//<its path inside the repository>`` when it is not the
repository's top; any other folder is its canonical absolute path. The origin is
normalised so that every way of spelling one remote gives one key: credentials, the scheme
and the default port dropped, the host lower-cased, ``.git`` and trailing slashes stripped,
and scp-style ``git@host:path`` read as ``ssh://host/path`` — so ``https://`` and
``git@`` clones of one repository share their notes. A local path remote stays a path
(``file:///srv/repo``): it names a place on one machine. A folder the user has not trusted
adds its own path to the origin's key (``workspace_key``): its ``.git/config`` alone does not
make it a checkout of a trusted repository.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from harness.workspace.gitdir import origin_remote

PREFIX = "git:"
SUBPATH = "//"
UNTRUSTED = " untrusted at "  # then the folder's path: an untrusted folder's own scope
_DEFAULT_PORTS = frozenset({22, 80, 443, 9418})
_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>[^/:\[\]]+):(?P<path>(?!//).*)$")


def normalised_remote(url: str, top: Path | None = None) -> str | None:
    """``host[:port]/path`` for a network remote; ``file://<absolute path>`` for a local one
    (a relative path resolved against ``top``); None for nothing usable."""
    url = url.strip()
    if not url:
        return None
    scp = _SCP.match(url) if "://" not in url else None
    if scp and not url.startswith(("/", ".", "~")) and len(scp["host"]) > 1:
        return _joined(scp["host"].lower(), None, scp["path"])
    if "://" not in url:
        local = Path(url).expanduser()
        if not local.is_absolute() and top is not None:
            local = top / local
        return "file://" + _stripped(str(local.resolve(strict=False)))
    parts = urlsplit(url)
    if parts.scheme.lower() == "file" or not parts.hostname:
        return "file://" + _stripped(parts.path)
    try:
        port = parts.port
    except ValueError:
        port = None
    return _joined(parts.hostname.lower(), port, parts.path)


def _joined(host: str, port: int | None, path: str) -> str | None:
    path = _stripped(path).lstrip("/")
    if not path:
        return None
    shown_port = f":{port}" if port is not None and port not in _DEFAULT_PORTS else ""
    return f"{host}{shown_port}/{path}"


def _stripped(path: str) -> str:
    path = path.rstrip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")].rstrip("/")
    return path


def workspace_key(folder: Path, *, trusted: bool = True) -> str:
    """The store key of a workspace folder (see the module docstring). A folder the user has
    not trusted claims no repository's identity by its own ``.git/config`` (issue 30): its
    key is the pair of the origin and its canonical path (``UNTRUSTED``), so it never shares
    the notes of a trusted checkout of that origin."""
    key, canonical = _portable_key(folder)
    if trusted or not is_identity(key):
        return key
    return f"{key}{UNTRUSTED}{canonical}"


def _portable_key(folder: Path) -> tuple[str, Path]:
    canonical = folder.expanduser().resolve()
    found = origin_remote(canonical)
    if found is None:
        return str(canonical), canonical
    top, url = found
    remote = normalised_remote(url, top)
    if remote is None:
        return str(canonical), canonical
    inside = canonical.relative_to(top).as_posix()
    return f"{PREFIX}{remote}" + ("" if inside == "." else f"{SUBPATH}{inside}"), canonical


def is_identity(key: str) -> bool:
    """Whether a scope key is a portable identity (not a path, not ``global``)."""
    return key.startswith(PREFIX)


__all__ = ["PREFIX", "UNTRUSTED", "is_identity", "normalised_remote", "workspace_key"]
