"""Three ways to call the same SQL functions: embedded Postgres, DATABASE_URL, Supabase RPC."""

from __future__ import annotations

import datetime as dt
import decimal
import logging
import random
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import PoolTimeout

from rag.errors import StoreError, redact

log = logging.getLogger(__name__)


_PLAIN = frozenset({str, int, float, bool, type(None), list})  # as JSON already (a list holds plain values here)


def _jsonable(v: Any) -> Any:
    if type(v) in _PLAIN:  # most values: one set lookup (list_documents at 4,620 documents: ~90,000 values)
        return v
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return float(v)
    return v


def one_line(exc: BaseException) -> str:
    """A database error as one short line: the server's primary message, else the exception's first line; its
    secrets redacted before it is cut (a cut URL would no longer show where its password ends)."""
    diag = getattr(exc, "diag", None)
    text = (getattr(diag, "message_primary", None) if diag else None) or str(exc) or type(exc).__name__
    return " ".join(redact(text).split())[:300]


def _workspace_name(name: str) -> str:
    import re

    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
        raise StoreError(f"workspace names are letters, digits, '_', '-', '.' (got {name!r})")
    return name


APP_ROLE = "rag_app"
RETRIES = 3  # a call rolled back as a conflict with a concurrent one is made again this many times


def _reset_session(conn: psycopg.Connection) -> None:
    """A connection back in the pool loses whatever its last user SET for the session (a role, a timeout): the next
    user gets the login's settings. The app's own calls only SET LOCAL; this guards against any code that did not."""
    conn.execute("reset all; reset role")


class _TryAgain(Exception):
    """A call that Postgres rolled back and that may simply be made again (deadlock, serialization failure)."""


class PostgresTransport:
    """Calls SQL functions over a psycopg connection pool, shaped like PostgREST's /rpc answers."""

    name = "postgres"

    def __init__(self, url: str, statement_timeout_ms: int = 60_000, max_size: int = 4, workspace: str | None = None):
        from psycopg_pool import ConnectionPool

        self.url = url
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"autocommit": True, "options": f"-c statement_timeout={int(statement_timeout_ms)}"
                    + (f" -c rag.workspace={_workspace_name(workspace)}" if workspace else "")},
            open=False,
            reset=_reset_session,
        )
        try:
            self._pool.open(wait=True, timeout=30)
        except Exception as exc:  # pool timeout or connection refused
            self._pool.close()
            raise StoreError(f"cannot connect to Postgres: {one_line(exc)}") from exc
        self._signatures: dict[str, tuple[bool, dict[str, str]]] = {}
        self._lock = threading.Lock()
        self.app_role: str | None = None  # set by use_app_role() once the migrations made it

    def use_app_role(self) -> str | None:
        """Run the app's calls as rag_app (sql/policies), under row-level security, when the role exists and this login
        may take it; else as the login itself (a store not migrated yet, or a role that cannot create roles)."""
        with self._pool.connection() as conn:
            ok = conn.execute("select case when exists (select 1 from pg_roles where rolname = 'rag_app') "
                              "then pg_has_role(current_user, 'rag_app', 'MEMBER') else false end").fetchone()[0]
        self.app_role = APP_ROLE if ok else None
        return self.app_role

    def connection(self):
        return self._pool.connection()

    def _signature(self, conn: psycopg.Connection, fn: str) -> tuple[bool, dict[str, str]]:
        with self._lock:
            if fn in self._signatures:
                return self._signatures[fn]
        row = conn.execute(
            """select p.proretset or p.prorettype = 'record'::regtype
                      or exists (select 1 from unnest(p.proargmodes) m where m = 't'),
                      p.proargnames, p.proargmodes,
                      array(select format_type(t, null) from unnest(p.proargtypes) t)
                 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                where n.nspname = 'public' and p.proname = %s""",
            (fn,),
        ).fetchone()
        if row is None:
            raise StoreError(f"SQL function {fn}() does not exist: run `python -m rag migrate`")
        returns_set, names, modes, types = row
        in_names = [n for n, m in zip(names or [], modes or ["i"] * len(names or [])) if m in ("i", "b", "v")]
        sig = (bool(returns_set), dict(zip(in_names, types)))
        with self._lock:
            self._signatures[fn] = sig
        return sig

    def rpc(self, fn: str, params: dict[str, Any] | None = None, owner: bool = False) -> Any:
        """Call a SQL function: as rag_app under row-level security (the app's calls), or with owner=True as the
        login itself (store-wide administration: migrations' helpers, re-indexing, reader roles). A call that
        Postgres rolled back as a deadlock or a serialization failure is made again, up to RETRIES times: each call
        is one transaction, so nothing of the failed attempt remains. So is one whose period links (derived data,
        recomputed by the call) pointed at a filing that a concurrent delete removed: the owner deleting a shared
        filing while a team ingests or edits one of the same company."""
        for attempt in range(RETRIES + 1):
            try:
                return self._rpc(fn, params, owner)
            except _TryAgain as exc:
                if attempt == RETRIES:
                    raise StoreError(f"{fn}() failed: {one_line(exc.__cause__ or exc)}") from exc.__cause__
                log.info("%s() rolled back (%s); trying again", fn, one_line(exc.__cause__ or exc))
                time.sleep(random.uniform(0.05, 0.25) * (attempt + 1))
            except StoreError:
                raise
            except (psycopg.Error, PoolTimeout) as exc:  # the server went away, or no connection in time
                raise StoreError(f"{fn}() failed: the database is unreachable ({one_line(exc)})") from exc
        raise AssertionError("unreachable")

    def _rpc(self, fn: str, params: dict[str, Any] | None, owner: bool) -> Any:
        params = {k: v for k, v in (params or {}).items() if v is not None}
        with self._pool.connection() as conn:
            returns_set, argtypes = self._signature(conn, fn)
            parts, values = [], {}
            for key, value in params.items():
                if key not in argtypes:
                    raise StoreError(f"{fn}() has no parameter {key}")
                typ = argtypes[key]
                if typ in ("json", "jsonb"):
                    value = Jsonb(value)
                elif typ == "vector" and not isinstance(value, str):
                    value = "[" + ",".join(f"{float(x):.7g}" for x in value) + "]"
                parts.append(f"{key} => %({key})s::{typ}")
                values[key] = value
            call = f"{fn}({', '.join(parts)})"
            sql = f"select * from {call}" if returns_set else f"select {call} as value"
            try:
                with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
                    if self.app_role and not owner:
                        cur.execute(f"set local role {self.app_role}")
                    cur.execute(sql, values)
                    rows = cur.fetchall()
            except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure) as exc:
                raise _TryAgain() from exc
            except psycopg.errors.ForeignKeyViolation as exc:
                if exc.diag.table_name == "document_relations":  # derived links to a filing deleted meanwhile
                    raise _TryAgain() from exc  # (a shared one, whose delete a team's writer cannot lock out)
                raise StoreError(f"{fn}() failed: {one_line(exc)}") from exc
            except psycopg.OperationalError:
                raise
            except psycopg.Error as exc:
                raise StoreError(f"{fn}() failed: {one_line(exc)}") from exc
        if returns_set:
            return [{k: _jsonable(v) for k, v in r.items()} for r in rows]
        return _jsonable(rows[0]["value"]) if rows else None

    def close(self) -> None:
        self._pool.close()


