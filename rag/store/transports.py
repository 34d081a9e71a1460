"""Three ways to call the same SQL functions: embedded Postgres, DATABASE_URL, Supabase RPC."""

from __future__ import annotations

import datetime as dt
import decimal
import threading
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from rag.errors import StoreError


def _jsonable(v: Any) -> Any:
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return float(v)
    return v


def _workspace_name(name: str) -> str:
    import re

    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
        raise StoreError(f"workspace names are letters, digits, '_', '-', '.' (got {name!r})")
    return name


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
        )
        try:
            self._pool.open(wait=True, timeout=30)
        except Exception as exc:  # pool timeout or connection refused
            raise StoreError(f"cannot connect to Postgres: {type(exc).__name__}: {exc}") from exc
        self._signatures: dict[str, tuple[bool, dict[str, str]]] = {}
        self._lock = threading.Lock()

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

    def rpc(self, fn: str, params: dict[str, Any] | None = None) -> Any:
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
                with conn.cursor(row_factory=dict_row) as cur:
                    cur.execute(sql, values)
                    rows = cur.fetchall()
            except psycopg.Error as exc:
                raise StoreError(f"{fn}() failed: {exc.diag.message_primary or exc}") from exc
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
    try:
        server = pgserver.get_server(str(data_dir))
    except Exception as exc:
        raise StoreError(f"cannot start the embedded Postgres in {data_dir}: {exc}") from exc
    _servers.append(server)  # keep a reference: pgserver stops the server when the last handle goes
    return server.get_uri()


_servers: list = []


class SupabaseTransport:
    """Calls the same SQL functions through supabase-py: POST {url}/rest/v1/rpc/<fn> with a JSON body."""

    name = "supabase"

    def __init__(self, url: str, key: str):
        from supabase import create_client

        self.client = create_client(url, key)

    def rpc(self, fn: str, params: dict[str, Any] | None = None) -> Any:
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
            raise StoreError(f"{fn}() failed on Supabase: {exc}") from exc

    def close(self) -> None:
        pass
