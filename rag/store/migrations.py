"""Applies sql/NNN_name.sql in order, each once, recording applied names in schema_migrations."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

from rag.errors import StoreError

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
_NAME = re.compile(r"^\d{3}_[a-z0-9_]+\.sql$")


def migration_files(sql_dir: Path = SQL_DIR) -> list[Path]:
    files = sorted(p for p in sql_dir.glob("*.sql") if _NAME.match(p.name))
    numbers = [p.name[:3] for p in files]
    if len(set(numbers)) != len(numbers):
        raise RuntimeError(f"two migrations share a number in {sql_dir}: {numbers}")
    return files


def migrate(conn: psycopg.Connection, sql_dir: Path = SQL_DIR) -> list[str]:
    """Apply pending migrations, each in its own transaction; return the names applied now."""
    with conn.transaction():
        # Serialise concurrent migrators (two app processes starting at once).
        conn.execute("select pg_advisory_xact_lock(7212001)")
        conn.execute(
            "create table if not exists schema_migrations ("
            " name text primary key, applied_at timestamptz not null default now())"
        )
    applied_now = []
    for path in migration_files(sql_dir):
        with conn.transaction():
            conn.execute("select pg_advisory_xact_lock(7212001)")
            done = conn.execute("select 1 from schema_migrations where name = %s", (path.name,)).fetchone()
            if done:
                continue
            try:
                conn.execute(path.read_text())
            except psycopg.Error as exc:
                raise StoreError(f"migration {path.name} failed: {exc}") from exc
            conn.execute("insert into schema_migrations (name) values (%s)", (path.name,))
            applied_now.append(path.name)
    return applied_now


def applied(conn: psycopg.Connection) -> list[str]:
    exists = conn.execute("select to_regclass('schema_migrations') is not null").fetchone()[0]
    if not exists:
        return []
    return [r[0] for r in conn.execute("select name from schema_migrations order by name")]
