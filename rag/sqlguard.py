"""Structured questions as SQL, safely. Two walls, each enough on its own:

1. The guard (`check`): the statement is parsed with sqlglot and every node of its syntax tree must be of an
   allowed kind — one SELECT (or UNION / INTERSECT / EXCEPT) built from columns, literals, operators and a short
   list of plain scalar and aggregate functions. Anything the guard does not know is refused, whatever its syntax:
   a function in FROM, a schema-qualified call, attribute notation (`d.to_json`), a cast to a catalog type
   (`::regclass`), a custom operator, a recursive CTE, a string that is not a plain literal. Every relation must be
   one of the reader views or a CTE in scope, and every column must resolve to a column of its source (sqlglot's
   scope analysis and qualify). What runs is sqlglot's regeneration of the checked tree, and it must parse back to
   itself.
2. The database (`run_readonly`): the SQL runs on a connection that logs in as a reader role (rag/store/reader.py,
   sql/functions/configure_reader_role.sql): not a superuser, member of no privileged role, granted SELECT on the views and the columns they show,
   under row-level security by workspace, in a READ ONLY transaction with a statement timeout, work_mem and
   temp_file_limit of its own; the connection is reset (DISCARD ALL) before reuse.

Size, before anything runs (expanded_size): the query once every reference to a subquery's or CTE's column is
spelled out may have at most MAX_EXPANDED_TERMS terms, no value joined from more than MAX_PIECES pieces, at most
MAX_BUILT pieces joined per row, queries nested at most MAX_NESTING deep, and LIKE / regular-expression patterns
are literals of at most MAX_PATTERN_CHARS: memory and time that work_mem, temp_file_limit and the timeout do not bound (values built inside an
expression, plans copied by the planner) are bounded by construction.

Caps: LIMIT added or lowered to max_rows; the result is measured on the server, row by row as JSON, and nothing
is sent past max_bytes (the question is refused with a clear message); the statement timeout.
"""

from __future__ import annotations

import json
import logging
import re
from typing import NamedTuple

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope

from rag.errors import RagError
from rag.records import SqlRows

# The reader views and their columns (sql/views): the only relations a structured question may name.
VIEWS: dict[str, dict[str, str]] = {
    "v_documents": {c: "text" for c in ("document_id", "file_name", "title", "company", "fiscal_year",
                                        "fiscal_period", "doc_type", "published_date", "uploaded_at", "page_count",
                                        "ocr_pages", "chunk_count", "figure_count")},
    "v_chunks": {c: "text" for c in ("chunk_id", "document_id", "chunk_index", "page_start", "page_end", "heading",
                                     "section_type", "token_count")},
    "v_figures": {c: "text" for c in ("figure_id", "document_id", "page", "kind", "caption", "chart_type", "width",
                                      "height")},
}
ALLOWED_RELATIONS = set(VIEWS)

# Syntax that only structures a query or holds a value.
_STRUCTURE = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.From, exp.Join, exp.Table, exp.TableAlias,
              exp.Subquery, exp.CTE, exp.With, exp.Column, exp.Identifier, exp.Star, exp.Alias, exp.Where, exp.Group,
              exp.Having, exp.Order, exp.Ordered, exp.Limit, exp.Offset, exp.Distinct, exp.Paren, exp.Window,
              exp.WindowSpec, exp.Filter, exp.WithinGroup, exp.Tuple, exp.Array, exp.Literal, exp.Boolean, exp.Null,
              exp.Interval, exp.DataType, exp.DataTypeParam, exp.Cast)
# Operators on values (no custom OPERATOR(schema.op)).
_OPERATORS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.And, exp.Or, exp.Not, exp.Neg, exp.Add,
              exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.Like, exp.ILike, exp.Is, exp.In, exp.Between, exp.Exists,
              exp.Any, exp.All, exp.Case, exp.If, exp.DPipe, exp.RegexpLike, exp.RegexpILike)