def embedded_url(data_dir: Path) -> str:
    """Start (or join) the embedded PostgreSQL 16 + pgvector of pgserver in data_dir and return its URL."""
    import pgserver

    data_dir = Path(data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    prune_dead_handles(data_dir)
    try:
        server = pgserver.get_server(str(data_dir))
    except Exception as exc:
        raise StoreError(f"cannot start the embedded Postgres in {data_dir}: {exc}") from exc
    _servers.append(server)  # keep a reference: pgserver stops the server when the last handle goes
    _quiet_cleanup(server)
    return server.get_uri()


_servers: list = []
_quieted: set[int] = set()


def _quiet_cleanup(server) -> None:
    """pgserver stops the server when the process exits (atexit). When the server died first (killed), that cleanup
    raises and Python prints its traceback on the way out; this runs the same cleanup and says so in one line."""
    import atexit

    cleanup = getattr(server, "_cleanup", None)
    if cleanup is None or id(server) in _quieted:
        return
    _quieted.add(id(server))
    atexit.unregister(cleanup)

    def quiet() -> None:
        try:
            # a process that shared the server and was killed (the app, when its worker outlives it) never removed
            # its handle; without this the server would outlive the last live process
            prune_dead_handles(Path(server.pgdata))
            cleanup()
        except Exception as exc:
            logging.getLogger("rag.store").warning("the embedded Postgres could not be stopped at exit: %s",
                                                   one_line(exc))

    atexit.register(quiet)


def prune_dead_handles(data_dir: Path) -> list[int]:
    """Drop the PIDs of dead processes from pgserver's handle list (.handle_pids.json).

    pgserver stops the server when the last process holding a handle exits; a process killed with SIGKILL never
    removes its PID, so the server would never be stopped again. Returns the PIDs removed."""
    import json

    import psutil
    from pgserver.postgres_server import PostgresServer

    path = Path(data_dir) / ".handle_pids.json"
    if not path.exists():
        return []
    with PostgresServer._lock:  # the lock pgserver itself takes around the list
        try:
            pids = [int(p) for p in json.loads(path.read_text() or "[]")]
        except (ValueError, TypeError, OSError):
            return []
        alive = [p for p in pids if psutil.pid_exists(p) and _not_zombie(p)]
        dead = [p for p in pids if p not in alive]
        if dead:
            path.write_text(json.dumps(alive))
    return dead


def _not_zombie(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class SupabaseTransport:
    """Calls the same SQL functions through supabase-py: POST {url}/rest/v1/rpc/<fn> with a JSON body."""

    name = "supabase"

    def __init__(self, url: str, key: str):
        from supabase import create_client

        self.client = create_client(url, key)
        # built now, not on first use: the lazy property is not thread-safe, and retrieval's searches run at once
        _ = self.client.postgrest

    def rpc(self, fn: str, params: dict[str, Any] | None = None, owner: bool = False) -> Any:
        body = {}
        for k, v in (params or {}).items():
            if v is None:
                continue
            if hasattr(v, "tolist"):
                v = v.tolist()
            body[k] = v
        try:
            return self.client.rpc(fn, body).execute().data
        except Exception as exc:
            raise StoreError(f"{fn}() failed on Supabase: {redact(str(exc))}") from exc

    def close(self) -> None:
        pass
