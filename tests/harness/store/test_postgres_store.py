"""What only the PostgreSQL store has to show (§12): migrations on an empty database, twice,
with the version in ``harness_schema``; a newer schema refused; text PostgreSQL cannot hold
(NUL) kept visible; the change counter moving only for other connections' commits; and a
URL's password never shown."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest

from harness.errors import StoreError
from harness.store import Store, default_store_path, local_dir, store_location
from harness.store.connection import is_url, shown
from harness.store.schema import MIGRATIONS
from tests.support.pg import Cluster
from tests.support.stores import raw_execute, raw_rows


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            "postgresql://ann:s3cr%40t@db.example:5432/harness",
            "postgresql://ann:***@db.example:5432/harness",
            id="user-password",
        ),
        pytest.param(
            "postgres://db/harness?sslmode=require&password=s3cret&user=ann",
            "postgres://db/harness?sslmode=require&password=***&user=ann",
            id="password-parameter",
        ),
        pytest.param(
            "postgresql://db/harness?%70assword=s3cret&user=ann",
            "postgresql://db/harness?%70assword=***&user=ann",
            id="encoded-parameter-name",
        ),
        pytest.param(
            "postgresql://db/harness?%50ASSWORD%20=s3cret",
            "postgresql://db/harness?%50ASSWORD%20=***",
            id="encoded-name-any-case",
        ),
        pytest.param(
            "postgresql://ann:s3/cr@t@db/harness",
            "postgresql://ann:***@db/harness",
            id="password-with-at-and-slash",
        ),
        pytest.param(
            "postgresql://ann:@db/harness?password=",
            "postgresql://ann:***@db/harness?password=***",
            id="empty-passwords",
        ),
        pytest.param(
            "host=db dbname=harness password='s3 cret' user=ann",
            "host=db dbname=harness password=*** user=ann",
            id="conninfo-keyword-quoted",
        ),
        pytest.param(
            "host=db password = s3cret",
            "host=db password = ***",
            id="conninfo-keyword-bare",
        ),
        pytest.param("postgresql://ann@db/harness", "postgresql://ann@db/harness", id="none"),
        pytest.param("/home/ann/harness.db", "/home/ann/harness.db", id="a-path"),
    ],
)
def test_a_urls_password_is_never_shown(url: str, expected: str) -> None:
    assert shown(url) == expected
    assert "s3" not in shown(url)
    assert is_url(url) == url.startswith("postgres")


def test_migrations_apply_to_an_empty_database_and_twice(pg_cluster: Cluster) -> None:
    url = pg_cluster.database()  # empty: cloned from template0
    with Store(url) as first:
        assert first.version == len(MIGRATIONS)
    with Store(url) as second:
        assert second.version == len(MIGRATIONS)
    [(version,)] = [tuple(r) for r in raw_rows(url, "SELECT version FROM harness_schema")]
    assert version == len(MIGRATIONS)
    tables = {
        r[0] for r in raw_rows(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    }
    assert {"runs", "steps", "observations", "edits", "memory", "memory_recalls"} <= tables


def test_many_stores_opening_one_new_database_at_once_all_succeed(pg_cluster: Cluster) -> None:
    url = pg_cluster.url(pg_cluster.fresh_name("race"))  # not created yet
    errors: list[BaseException] = []
    versions: list[int] = []
    start = threading.Barrier(6)

    def open_it() -> None:
        start.wait()
        try:
            with Store(url) as store:
                versions.append(store.version)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and versions == [len(MIGRATIONS)] * 6


def test_a_newer_schema_is_refused_with_a_clear_error(pg_store_url: str) -> None:
    raw_execute(pg_store_url, "UPDATE harness_schema SET version = ?", (len(MIGRATIONS) + 5,))
    with pytest.raises(StoreError, match="newer than this harness"):
        Store(pg_store_url)


def test_a_nul_character_is_kept_visible(pg_store_url: str) -> None:
    with Store(pg_store_url) as store:
        run = store.create_run(
            goal="find \x00 in a.bin", workspace="/w", provider="p", model="m", contract="{}"
        )
        assert store.get_run(run).goal == "find \\x00 in a.bin"  # type: ignore[union-attr]


def test_data_version_moves_only_for_another_connections_commit(pg_store_url: str) -> None:
    with Store(pg_store_url) as mine, Store(pg_store_url) as theirs:
        db = mine._db  # the change counter the recall index follows
        before = db.data_version()
        mine.memory_write("global", "a", "mine", None, None, "decision")
        assert db.data_version() == before, "our own commit"
        theirs.memory_write("global", "b", "theirs", None, None, "decision")
        assert db.data_version() != before


def test_a_wrong_password_or_server_is_one_line_without_the_password(pg_cluster: Cluster) -> None:
    url = f"postgresql://nobody:topsecret@/x?host={pg_cluster.root}/nowhere"
    with pytest.raises(StoreError) as caught:
        Store(url)
    said = str(caught.value)
    assert "topsecret" not in said and "nobody:***@" in said and "\n" not in said
    assert isinstance(caught.value.__cause__, psycopg.Error)


def test_harness_store_and_store_take_a_url_as_it_is(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    url = "postgresql://ann@db.example/harness?sslmode=require"
    monkeypatch.setenv("HARNESS_STORE", url)
    assert default_store_path() == url
    assert store_location(url) == url
    assert store_location("~/h.db") == Path.home() / "h.db"
    assert local_dir(url) != Path(url).parent and local_dir(tmp_path / "h.db") == tmp_path
