"""Where git really keeps a repository's data and runs its hooks from (§6.2) — what the
agent never writes besides a directory named ``.git``.

git finds its directory by name (``.git`` in the working tree's top or above), but that
name can stand for another directory: a symlink, or a ``.git`` *file* holding
``gitdir: PATH`` (``git init --separate-git-dir``, worktrees, submodules), whose
``commondir`` file names the directory shared by worktrees. Hooks run from ``hooks/`` in
there, or from ``core.hooksPath`` of the repository's or the user's configuration. A
write to any of them (a hook, ``config`` with a ``core.fsmonitor`` command) runs at the
user's next ``git status``, unsandboxed.

Everything here is read fresh for each check: a few ``lstat``s and reads of small files.
Files are read with a size cap and never followed into FIFOs (``O_NONBLOCK``, regular files
only): a repository chooses them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

MAX_READ = 64 * 1024
HOOKS_PATH = "core.hooksPath"


def git_places(root: Path, environ: Mapping[str, str] | None = None) -> Iterator[tuple[Path, str]]:
    """The directories git uses for the repository holding ``root`` that a name other than
    ``.git`` leads to, each with the reason in words (resolved; may lie outside the root)."""
    env = os.environ if environ is None else environ
    top = _top(root)
    if top is None:
        return
    dot_git = top / ".git"
    gitdir = _gitdir(dot_git)
    if gitdir is None:
        return
    if gitdir != dot_git:  # a real `.git` directory is protected by its name
        how = "the target of the `.git` symlink" if dot_git.is_symlink() else "`gitdir:` in `.git`"
        yield gitdir, how
    common = _commondir(gitdir)
    if common is not None:
        yield common, "the `commondir` of the git directory"
    configs = [gitdir / "config", gitdir / "config.worktree"]
    if common is not None:
        configs.append(common / "config")
    configs += _global_configs(env)
    for config in configs:
        hooks = hooks_path(_read_small(config))
        if hooks is not None:
            yield _absolute(hooks, top, env), f"{HOOKS_PATH} in {config}"


def _top(root: Path) -> Path | None:
    """The nearest of ``root`` and its ancestors that holds a ``.git`` of any kind."""
    for directory in (root, *root.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return None


def _gitdir(dot_git: Path) -> Path | None:
    """The real directory ``.git`` stands for (``.git`` itself when it is a directory)."""
    try:
        st = os.lstat(dot_git)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return _resolved(dot_git)
    if stat.S_ISREG(st.st_mode):
        for line in _read_small(dot_git).splitlines():
            if line.startswith("gitdir:"):
                return _resolved(dot_git.parent / line[len("gitdir:") :].strip())
        return None
    return dot_git if stat.S_ISDIR(st.st_mode) else None


def _commondir(gitdir: Path) -> Path | None:
    named = _read_small(gitdir / "commondir").strip()
    return _resolved(gitdir / named) if named else None


def _global_configs(env: Mapping[str, str]) -> list[Path]:
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME", "") or (f"{home}/.config" if home else "")
    out = [Path(home) / ".gitconfig"] if home else []
    if xdg:
        out.append(Path(xdg) / "git" / "config")
    if env.get("GIT_CONFIG_GLOBAL"):
        out.append(Path(env["GIT_CONFIG_GLOBAL"]))
    return out


def hooks_path(config: str) -> str | None:
    """``core.hooksPath`` of a git config file's text (the last one set), or None. Section
    and key names are case-insensitive; values may be quoted; comments start ``#`` or
    ``;``. Includes are not followed."""
    section = ""
    found: str | None = None
    for raw in config.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1 : line.find("]")].strip().casefold() if "]" in line else ""
            line = line[line.find("]") + 1 :].strip() if "]" in line else ""
        if section != "core" or "=" not in line:
            continue
        key, _, value = line.partition("=")
        if key.strip().casefold() == "hookspath":
            found = _value(value)
    return found or None


def _value(text: str) -> str:
    out: list[str] = []
    quoted = False
    for c in text.strip():
        if c == '"':
            quoted = not quoted
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
    return "".join(out).strip()


def _absolute(path: str, top: Path, env: Mapping[str, str]) -> Path:
    if path.startswith("~/") and env.get("HOME"):
        path = env["HOME"] + path[1:]
    return _resolved(top / path) or top / path


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _read_small(path: Path) -> str:
    """The text of a small regular file; "" when it is missing, not regular, or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        with contextlib.suppress(OSError):
            return os.read(fd, MAX_READ).decode("utf-8", errors="replace")
        return ""
    finally:
        os.close(fd)


def origin_remote(root: Path) -> tuple[Path, str] | None:
    """The top of the repository holding ``root`` (resolved) and the URL of its ``origin``
    remote, read from the repository's config files (a worktree's shared one too) without
    running git; None outside a repository or without an ``origin``."""
    top = _top(root)
    if top is None:
        return None
    gitdir = _gitdir(top / ".git")
    if gitdir is None:
        return None
    common = _commondir(gitdir)
    configs = [*([common / "config"] if common is not None else []), gitdir / "config"]
    found = [config_value(_read_small(c), 'remote "origin"', "url") for c in configs]
    url = next((u for u in reversed(found) if u), None)
    return (top, url) if url else None


def config_value(config: str, section: str, key: str) -> str | None:
    """The last value of ``key`` in ``[section]`` of a git config file's text (section and
    key names compared case-insensitively), or None."""
    current = ""
    found: str | None = None
    for raw in config.splitlines():
        line = raw.strip()
        if line.startswith("["):
            current = line[1 : line.find("]")].strip().casefold() if "]" in line else ""
            line = line[line.find("]") + 1 :].strip() if "]" in line else ""
        if current != section.casefold() or "=" not in line:
            continue
        name, _, value = line.partition("=")
        if name.strip().casefold() == key.casefold():
            found = _value(value)
    return found or None


__all__ = ["HOOKS_PATH", "config_value", "git_places", "hooks_path", "origin_remote"]
