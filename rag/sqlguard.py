"""Structured questions as SQL, safely: the statement is parsed with sqlglot and must be one SELECT over the
allowlisted read-only views with allowlisted functions only; LIMIT is enforced. It then runs in a READ ONLY
transaction with a statement timeout under SET LOCAL ROLE rag_reader, a role that can read those views and
nothing else (sql/026_readonly_views.sql) — two independent walls."""

from __future__ import annotations

import datetime as dt
import decimal
import logging

import sqlglot
from sqlglot import exp

from rag.errors import RagError

ALLOWED_RELATIONS = {"v_documents", "v_chunks", "v_figures"}
# Plain, side-effect-free functions; everything else (pg_read_file, set_config, dblink, lo_*, nextval,
# current_setting, query_to_xml, …) is refused.
ALLOWED_FUNCTIONS = {
    "count", "sum", "avg", "min", "max", "round", "abs", "ceil", "ceiling", "floor", "coalesce", "nullif", "lower",
    "upper", "length", "trim", "substring", "substr", "concat", "replace", "left", "right", "extract", "date_part",
    "date_trunc", "to_char", "string_agg", "array_agg", "greatest", "least", "position", "strpos", "split_part",
    "stddev", "variance", "percentile_cont", "row_number", "rank", "dense_rank", "initcap", "btrim", "ltrim", "rtrim",
    "now", "current_date", "cast", "bool_and", "bool_or", "every", "age",
}
_FORBIDDEN = (exp.Insert, exp.Update, exp.Delete, exp.Create, exp.Drop, exp.Alter, exp.Command, exp.Merge,
              exp.Into, exp.Lock, exp.Set, exp.Transaction, exp.Commit, exp.Rollback, exp.Copy, exp.Use,
              exp.Grant, exp.TruncateTable, exp.Pragma, exp.Describe, exp.Analyze)
MAX_ROWS = 200
logging.getLogger("sqlglot").setLevel(logging.ERROR)  # "falling back to a Command" is ours to report


class SqlRejected(RagError):
    """The SQL is not a single safe SELECT over the allowed views."""


def _fn_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    return (node.sql_name() if hasattr(node, "sql_name") else type(node).__name__).lower()


def check(sql: str, max_rows: int = MAX_ROWS) -> str:
    """The SQL to run (LIMIT added or lowered), or SqlRejected saying why."""
    if not sql or not sql.strip():
        raise SqlRejected("empty SQL")
    if "\x00" in sql:
        raise SqlRejected("NUL byte in SQL")
    try:
        statements = [s for s in sqlglot.parse(sql, read="postgres") if s is not None]
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as exc:
        raise SqlRejected(f"not valid SQL: {str(exc).splitlines()[0][:120]}") from exc
    if len(statements) != 1:
        raise SqlRejected(f"exactly one statement is allowed, got {len(statements)}")
    tree = statements[0]
    if not isinstance(tree, (exp.Select, exp.Union, exp.Intersect, exp.Except)) or isinstance(tree, exp.Command):
        raise SqlRejected(f"only SELECT is allowed, got {type(tree).__name__.upper()}")
    for node in tree.walk():
        if isinstance(node, _FORBIDDEN):
            raise SqlRejected(f"{type(node).__name__.upper()} is not allowed")
        if isinstance(node, exp.Select) and node.args.get("locks"):
            raise SqlRejected("row locks (FOR UPDATE / SHARE) are not allowed")
        if isinstance(node, exp.Select) and node.args.get("into"):
            raise SqlRejected("SELECT INTO is not allowed")
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for t in tree.find_all(exp.Table):
        name = t.name.lower()
        if t.args.get("db") or t.args.get("catalog"):
            raise SqlRejected(f"schema-qualified relation {t.sql()} is not allowed")
        if name not in ALLOWED_RELATIONS and name not in ctes:
            raise SqlRejected(f"relation {t.name!r} is not allowed; use {', '.join(sorted(ALLOWED_RELATIONS))}")
    for f in tree.find_all(exp.Func):
        if isinstance(f, (exp.Cast, exp.TryCast, exp.Extract, exp.Case, exp.If, exp.Coalesce, exp.Count, exp.Sum,
                          exp.Avg, exp.Min, exp.Max, exp.Round, exp.Lower, exp.Upper, exp.Length, exp.Trim,
                          exp.Substring, exp.Concat, exp.ArrayAgg, exp.GroupConcat, exp.Greatest, exp.Least,
                          exp.Abs, exp.Floor, exp.Ceil, exp.Nullif, exp.DateTrunc, exp.CurrentDate,
                          exp.RowNumber, exp.Stddev, exp.Variance, exp.Initcap, exp.StrPosition, exp.SplitPart,
                          exp.TimeToStr, exp.Left, exp.Right, exp.CurrentTimestamp, exp.PercentileCont,
                          exp.LogicalAnd, exp.LogicalOr)):
            continue
        name = _fn_name(f)
        if name not in ALLOWED_FUNCTIONS:
            raise SqlRejected(f"function {name}() is not allowed")
    # LIMIT: added when missing, lowered when above the maximum (outermost query)
    limit = tree.args.get("limit")
    value = None
    if limit is not None:
        lit = limit.expression if isinstance(limit, exp.Limit) else limit
        try:
            value = int(lit.name)
        except (AttributeError, ValueError, TypeError) as exc:
            raise SqlRejected("LIMIT must be a number") from exc
    if value is None or value > max_rows:
        tree = tree.limit(max_rows) if hasattr(tree, "limit") else tree
    return tree.sql(dialect="postgres")


def _jsonable(v):
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return float(v)
    return v


def run_readonly(store, sql: str, timeout_ms: int = 3000, max_rows: int = MAX_ROWS) -> list[dict]:
    """Checked SQL run read-only as rag_reader. Needs a direct Postgres connection (embedded or DATABASE_URL)."""
    from psycopg.rows import dict_row

    from rag.store.transports import PostgresTransport

    safe = check(sql, max_rows)
    if not isinstance(store.transport, PostgresTransport):
        raise SqlRejected("structured (SQL) questions need a direct Postgres connection (embedded or DATABASE_URL)")
    import psycopg

    with store.transport.connection() as conn:
        try:
            with conn.transaction():
                conn.execute("set transaction read only")
                conn.execute(f"set local statement_timeout = {int(timeout_ms)}")
                conn.execute("set local role rag_reader")
                with conn.cursor(row_factory=dict_row) as cur:
                    cur.execute(safe)
                    rows = cur.fetchmany(max_rows)
        except psycopg.errors.QueryCanceled as exc:
            raise SqlRejected(f"the query ran longer than {timeout_ms} ms") from exc
        except psycopg.Error as exc:
            raise SqlRejected(f"the database refused the query: {str(exc).splitlines()[0][:160]}") from exc
    return [{k: _jsonable(v) for k, v in r.items()} for r in rows]
