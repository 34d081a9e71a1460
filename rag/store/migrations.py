"""Brings a store's schema to this checkout's sql/ (layout and rules: sql/README.md).

- `sql/migrations/NNN_name.sql` run once each, in number order, and are recorded by name: tables, types, indexes,
  roles, table grants, data changes, and the drop of a function whose signature changes.
- `sql/functions/`, `sql/views/`, `sql/policies/`: one file per function, view or table's policy set, each the
  object's current definition (`create or replace`). A file is applied when it is new or its checksum differs from
  the one recorded (Flyway's repeatable migrations), after the numbered ones: functions (their bodies are not
  checked against each other then, as pg_dump restores them), then views, then policies.

A store built by the migrations before the squash (its log ends with 090_clean_stored_text.sql) is at the baseline:
its numbered migrations are recorded as applied, and every file of the three folders is applied once.

Concurrent migrators are serialised by a lock on schema_migrations itself (LOCK TABLE … IN EXCLUSIVE MODE): only a
role that may write that table can take it, so no reader can hold it (a session advisory lock could be taken by any
role and outlive its question). Waiting is bounded by lock_timeout; every failure is one StoreError line."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

from rag.errors import StoreError
from rag.store.transports import one_line

__all__ = ["SQL_DIR", "Migration", "applied", "migrate", "migration_files", "plan", "repeatable_files", "script"]

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
REPEATABLE = ("functions", "views", "policies")  # in the order they are applied
_NAME = re.compile(r"^\d{3}_[a-z0-9_]+\.sql$")
LOCK_TIMEOUT_S = 60
# the last migration of the chain the baseline squashed (001_extensions.sql … 090_clean_stored_text.sql)
SQUASHED_LAST = "090_clean_stored_text.sql"
SQUASHED_INTO = ("migrations/001_baseline.sql", "migrations/002_job_queue_procrastinate.sql")


@dataclass(frozen=True)
class Migration:
    name: str  # its path under sql/, which schema_migrations records
    path: Path
    repeatable: bool

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def migration_files(sql_dir: Path = SQL_DIR) -> list[Path]:
    """The numbered migrations, in order; two sharing a number is an error."""
    files = sorted(p for p in (sql_dir / "migrations").glob("*.sql") if _NAME.match(p.name))
    numbers = [p.name[:3] for p in files]
    if len(set(numbers)) != len(numbers):
        raise RuntimeError(f"two migrations share a number in {sql_dir / 'migrations'}: {numbers}")
    return files


def repeatable_files(sql_dir: Path = SQL_DIR) -> list[Path]:
    return [p for d in REPEATABLE for p in sorted((sql_dir / d).glob("*.sql"))]


def plan(sql_dir: Path = SQL_DIR) -> list[Migration]:
    """Every file the runner knows, in the order it applies them."""
    return ([Migration(f"migrations/{p.name}", p, False) for p in migration_files(sql_dir)]
            + [Migration(f"{p.parent.name}/{p.name}", p, True) for p in repeatable_files(sql_dir)])


_LOG_TABLE = ("create table if not exists schema_migrations ("
              " name text primary key, applied_at timestamptz not null default now())")
_LOG_CHECKSUM = "alter table schema_migrations add column if not exists checksum text"


def script(sql_dir: Path = SQL_DIR) -> str:
    """Every file in the runner's order as one SQL script for a blank database, recording each as the runner does
    (for a SQL editor, e.g. Supabase's, or `supabase/migrations/`; `python -m rag migrate --print`)."""
    parts = [f"-- The store's schema from {sql_dir.name}/ (python -m rag migrate --print), for a blank database.",
             _LOG_TABLE + ";", _LOG_CHECKSUM + ";", "set check_function_bodies = off;"]
    for m in plan(sql_dir):
        checksum = f"'{m.checksum}'" if m.repeatable else "null"
        parts += [f"\n-- sql/{m.name}", m.path.read_text().rstrip(),
                  f"insert into schema_migrations (name, checksum) values ('{m.name}', {checksum});"]
    return "\n".join(parts) + "\n"


def _bootstrap(conn: psycopg.Connection, lock_timeout_s: float) -> None:
    """The table that records migrations (two processes creating it at once both succeed), with the checksum of
    each repeatable file as applied. The column is added only when missing: an ALTER waits for the table's lock,
    which a running migrator holds (its wait is then the migration lock's)."""
    for _ in range(3):
        try:
            with conn.transaction():
                conn.execute(f"set local lock_timeout = {int(lock_timeout_s * 1000)}")
                conn.execute(_LOG_TABLE)
                has = conn.execute("select 1 from information_schema.columns where table_name = 'schema_migrations'"
                                   " and column_name = 'checksum' and table_schema = current_schema()").fetchone()
                if not has:
                    conn.execute(_LOG_CHECKSUM)
            return
        except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable, psycopg.errors.DuplicateColumn):
            continue