# Plain scalar and aggregate functions, as sqlglot types them. None reads or writes anything but its arguments;
# none builds a value much larger than its arguments (no repeat, lpad, replace, string_agg, array_agg).
_FUNCTIONS = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Round, exp.Abs, exp.Ceil, exp.Floor,
              exp.Coalesce, exp.Nullif, exp.Lower, exp.Upper, exp.Length, exp.Trim, exp.Substring, exp.StrPosition,
              exp.SplitPart, exp.Concat, exp.Greatest, exp.Least, exp.Initcap, exp.Left, exp.Right, exp.Extract,
              exp.TimestampTrunc, exp.DateTrunc, exp.TimeToStr, exp.CurrentDate, exp.CurrentTimestamp, exp.Stddev,
              exp.StddevPop, exp.StddevSamp, exp.Variance, exp.VariancePop, exp.PercentileCont, exp.PercentileDisc,
              exp.RowNumber, exp.Rank, exp.DenseRank, exp.LogicalAnd, exp.LogicalOr)
# The same kind of functions where sqlglot has no type for them (exp.Anonymous), by name.
ANONYMOUS_FUNCTIONS = {"every", "age", "date_part", "now", "btrim", "ltrim", "rtrim", "strpos", "substr",
                       "ceiling", "sign", "trunc", "char_length", "to_char"}
_CAST_TYPES = {exp.DataType.Type[t] for t in ("INT", "BIGINT", "SMALLINT", "DECIMAL", "DOUBLE", "FLOAT", "TEXT",
                                               "VARCHAR", "CHAR", "DATE", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL",
                                               "BOOLEAN")}
_DATE_UNIT = re.compile(r"(?i)(year|quarter|month|week|day|hour|minute|second|epoch|dow|doy|decade|century)s?")
_ALLOWED_NODES = _STRUCTURE + _OPERATORS + _FUNCTIONS
MAX_ROWS = 200
MAX_SQL_CHARS = 8000
# A question's size once its subqueries' columns are spelled out (expanded_size). Questions analysts ask expand
# to tens of terms and join a label or two; the bounds leave room for far more. A piece is a column value, a
# literal (at most MAX_SQL_CHARS) or a padded char(n) (n at most 1000).
MAX_EXPANDED_TERMS = 2000
MAX_PIECES = 17
MAX_BUILT = 1000
MAX_NESTING = 6
MAX_PATTERN_CHARS = 500
logging.getLogger("sqlglot").setLevel(logging.ERROR)  # "falling back to a Command" is ours to report


class SqlRejected(RagError):
    """The SQL is not a single safe SELECT over the allowed views, or its result broke a cap."""


def _describe(node: exp.Expression) -> str:
    if isinstance(node, exp.Anonymous):
        return f"function {str(node.name).lower()}()"
    if isinstance(node, exp.Func):
        return f"function {node.sql_name().lower()}()"
    return f"{type(node).__name__.upper()} ({node.sql(dialect='postgres')[:60]})"


def _check_node(node: exp.Expression) -> None:
    """Refuse any node whose kind is not on the lists, and the few allowed kinds' dangerous forms."""
    if isinstance(node, exp.Anonymous):
        if str(node.name).lower() not in ANONYMOUS_FUNCTIONS:
            raise SqlRejected(f"{_describe(node)} is not allowed")
        return
    if isinstance(node, exp.Var):
        if isinstance(node.parent, (exp.Interval, exp.Extract, exp.TimestampTrunc, exp.DateTrunc, exp.Anonymous)) \
                and _DATE_UNIT.fullmatch(node.name):
            return
        raise SqlRejected(f"the keyword {node.name!r} is not allowed here")
    if not isinstance(node, _ALLOWED_NODES):
        raise SqlRejected(f"{_describe(node)} is not allowed")
    if isinstance(node, exp.DataType) and node.this not in _CAST_TYPES:
        raise SqlRejected(f"a value of type {node.sql(dialect='postgres')} is not allowed")
    if isinstance(node, exp.DataTypeParam):  # char(10485760) pads a value to any size
        lit = node.this
        if not (isinstance(lit, exp.Literal) and lit.is_int and int(lit.name) <= 1000):
            raise SqlRejected(f"type sizes above 1000 are not allowed ({node.sql(dialect='postgres')})")
    if isinstance(node, exp.Array) and not all(isinstance(e, (exp.Literal, exp.Neg, exp.Null))
                                               for e in node.expressions):
        raise SqlRejected("ARRAY of anything but literals is not allowed")
    if isinstance(node, exp.Select):
        if node.args.get("locks"):
            raise SqlRejected("row locks (FOR UPDATE / SHARE) are not allowed")
        if node.args.get("into"):
            raise SqlRejected("SELECT INTO is not allowed")
    if isinstance(node, exp.With) and node.args.get("recursive"):
        raise SqlRejected("recursive queries are not allowed")
    if isinstance(node, exp.Table):
        if not isinstance(node.this, exp.Identifier):
            raise SqlRejected(f"only the views {', '.join(sorted(VIEWS))} may be read, not {node.sql()[:60]}")
        if node.args.get("db") or node.args.get("catalog"):
            raise SqlRejected(f"schema-qualified relation {node.sql()} is not allowed")
        if any(node.args.get(k) for k in ("joins", "pivots", "laterals", "sample", "hints", "version", "when")):
            raise SqlRejected(f"{node.sql()[:60]} is not allowed")
    if isinstance(node, exp.Join) and (node.args.get("method") or "").upper() == "LATERAL":
        raise SqlRejected("LATERAL is not allowed")


