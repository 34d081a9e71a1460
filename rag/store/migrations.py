"""Applies sql/NNN_name.sql in order, each once, recording applied names in schema_migrations.

Concurrent migrators are serialised by a lock on schema_migrations itself (LOCK TABLE … IN EXCLUSIVE MODE): only a
role that may write that table can take it, so no reader can hold it (a session advisory lock could be taken by any
role and outlive its question). Waiting is bounded by lock_timeout; every failure is one StoreError line."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

from rag.errors import StoreError
from rag.store.transports import one_line

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
_NAME = re.compile(r"^\d{3}_[a-z0-9_]+\.sql$")
LOCK_TIMEOUT_S = 60


def migration_files(sql_dir: Path = SQL_DIR) -> list[Path]:
    files = sorted(p for p in sql_dir.glob("*.sql") if _NAME.match(p.name))
    numbers = [p.name[:3] for p in files]
    if len(set(numbers)) != len(numbers):
        raise RuntimeError(f"two migrations share a number in {sql_dir}: {numbers}")
    return files


def _bootstrap(conn: psycopg.Connection) -> None:
    """The table that records migrations; two processes creating it at once both succeed."""
    for _ in range(3):
        try:
            with conn.transaction():
                conn.execute("create table if not exists schema_migrations ("
                             " name text primary key, applied_at timestamptz not null default now())")
            return
        except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
            continue


def migrate(conn: psycopg.Connection, sql_dir: Path = SQL_DIR, lock_timeout_s: float = LOCK_TIMEOUT_S) -> list[str]:
    """Apply pending migrations, each in its own transaction; return the names applied now."""
    applied_now = []
    path = None
    locked = False
    try:
        _bootstrap(conn)
        for path in migration_files(sql_dir):
            locked = False
            with conn.transaction():
                conn.execute(f"set local lock_timeout = {int(lock_timeout_s * 1000)}")
                # a migration that fills a new table from a large library (070 at a million chunks) takes minutes
                conn.execute("set local statement_timeout = 0")
                conn.execute("lock table schema_migrations in exclusive mode")
                locked = True
                if conn.execute("select 1 from schema_migrations where name = %s", (path.name,)).fetchone():
                    continue
                conn.execute(path.read_text())
                conn.execute("insert into schema_migrations (name) values (%s)", (path.name,))
                applied_now.append(path.name)
    except psycopg.errors.LockNotAvailable as exc:
        if not locked:
            raise StoreError(f"another process has held the migration lock for {lock_timeout_s:.0f} s; "
                             "try again when it has finished") from exc
        raise StoreError(f"migration {path.name} waited {lock_timeout_s:.0f} s for a table another session is "
                         f"using ({one_line(exc)}); try again when it is idle") from exc
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(f"this database role may not migrate the store: {one_line(exc)}") from exc
    except psycopg.Error as exc:
        where = f"migration {path.name} failed" if path else "cannot prepare migrations"
        raise StoreError(f"{where}: {one_line(exc)}") from exc
    return applied_now


def applied(conn: psycopg.Connection) -> list[str]:
    exists = conn.execute("select to_regclass('schema_migrations') is not null").fetchone()[0]
    if not exists:
        return []
    return [r[0] for r in conn.execute("select name from schema_migrations order by name")]
