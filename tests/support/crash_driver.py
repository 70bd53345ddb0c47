"""A child process that writes files the way a run does — announce each write in the store,
write it atomically, commit the step — so a test can SIGKILL it anywhere in between.

    python -m tests.support.crash_driver STORE WORKSPACE plan STOP
        runs the first STOP operations of ``PLAN``, prints ``ready <run id>`` and waits to
        be killed (the run is never finished);
    python -m tests.support.crash_driver STORE WORKSPACE loop STEPS
        prints ``ready <run id>`` and then writes step after step without pausing, for a
        test that kills it at a random moment.

No model and no loop: the store (``Store.announce_write``, ``Store.commit_step``) and
``Workspace.write_atomic`` directly, in the order the loop uses them.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.store import ObservationRecord, StepRecord, Store
from harness.types import FileWrite, TraceEvent
from harness.workspace import Workspace


@dataclass(frozen=True)
class Op:
    kind: str  # "announce", "write" or "commit"
    step: int
    path: str = ""
    data: bytes = b""


def _writes(step: int, files: list[tuple[str, bytes]], *, commit: bool = True) -> list[Op]:
    ops: list[Op] = []
    for path, data in files:
        ops += [Op("announce", step, path, data), Op("write", step, path, data)]
    return [*ops, Op("commit", step)] if commit else ops


PLAN: list[Op] = [
    *_writes(1, [("a.txt", b"a, step 1\n"), ("new/dir/c.txt", b"created in step 1\n")]),
    *_writes(2, [("a.txt", b"a, step 2\n"), ("b.txt", b"b, step 2\n")]),
    *_writes(3, [("b.txt", b"b, step 3\n"), ("fresh/d.txt", b"created in step 3\n")], commit=False),
    Op("announce", 3, "a.txt", b"a, step 3: announced, never written\n"),
    Op("commit", 3),
]


class Driver:
    def __init__(self, store: Store, workspace: Workspace) -> None:
        self.store = store
        self.workspace = workspace
        self.run_id = store.create_run(
            goal="write files",
            workspace=str(workspace.root),
            provider="p",
            model="m",
            contract="{}",
        )
        self.done: dict[int, list[FileWrite]] = {}

    def apply(self, op: Op) -> None:
        if op.kind == "announce":
            target = self.workspace.root / op.path
            before = target.read_bytes() if target.exists() else None
            self.store.announce_write(self.run_id, op.step, op.path, before, op.data)
        elif op.kind == "write":
            self.done.setdefault(op.step, []).append(self.workspace.write_atomic(op.path, op.data))
        else:
            self.commit(op.step)

    def commit(self, step: int) -> None:
        writes = self.done.pop(step, [])
        self.store.commit_step(
            StepRecord(
                run_id=self.run_id,
                step=step,
                decision=f"write {len(writes)} files",
                content=f"step {step}",
                prompt=[{"role": "user", "content": "x" * 2_000}],
                tool_calls=[{"name": "write_file", "arguments": {"path": w.path}} for w in writes],
                result="\n\n".join(f"[write {w.path}]" for w in writes),
                effective_tokens=24_000,
                est_tokens=500,
                started_at="2026-01-01T00:00:00Z",
                spent_tokens=step,
                observations=[
                    ObservationRecord(i, "write_file", w.path, True, f"[write {w.path}]")
                    for i, w in enumerate(writes)
                ],
                events=[TraceEvent("assembled", {"step": step})],
                edits=writes,
            )
        )


def loop_plan(steps: int) -> Iterator[Op]:
    """Many small steps: each rewrites one of a few files (some new) and commits."""
    for step in range(1, steps + 1):
        path = ("a.txt", "b.txt", f"gen/{step % 5}/n.txt", "src/deep/e.txt")[step % 4]
        yield from _writes(step, [(path, f"{path} at step {step}\n".encode() * 50)])


def main(argv: list[str]) -> int:
    store_path, root, mode, count = argv[0], argv[1], argv[2], int(argv[3])
    driver = Driver(Store(store_path), Workspace(Path(root)))
    if mode == "plan":
        for op in PLAN[:count]:
            driver.apply(op)
        print(f"ready {driver.run_id}", flush=True)
        signal.pause()
        return 1
    print(f"ready {driver.run_id}", flush=True)
    for op in loop_plan(count):
        driver.apply(op)
    print("finished", flush=True)
    signal.pause()
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