def _folded(name: str) -> str:
    """A relation or CTE name as PostgreSQL resolves it, given that quoted names must be lower case already
    (_check_identifiers): sqlglot compares names as written, PostgreSQL folds unquoted ones to lower case."""
    return name.lower()


def _check_identifiers(tree: exp.Expression) -> None:
    """A quoted identifier with capitals names another object than the same word unquoted; refuse it, so that
    every name compares the same way for the guard and for PostgreSQL."""
    for ident in tree.find_all(exp.Identifier):
        if ident.quoted and ident.name != ident.name.lower():
            raise SqlRejected(f'the quoted name "{ident.name}" is not allowed; write names in lower case')


def _check_relations(tree: exp.Expression) -> None:
    """Every relation is a reader view or a CTE visible in its own scope (a CTE of an inner query does not make
    the same name safe outside it)."""
    seen: set[int] = set()
    try:
        scopes = traverse_scope(tree)
    except Exception as exc:
        raise SqlRejected(f"the query's structure could not be analysed: {str(exc).splitlines()[0][:120]}") from exc
    for scope in scopes:
        ctes = {_folded(k) for k in scope.cte_sources}
        for table in scope.tables:
            seen.add(id(table))
            name = _folded(table.name)
            if name in ctes:
                continue
            if name not in ALLOWED_RELATIONS:
                raise SqlRejected(f"relation {table.name!r} is not allowed; use {', '.join(sorted(VIEWS))}")
    stray = [t for t in tree.find_all(exp.Table) if id(t) not in seen]
    if stray:
        raise SqlRejected(f"relation {stray[0].sql()[:60]} is not allowed here")


def _check_columns(tree: exp.Expression) -> exp.Expression:
    """Every column resolves to a column of its source; `alias.name` that is not a column would be a function
    call in PostgreSQL's attribute notation. Returns the qualified copy (stars expanded, every column with its
    source)."""
    try:
        return qualify(tree.copy(), schema=VIEWS, dialect="postgres", validate_qualify_columns=True,
                       quote_identifiers=False, identify=False)
    except Exception as exc:
        raise SqlRejected(f"unknown column or name: {str(exc).splitlines()[0][:160]}") from exc


def _check_patterns(tree: exp.Expression) -> None:
    """The pattern of LIKE / ILIKE / ~ / ~* is a literal: a pattern built from the data (or from a value the query
    grows) is compiled at run time, in memory the guard cannot bound."""
    for node in tree.find_all(exp.Like, exp.ILike, exp.RegexpLike, exp.RegexpILike):
        pattern = node.expression
        if isinstance(pattern, (exp.Any, exp.All)) and isinstance(pattern.this, exp.Array):
            pattern = pattern.this
        if isinstance(pattern, exp.Array):
            ok = all(isinstance(e, exp.Literal) and e.is_string for e in pattern.expressions)
        else:
            ok = isinstance(pattern, exp.Literal) and pattern.is_string
        if not ok:
            raise SqlRejected(f"the pattern of {node.sql(dialect='postgres')[:60]} must be a quoted literal")
        longest = max((len(e.name) for e in pattern.find_all(exp.Literal)), default=0)
        if longest > MAX_PATTERN_CHARS:  # a regular expression compiles to far more than its text (191 MB for 7,800)
            raise SqlRejected(f"a pattern of {longest:,} characters; at most {MAX_PATTERN_CHARS} are allowed")


