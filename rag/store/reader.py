"""The connection that runs structured questions: it LOGS IN as a reader role, never as the owner.

A reader role (sql/functions/configure_reader_role.sql) is not a superuser, may not create roles or databases, does not bypass row-level security
and is a member of the unprivileged group rag_reader only, so no SQL text can make the session anything stronger:
SET ROLE and set_config('role', …) reach only roles the login role belongs to. The role's workspace comes from
reader_roles by session_user (sql/functions/current_workspace.sql), which SQL text cannot change either.

Connections are pooled apart from the owner's and reset with DISCARD ALL before they go back to the pool: a
setting, a temporary object, a prepared statement or a session advisory lock taken by one question never
reaches the next one, nor any connection of the owner.
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from rag.errors import StoreError
from rag.store.transports import one_line

SHARED_READER = "rag_query"
_PRIVILEGE_CHECK = """
select r.rolname, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolreplication, r.rolbypassrls,
       array(select g.rolname::text from pg_auth_members m join pg_roles g on g.oid = m.roleid
              where m.member = r.oid order by 1) as member_of,
       array(select g.rolname::text from pg_auth_members m join pg_roles g on g.oid = m.roleid
              join pg_roles rr on rr.oid = m.member where rr.rolname = 'rag_reader' order by 1) as group_member_of
  from pg_roles r where r.rolname = session_user
"""


def reader_url(store_url: str, role: str, password: str | None = None) -> str:
    """The store's URL with the reader role as its user (and its password, where the server asks for one)."""
    params = conninfo_to_dict(store_url)
    params["user"] = role
    params.pop("password", None)
    if password:
        params["password"] = password
    return make_conninfo(**params)


def privilege_problems(row: dict) -> list[str]:
    """What makes a login role more than a reader; empty when it is one."""
    problems = [flag for flag, key in (("superuser", "rolsuper"), ("createrole", "rolcreaterole"),
                                       ("createdb", "rolcreatedb"), ("replication", "rolreplication"),
                                       ("bypassrls", "rolbypassrls")) if row.get(key)]
    extra = [g for g in row.get("member_of") or [] if g != "rag_reader"]
    if extra:
        problems.append("member of " + ", ".join(extra))
    if row.get("group_member_of"):
        problems.append("rag_reader is a member of " + ", ".join(row["group_member_of"]))
    return problems


# The session settings every question runs under. Given at login they take precedence over the role's own
# defaults, which the role itself could change (ALTER ROLE … SET is open to any role for itself).
SESSION = {"default_transaction_read_only": "on", "standard_conforming_strings": "on", "client_encoding": "UTF8",
           "search_path": "public,pg_temp", "work_mem": "4MB", "row_security": "on",
           "idle_in_transaction_session_timeout": "10000", "lock_timeout": "2000",
           # what a value means: no defaults of the role's own choosing
           "transform_null_equals": "off", "TimeZone": "UTC", "DateStyle": "ISO,MDY", "IntervalStyle": "postgres",
           "extra_float_digits": "1", "bytea_output": "hex", "array_nulls": "on", "xmloption": "content",
           "lc_monetary": "C", "lc_numeric": "C", "lc_time": "C", "default_text_search_config": "pg_catalog.english",
           "enable_seqscan": "on", "jit": "off", "max_parallel_workers_per_gather": "0"}


def _norm(value: str) -> str:
    """A setting as SHOW prints it or as it was given: '4MB', 'public, pg_temp', 'ISO, MDY', '10s' or '10000'."""
    v = value.replace(" ", "").lower()
    m = re.fullmatch(r"(\d+)(ms|s|min)", v)
    return str(int(m[1]) * {"ms": 1, "s": 1000, "min": 60000}[m[2]]) if m else v


def _options(statement_timeout_ms: int) -> str:
    return " ".join(f"-c {k}={v}" for k, v in {"statement_timeout": str(int(statement_timeout_ms)), **SESSION}.items())


class ReaderPool:
    """A small pool of reader-role connections, each reset before reuse."""

    def __init__(self, url: str, statement_timeout_ms: int = 3000, max_size: int = 2):
        from psycopg_pool import ConnectionPool

        self._pool = ConnectionPool(
            url, min_size=1, max_size=max_size, open=False, reset=self._reset, check=ConnectionPool.check_connection,
            kwargs={"autocommit": True, "prepare_threshold": None, "options": _options(statement_timeout_ms)})
        try:
            self._pool.open(wait=True, timeout=15)
        except Exception as exc:
            self._pool.close()
            raise StoreError(f"cannot log in as the reader role for structured questions: {one_line(exc)}; "
                             "run `python -m rag migrate`, or set RAG_DB__READER_URL") from exc
        self._checked = False
        self._lock = threading.Lock()

    @staticmethod
    def _reset(conn: psycopg.Connection) -> None:
        conn.execute("discard all")  # settings, temp tables, prepared statements, advisory locks, LISTEN

    def _check(self, conn: psycopg.Connection) -> None:
        from psycopg.rows import dict_row

        with conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(_PRIVILEGE_CHECK).fetchone()
        problems = privilege_problems(row or {})
        if problems:
            raise StoreError(f"structured questions refused: the reader login {row['rolname']!r} is not a reader "
                             f"({'; '.join(problems)}); point RAG_DB__READER_URL at a reader role (sql/functions/configure_reader_role.sql)")

    @staticmethod
    def _check_settings(conn: psycopg.Connection) -> None:
        """The session is what the login options made it, whatever the role's own defaults say (a role may ALTER
        its own): re-read before every question, refused if anything differs."""
        names = list(SESSION)
        got = conn.execute("select array_agg(coalesce(current_setting(n, true), '') order by i) "
                           "from unnest(%s::text[]) with ordinality as t(n, i)", (names,)).fetchone()[0]
        wrong = [n for n, v in zip(names, got, strict=True) if _norm(v) != _norm(SESSION[n])]
        if wrong:
            raise StoreError("structured questions refused: the reader session does not have the settings it logs "
                             f"in with ({', '.join(wrong)})")

    @contextmanager
    def connection(self):
        try:
            with self._pool.connection(timeout=15) as conn:
                with self._lock:
                    if not self._checked:
                        self._check(conn)
                        self._checked = True
                self._check_settings(conn)
                yield conn
        except psycopg.OperationalError as exc:
            raise StoreError(f"the reader connection failed: {one_line(exc)}") from exc

    def close(self) -> None:
        self._pool.close()
