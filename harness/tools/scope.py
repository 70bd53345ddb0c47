"""Which files a search may look at (§6.1, §6.3): ripgrep lists the files its ignore rules
keep, then each is admitted only if ``read_file`` could open it — the policy allows reading
it, it is a regular file, and it has no hard link outside the root. What is refused is
counted, never searched or listed, and the counts do not depend on file contents (a count
of *matching* refused files would tell the model what a secret contains)."""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness.errors import ContainmentError
from harness.tools.base import failure, header
from harness.tools.ripgrep import BASE_FLAGS, incomplete_text, run_rg
from harness.types import Act, Effect, PolicyEvent, ToolResult, normalize_path
from harness.workspace import PathGlob, Workspace
from harness.workspace.dirfds import DirFds

if TYPE_CHECKING:
    from harness.policy import Gate


@dataclass
class Scope:
    """The admitted files in path order, their identity when admitted, what was refused."""

    files: list[str] = field(default_factory=list)
    ident: dict[str, tuple[int, int]] = field(default_factory=dict)
    denied: int = 0
    needs_approval: int = 0
    linked_out: int = 0

    def add(self, rel: str, st: os.stat_result) -> None:
        self.files.append(rel)
        self.ident[rel] = (st.st_dev, st.st_ino)

    def skipped(self, noun: str) -> str:
        """``1 file read_file may not open (policy)``, and the other reasons, or ""."""
        parts = []
        if self.denied:
            parts.append(f"{_files(self.denied)} read_file may not open (policy)")
        if self.needs_approval:
            parts.append(
                f"{_files(self.needs_approval)} that need approval to read (read_file one to "
                "be asked)"
            )
        if self.linked_out:
            parts.append(f"{_files(self.linked_out)} hard-linked to a file outside the workspace")
        return f"{noun}: " + ", ".join(parts) if parts else ""


def _files(n: int) -> str:
    return f"{n:,} file{'' if n == 1 else 's'}"


async def list_files(ws: Workspace, under: str | None) -> list[str]:
    """``listing`` without what it says of errors."""
    return (await listing(ws, under))[0]


async def listing(ws: Workspace, under: str | None) -> tuple[list[str], str | None]:
    """Relative paths rg would search under ``under`` (all when None), sorted, and what
    must be said when rg could not list everything (``incomplete_text``). Always listed
    from the root, so the root's ``.gitignore`` applies to a subdirectory too."""
    out = await run_rg([*BASE_FLAGS, "--files", "--null"], ws.root)
    names = (os.fsdecode(p) for p in out.stdout.split(b"\0") if p)
    rels = (n[2:] if n.startswith("./") else n for n in names)
    if under is not None:
        prefix = under.rstrip("/") + "/"
        rels = (r for r in rels if r.startswith(prefix))
    return sorted(rels), incomplete_text(out)


async def search_scope(
    ws: Workspace, gate: Gate, glob: PathGlob | None, under: str | None
) -> Scope:
    rels = await list_files(ws, under)
    return await asyncio.to_thread(admit, ws, gate, rels, glob)


# Policy verdicts for search, per workspace: (gate, policy, grants so far) -> rel -> verdict.
# A policy never changes during a run and grants only grow, so a later grep of the same run
# asks the policy only about files it has not seen.
_ALLOW, _DENY, _ASK = 0, 1, 2
_verdicts_lock = threading.Lock()


def _verdict_cache(ws: Workspace, gate: Gate) -> dict[str, int]:
    # Kept on the workspace with the run's grants and policy objects themselves (not their
    # ids; a gate is the run's, copied per call), so a verdict is never another policy's.
    key = (gate.grants, gate.policy, len(gate.grants))
    with _verdicts_lock:
        cached = ws.memo.get("search-verdicts")
        if not (isinstance(cached, tuple) and len(cached) == 2 and _same(cached[0], key)):
            cached = (key, {})
            ws.memo["search-verdicts"] = cached
        verdicts: dict[str, int] = cached[1]
        return verdicts


def _same(a: object, b: tuple[object, object, int]) -> bool:
    return isinstance(a, tuple) and len(a) == 3 and a[0] is b[0] and a[1] is b[1] and a[2] == b[2]


def admit(
    ws: Workspace,
    gate: Gate,
    rels: list[str],
    glob: PathGlob | None,
    listing: Sequence[str] | None = None,
) -> Scope:
    """The files of ``rels`` (sorted) a search may look at. ``listing``: every file of the
    root's listing ``rels`` came from (default ``rels``), where the other names of a
    hard-linked file are counted — one ``lstat`` pass at most, never a walk of the tree."""
    scope = Scope()
    with DirFds(ws.root) as dirs:
        _admit_each(ws, gate, dirs, rels=rels, glob=glob, listing=listing, scope=scope)
    return scope