class Growth(NamedTuple):
    """A question's size once every reference to a subquery's or CTE's column is replaced by the expression that
    defines it (expanded_size)."""
    terms: int  # nodes of the expanded query: what the planner copies when it pulls subqueries up
    pieces: int  # the most pieces (column values, literals, padded values) any one value is joined from
    built: int  # pieces allocated by every join of every value of a row, intermediates included
    depth: int  # how deeply its queries nest


def expanded_size(qualified: exp.Expression) -> Growth:
    """How large a qualified query grows, whatever its syntax (Growth).

    PostgreSQL's planner pulls subqueries up by copying each referenced expression into every place that names it,
    and the executor evaluating `x || x` over `x = y || y` builds a value as long as all its pieces, keeping every
    intermediate value until the row is done (a chain of n joins allocates about n²/2 pieces). Ten references a
    level, seven levels deep, is 10^7 copies (3.4 GB in one backend, measured). Joining (`||`, concat()) is the
    only allowed operation whose result is larger than its largest argument (the others keep, shorten or pick a
    value, or pad it to at most 1000 characters), so bounds on the pieces of a value and on the pieces built per
    row bound every value and the memory a question can take, and a bound on the terms bounds its plan."""
    return _Expansion(qualified).measure()


class _Expansion:
    """The walk behind expanded_size: scopes innermost first, each output column's (terms, pieces) kept for the
    columns that name it further out."""

    def __init__(self, qualified: exp.Expression):
        self.scopes = traverse_scope(qualified)
        self.by_expr = {id(s.expression): s for s in self.scopes}
        self.outputs: dict[int, list[tuple[str, tuple[int, int]]]] = {}
        self.widest = 1

    @staticmethod
    def _source_of(scope, alias: str):
        while scope is not None:
            if alias in scope.sources:
                return scope.sources[alias]
            scope = scope.parent
        return None

    def _out(self, scope, name: str | None) -> tuple[int, int]:
        """(terms, pieces) of a subquery's output column (its widest one when not named)."""
        cols = self.outputs.get(id(scope)) or [("", (1, 1))]
        if name is not None:
            for n, w in cols:
                if n == name:
                    return w
        return max(w[0] for _, w in cols), max(w[1] for _, w in cols)

    def weight(self, node: exp.Expression, scope, top: bool = False) -> tuple[int, int, int]:
        """(terms, pieces, built) of an expression in its scope."""
        inner = self.by_expr.get(id(node))
        if inner is not None and not top:
            if inner.is_subquery:  # a scalar, IN or EXISTS subquery is used here as a value: its widest one
                t, p = self._out(inner, None)
                return t + 1, p, 0
            return 1, 1, 0  # a FROM subquery, a CTE or a set operation's branch: its own scope counts it, and
            # wherever a column names it
        if isinstance(node, exp.Column):
            src = self._source_of(scope, node.table)
            if hasattr(src, "expression"):
                t, p = self._out(src, node.name)
                return t, p, 0
            return 1, 1, 0
        parts = [self.weight(child, scope) for child in node.iter_expressions()]
        terms = 1 + sum(t for t, _, _ in parts)
        built = sum(b for _, _, b in parts)
        if isinstance(node, (exp.DPipe, exp.Concat)):
            pieces = sum(p for _, p, _ in parts)
            built += pieces
        else:
            pieces = max((p for _, p, _ in parts), default=1)
        self.widest = max(self.widest, pieces)
        return terms, pieces, built

    def _keep_outputs(self, scope) -> None:
        if isinstance(scope.expression, exp.Select):
            self.outputs[id(scope)] = [(sel.alias_or_name, self.weight(sel, scope)[:2])
                                       for sel in scope.expression.selects]
        elif branch_scopes := (getattr(scope, "set_operation_scopes", None)  # sqlglot ≥ 26
                               or getattr(scope, "union_scopes", None)):  # UNION / INTERSECT / EXCEPT: each
            branches = [self.outputs.get(id(u)) or [] for u in branch_scopes]  # column as wide as its widest branch
            self.outputs[id(scope)] = [(name, (max(b[i][1][0] for b in branches if i < len(b)),
                                               max(b[i][1][1] for b in branches if i < len(b))))
                                       for i, (name, _) in enumerate(branches[0])]

    def measure(self) -> Growth:
        terms = built = depth = 0
        for scope in self.scopes:  # innermost first
            t, _, b = self.weight(scope.expression, scope, top=True)
            terms, built = terms + t, built + b
            self._keep_outputs(scope)
            d, parent = 0, scope.parent
            while parent is not None:
                d, parent = d + 1, parent.parent
            depth = max(depth, d)
        return Growth(terms, self.widest, built, depth)


