"""Attack: another local user reads the store (issue 9, seen 8: "the store is created 0644").

The store holds every prompt, result and note. Whatever the umask, the file, its ``-wal``
and ``-shm``, and every directory the store creates are the user's alone (0600 / 0700). A
store left readable by an older harness is tightened when opened; one owned by someone else
is left alone with a warning; a directory the store did not create is never changed.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.store import Store


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def write_something(store: Store) -> None:
    store.create_run(goal="g", workspace="/w", provider="p", model="m", contract="{}")
    store.memory_write("global", "k", "v", None, None, "decision")


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o000], ids=["022", "002", "000"])
def test_a_new_store_and_its_directories_are_private_whatever_the_umask(
    tmp_path: Path, umask: None, mask: int
) -> None:
    os.umask(mask)
    path = tmp_path / "data" / "harness" / "harness.db"
    with Store(path) as store:
        write_something(store)
        wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
        assert wal.exists() and shm.exists(), "WAL mode keeps both while the store is open"
        assert mode(path) == 0o600
        assert mode(wal) == 0o600
        assert mode(shm) == 0o600
    assert mode(tmp_path / "data") == 0o700
    assert mode(tmp_path / "data" / "harness") == 0o700


def test_a_directory_the_store_did_not_create_is_left_as_it_is(tmp_path: Path, umask: None) -> None:
    shared = tmp_path / "project"
    shared.mkdir()
    os.chmod(shared, 0o755)
    with Store(shared / "store.db") as store:
        write_something(store)
    assert mode(shared) == 0o755
    assert mode(shared / "store.db") == 0o600


def test_an_existing_loose_store_is_tightened_on_open(tmp_path: Path, umask: None) -> None:
    path = tmp_path / "old.db"
    with Store(path) as store:
        write_something(store)
    os.chmod(path, 0o644)
    with Store(path) as store:
        write_something(store)
        assert mode(path) == 0o600
        assert mode(Path(f"{path}-wal")) == 0o600
        assert mode(Path(f"{path}-shm")) == 0o600
        assert [n.key for n in store.memory_list("global")] == ["k"], "nothing was lost"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_loose_store_owned_by_someone_else_is_left_with_a_warning(
    tmp_path: Path, umask: None, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "theirs.db"
    with Store(path) as store:
        write_something(store)
    os.chmod(path, 0o644)
    os.chown(path, 4242, 4242)
    with caplog.at_level(logging.WARNING, logger="harness.store"), Store(path) as store:
        assert [n.key for n in store.memory_list("global")] == ["k"]
    assert mode(path) == 0o644, "not ours to change"
    warned = [r.getMessage() for r in caplog.records if r.name == "harness.store"]
    assert len(warned) == 3, "once for the file, once for each of its -wal and -shm"
    assert all("readable by others" in m and "chmod 600" in m for m in warned)
    assert [m.split()[3] for m in warned] == [str(path), f"{path}-wal", f"{path}-shm"]