def _recorded(conn: psycopg.Connection) -> dict[str, str | None]:
    return dict(conn.execute("select name, checksum from schema_migrations").fetchall())


def _adopt_squashed(conn: psycopg.Connection, recorded: dict[str, str | None]) -> None:
    """A store built by the chain the baseline squashed is at the baseline; one stopped part-way through that chain
    cannot be brought forward from here."""
    old = sorted(n for n in recorded if _NAME.match(n))
    if not old or SQUASHED_INTO[0] in recorded:
        return
    if SQUASHED_LAST not in recorded:
        raise StoreError(f"this store's schema stops at migration {old[-1]}, before the squash at {SQUASHED_LAST}: "
                         "open it once with a version from before issue 37 (git checkout 2d958d9), then with this one")
    conn.execute("insert into schema_migrations (name) select unnest(%s::text[]) on conflict do nothing",
                 (list(SQUASHED_INTO),))


def _apply(conn: psycopg.Connection, m: Migration, lock_timeout_s: float, locked: list[bool]) -> bool:
    """Apply one file in its own transaction when it is due; True when it was applied. `locked[0]` says whether
    the migration lock was taken (a lock timeout before it is another migrator's; after it, a table's)."""
    locked[0] = False
    with conn.transaction():
        conn.execute(f"set local lock_timeout = {int(lock_timeout_s * 1000)}")
        # a migration that fills a new table from a large library takes minutes
        conn.execute("set local statement_timeout = 0")
        conn.execute("lock table schema_migrations in exclusive mode")
        locked[0] = True
        recorded = _recorded(conn)
        _adopt_squashed(conn, recorded)
        recorded = _recorded(conn)
        checksum = m.checksum if m.repeatable else None
        if m.name in recorded and recorded[m.name] == checksum:
            return False
        if m.repeatable:
            conn.execute("set local check_function_bodies = off")
        conn.execute(m.path.read_text())
        conn.execute("insert into schema_migrations (name, checksum) values (%s, %s) on conflict (name) do update"
                     " set checksum = excluded.checksum, applied_at = now()", (m.name, checksum))
        return True


def migrate(conn: psycopg.Connection, sql_dir: Path = SQL_DIR, lock_timeout_s: float = LOCK_TIMEOUT_S) -> list[str]:
    """Apply the pending numbered migrations, then every new or changed repeatable file, each in its own
    transaction; return the names applied now."""
    applied_now: list[str] = []
    m: Migration | None = None
    locked = [False]
    try:
        _bootstrap(conn, lock_timeout_s)
        for m in plan(sql_dir):
            if _apply(conn, m, lock_timeout_s, locked):
                applied_now.append(m.name)
    except psycopg.errors.LockNotAvailable as exc:
        if m is None or not locked[0]:
            raise StoreError(f"another process has held the migration lock for {lock_timeout_s:.0f} s; "
                             "try again when it has finished") from exc
        raise StoreError(f"migration {m.name} waited {lock_timeout_s:.0f} s for a table another session is "
                         f"using ({one_line(exc)}); try again when it is idle") from exc
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(f"this database role may not migrate the store: {one_line(exc)}") from exc
    except psycopg.Error as exc:
        where = f"migration {m.name} failed" if m else "cannot prepare migrations"
        raise StoreError(f"{where}: {one_line(exc)}") from exc
    return applied_now


def applied(conn: psycopg.Connection) -> list[str]:
    exists = conn.execute("select to_regclass('schema_migrations') is not null").fetchone()[0]
    if not exists:
        return []
    return [r[0] for r in conn.execute("select name from schema_migrations order by name")]