def _check_growth(qualified: exp.Expression) -> None:
    try:
        g = expanded_size(qualified)
    except RecursionError as exc:
        raise SqlRejected("the SQL is nested too deeply") from exc
    spelled = "once its subqueries' columns are spelled out"
    if g.depth > MAX_NESTING:
        raise SqlRejected(f"queries nested {g.depth} deep; at most {MAX_NESTING} levels are allowed")
    if g.terms > MAX_EXPANDED_TERMS:
        raise SqlRejected(f"the query grows to {g.terms:,} terms {spelled} (at most {MAX_EXPANDED_TERMS:,}); "
                          "name each column fewer times, or nest less")
    if g.pieces > MAX_PIECES:
        raise SqlRejected(f"the query joins a value from {g.pieces:,} pieces {spelled} (at most {MAX_PIECES}); "
                          "build shorter values")
    if g.built > MAX_BUILT:
        raise SqlRejected(f"the query joins {g.built:,} pieces of text for each row {spelled} (at most "
                          f"{MAX_BUILT:,}); build fewer or shorter values")


def _validate(tree: exp.Expression) -> None:
    if not isinstance(tree, (exp.Select, exp.Union, exp.Intersect, exp.Except)):
        raise SqlRejected(f"only SELECT is allowed, got {type(tree).__name__.upper()}")
    for node in tree.walk():
        _check_node(node)
    _check_identifiers(tree)
    _check_patterns(tree)
    _check_relations(tree)
    _check_growth(_check_columns(tree))


def _parse_one(sql: str) -> exp.Expression:
    try:
        statements = [s for s in sqlglot.parse(sql, read="postgres") if s is not None]
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as exc:
        raise SqlRejected(f"not valid SQL: {str(exc).splitlines()[0][:120]}") from exc
    except RecursionError as exc:
        raise SqlRejected("the SQL is nested too deeply") from exc
    if len(statements) != 1:
        raise SqlRejected(f"exactly one statement is allowed, got {len(statements)}")
    return statements[0]


def _with_limit(tree: exp.Expression, max_rows: int) -> exp.Expression:
    limit = tree.args.get("limit")
    value = None
    if limit is not None:
        lit = limit.expression if isinstance(limit, exp.Limit) else limit
        if not (isinstance(lit, exp.Literal) and lit.is_int):
            raise SqlRejected("LIMIT must be a number")
        value = int(lit.name)
    if value is None or value > max_rows:
        tree = tree.limit(max_rows)
    return tree


def check(sql: str, max_rows: int = MAX_ROWS) -> str:
    """The SQL to run (LIMIT added or lowered), or SqlRejected saying why."""
    try:
        return _check(sql, max_rows)
    except RecursionError as exc:
        raise SqlRejected("the SQL is nested too deeply") from exc