def _admit_each(
    ws: Workspace,
    gate: Gate,
    dirs: DirFds,
    *,
    rels: list[str],
    glob: PathGlob | None,
    listing: Sequence[str] | None,
    scope: Scope,
) -> None:
    verdicts = _verdict_cache(ws, gate)
    linked: list[tuple[str, os.stat_result]] = []  # hard-linked, no verdict known yet
    seen: dict[str, os.stat_result] = {}
    for rel in rels:
        if glob is not None and not glob.matches(rel):
            continue
        verdict = _policy_verdict(gate, verdicts, rel)
        if verdict != _ALLOW:
            scope.denied += verdict == _DENY
            scope.needs_approval += verdict == _ASK
            continue
        st = dirs.lstat(rel)
        if st is None:
            continue  # gone since it was listed, or not inside the root (a raced symlink)
        seen[rel] = st
        if not stat.S_ISREG(st.st_mode):
            continue
        inside = ws.links.known(st)
        if inside is None:
            linked.append((rel, st))
        elif inside:
            scope.add(rel, st)
        else:
            scope.linked_out += 1
    if linked:
        every = listing if listing is not None else rels
        _judge_links(ws, dirs, linked=linked, seen=seen, listing=every, scope=scope)


def _policy_verdict(gate: Gate, verdicts: dict[str, int], rel: str) -> int:
    verdict = verdicts.get(rel)
    if verdict is None:
        decision = gate.check_nowait(Act.READ, rel)
        verdict = _ALLOW if decision.allowed else _DENY
        if not decision.allowed and decision.event is not None:
            verdict = _ASK if decision.event.effect is Effect.ASK else _DENY
        verdicts[rel] = verdict
    return verdict


def _judge_links(
    ws: Workspace,
    dirs: DirFds,
    *,
    linked: list[tuple[str, os.stat_result]],
    seen: dict[str, os.stat_result],
    listing: Sequence[str],
    scope: Scope,
) -> None:
    """Count the names of each hard-linked inode in the listing: all ``st_nlink`` of them
    seen means every name is inside the root; fewer, and the file is refused."""
    wanted = {(st.st_dev, st.st_ino) for _, st in linked}
    names: dict[tuple[int, int], int] = dict.fromkeys(wanted, 0)
    for rel in listing:
        st = seen.get(rel) or dirs.lstat(rel)
        if st is None:
            continue
        ident = (st.st_dev, st.st_ino)
        if st.st_nlink > 1 and ident in wanted and stat.S_ISREG(st.st_mode):
            names[ident] += 1
    for rel, st in linked:
        inside = names[(st.st_dev, st.st_ino)] >= st.st_nlink
        ws.links.remember(st, inside)
        if inside:
            scope.add(rel, st)
        else:
            scope.linked_out += 1
    scope.files.sort()


_GLOB_MAGIC = frozenset("*?[")


def search_target(
    ws: Workspace, path_glob: str | None, kind: str, target: str
) -> tuple[str | None, PathGlob | None] | ToolResult:
    """Where to search (a directory, None for the root) and which files to keep. A glob
    without wildcards naming a directory is searched directly; one that leaves the root is
    refused; an ignored directory is an answer of its own."""
    if path_glob is None or not path_glob.strip() or normalize_path(path_glob) == ".":
        return None, None
    if not _GLOB_MAGIC.intersection(path_glob):
        try:
            path = ws.resolve(path_glob)
        except ContainmentError as exc:
            event = PolicyEvent(
                Act.READ, path_glob, Effect.DENY, None, "containment", False, str(exc)
            )
            return failure(kind, target, str(exc), policy=(event,))
        except NotADirectoryError:
            return None, PathGlob(path_glob, dirs=True)
        if path.is_dir():
            rel = ws.relative(path)
            if rel == ".":
                return None, None
            if ws.is_ignored(rel, True):
                return ToolResult(kind, target, f"{header(kind, target)}\n{_ignored_note(rel)}")
            return rel, None
    return None, PathGlob(path_glob, dirs=True)


def _ignored_note(rel: str) -> str:
    return (
        f"`{rel}` is ignored (.gitignore, .git, node_modules or .venv), so it is not "
        "searched; read_file a file in it by path if you need one"
    )


__all__ = ["Scope", "admit", "list_files", "listing", "search_scope", "search_target"]