def _check(sql: str, max_rows: int) -> str:
    if not sql or not sql.strip():
        raise SqlRejected("empty SQL")
    if "\x00" in sql:
        raise SqlRejected("NUL byte in SQL")
    if len(sql) > MAX_SQL_CHARS:
        raise SqlRejected(f"the SQL is longer than {MAX_SQL_CHARS} characters")
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SqlRejected("the SQL is not valid UTF-8 text") from exc
    tree = _parse_one(sql)
    _validate(tree)
    out = _with_limit(tree, max_rows).sql(dialect="postgres")
    # What runs is the regenerated text: it must parse back to the same tree and pass the same checks.
    again = _parse_one(out)
    _validate(again)
    if again.sql(dialect="postgres") != out:
        raise SqlRejected("the SQL does not survive a parse round trip; write it more plainly")
    return out


def _wrap(safe: str, max_rows: int, max_bytes: int) -> str:
    """The checked query, measured on the server: each row as JSON text with the running total of bytes; a row past
    the cap is not sent (its JSON is null), only its running total."""
    return (
        f"select case when s.total <= {int(max_bytes)} then s.j end as j, s.total from ("
        " select r.j, sum(octet_length(r.j)) over w as total, row_number() over w as n from ("
        f"  select row_to_json(q)::text as j from ({safe}) as q) as r"
        " window w as (rows between unbounded preceding and current row)) as s"
        f" order by s.n limit {int(max_rows) + 1}"
    )


def _row(text: str) -> dict:
    """A JSON row; a column name that repeats keeps every value (count, count_2, …)."""
    def pairs(items):
        out: dict = {}
        for k, v in items:
            key, n = k, 1
            while key in out:
                n += 1
                key = f"{k}_{n}"
            out[key] = v
        return out

    return json.loads(text, object_pairs_hook=pairs)


def run_readonly(store, sql: str, timeout_ms: int | None = None, max_rows: int | None = None,
                 max_bytes: int | None = None) -> SqlRows:
    """Checked SQL run read-only on the reader role's connection, within every cap. Raises SqlRejected only."""
    try:
        return _run_readonly(store, sql, timeout_ms, max_rows, max_bytes)
    except SqlRejected:
        raise
    except Exception as exc:  # whatever else: one line for the caller, never a traceback
        raise SqlRejected(f"the query could not be run ({type(exc).__name__}: {str(exc)[:120]})") from exc


def _run_readonly(store, sql: str, timeout_ms: int | None, max_rows: int | None, max_bytes: int | None) -> SqlRows:
    import psycopg

    from rag.errors import StoreError
    from rag.store.transports import one_line

    caps = store.settings.sql
    timeout_ms = int(timeout_ms or caps.timeout_ms)
    max_rows = int(max_rows or caps.max_rows)
    max_bytes = int(max_bytes or caps.max_bytes)
    safe = check(sql, max_rows)
    query = _wrap(safe, max_rows, max_bytes)
    try:
        pool = store.reader()
    except StoreError as exc:
        raise SqlRejected(str(exc)) from exc
    rows: SqlRows = []
    try:
        with pool.connection() as conn:
            try:
                with conn.transaction():
                    conn.execute("set transaction read only")
                    conn.execute(f"set local statement_timeout = {timeout_ms}")
                    with conn.cursor() as cur:
                        cur.execute(query)
                        for text, total in cur:
                            if text is None or total > max_bytes:
                                raise SqlRejected(f"the result is larger than {max_bytes // 1000:,} kB; select fewer "
                                                  "or shorter columns, or fewer rows")
                            rows.append(_row(text))
                            if len(rows) >= max_rows:
                                break
            except psycopg.errors.QueryCanceled as exc:
                raise SqlRejected(f"the query ran longer than {timeout_ms} ms") from exc
            except psycopg.errors.ConfigurationLimitExceeded as exc:
                raise SqlRejected("the query needs more temporary space than a question may use") from exc
            except psycopg.errors.ProgramLimitExceeded as exc:
                raise SqlRejected("the query builds a value too large for a question") from exc
            except psycopg.Error as exc:
                raise SqlRejected(f"the database refused the query: {one_line(exc)[:160]}") from exc
    except StoreError as exc:
        raise SqlRejected(str(exc)) from exc
    return rows
