"""The SQL guard: one SELECT over the allowlisted views with safe functions, LIMIT enforced; nothing else."""

import pytest
from sql_attacks import GROWTH, GROWTH_EDGES, GUARD, all_guard_attacks

from rag.sqlguard import SqlRejected, check

ATTACKS = [
    "delete from documents",
    "DELETE FROM v_documents",
    "insert into v_documents values (1)",
    "update v_documents set title = 'x'",
    "select 1; drop table documents",
    "select * from v_documents; select 1",
    "select 1 /* ; */ ; delete from chunks",
    "select 1 -- comment\n; delete from chunks",
    "select pg_read_file('/etc/passwd')",
    "SELECT PG_READ_FILE('/etc/passwd')",
    "select \"pg_read_file\"('/etc/passwd')",
    "select pg_ls_dir('.')",
    "copy documents to '/tmp/x'",
    "copy (select 1) to program 'id'",
    "do $$ begin perform 1; end $$",
    "set role postgres",
    "reset role",
    "select set_config('role', 'postgres', false)",
    "select current_setting('is_superuser')",
    "select * from documents",
    'select * from "documents"',
    "select * from public.documents",
    "select * from pg_catalog.pg_authid",
    "select * from pg_shadow",
    "select * from information_schema.tables",
    "select * from pg_stat_activity",
    "select * from v_documents where document_id = (select id from documents limit 1)",
    "select * from v_documents for update",
    "select * into stolen from v_documents",
    "select lo_import('/etc/passwd')",
    "select dblink('host=evil', 'select 1')",
    "select nextval('x')",
    "select pg_sleep(10)",
    "select query_to_xml('select * from documents', true, true, '')",
    "select txid_current()",
    "truncate documents",
    "create table x (a int)",
    "alter role rag_reader superuser",
    "grant all on documents to rag_reader",
    "vacuum",
    "explain analyze delete from documents",
    "prepare p as delete from documents",
    "execute p",
    "call x()",
    "listen x",
    "select 1 union select pg_read_file('x')",
    "with d as (delete from documents returning *) select * from d",
    "select version()",
    "",
]


@pytest.mark.parametrize("sql", ATTACKS)
def test_attack_is_rejected(sql):
    with pytest.raises(SqlRejected):
        check(sql)


@pytest.mark.parametrize("category,sql", all_guard_attacks(), ids=lambda v: str(v)[:50])
def test_every_category_of_attack_is_rejected(category, sql):
    with pytest.raises(SqlRejected):
        check(sql)


def test_the_catalogue_covers_every_family():
    assert {"call syntax", "sql text", "settings", "locks", "sessions", "files", "large objects", "other databases",
            "catalogs", "tables outside the views", "writes", "amplification", "growth"} <= set(GUARD)
    assert sum(map(len, GUARD.values())) >= 120


LEGITIMATE = [
    "select doc_type, count(*) from v_documents where fiscal_year = 2023 group by doc_type",
    "select company, round(avg(page_count), 1), min(fiscal_year), max(fiscal_year) from v_documents "
    "group by company having count(*) > 1",
    "select extract(year from published_date), date_trunc('month', uploaded_at), to_char(uploaded_at, 'YYYY-MM') "
    "from v_documents",
    "select coalesce(company, 'unknown'), lower(title), length(title), substring(title from 1 for 10), "
    "split_part(title, ' ', 1), company || ' ' || title from v_documents",
    "select count(distinct company), count(*) filter (where doc_type = '10-K'), "
    "percentile_cont(0.5) within group (order by page_count) from v_documents",
    "select fiscal_year, row_number() over (partition by company order by fiscal_year desc) from v_documents",
    "select d.title, count(f.figure_id) as n from v_documents d left join v_figures f "
    "on f.document_id = d.document_id group by d.title order by n desc limit 3",
    "with t as (select company, count(*) n from v_documents group by 1) select * from t where n > 1",
    "select kind, count(*) from v_figures where exists (select 1 from v_documents d "
    "where d.document_id = v_figures.document_id) group by kind",
    "select file_name from v_documents where published_date > current_date - interval '365 days'",
    "select distinct on (company) company, fiscal_year from v_documents order by company, fiscal_year desc",
    "select 'it''s', 'a\\' as backslash from v_documents",
]


@pytest.mark.parametrize("sql", LEGITIMATE)
def test_questions_analysts_ask_pass(sql):
    out = check(sql)
    assert check(out) == out  # what runs is a fixpoint of the guard


def test_plain_selects_pass_with_a_limit():
    assert check("select doc_type, count(*) from v_documents where fiscal_year = 2023 group by doc_type") \
        .endswith("LIMIT 200")
    assert check("SELECT file_name FROM v_documents ORDER BY figure_count DESC LIMIT 5").endswith("LIMIT 5")
    assert check("select * from v_figures limit 100000").endswith("LIMIT 200")
    assert "WITH t AS" in check("with t as (select * from v_documents) select count(*) from t")


@pytest.mark.parametrize("family", list(GROWTH))
def test_growth_is_refused_by_family_before_it_runs(family):
    """Nesting, repetition, CTE chains, scalar subqueries, set operations, concat(), arrays, padding, patterns from
    the data and depth: each way of multiplying a question's size is refused by what it would grow to."""
    for sql in GROWTH[family]:
        with pytest.raises(SqlRejected, match="nested|grows to|pieces|pattern"):
            check(sql)


@pytest.mark.parametrize("family", list(GROWTH_EDGES))
def test_the_largest_question_of_each_family_passes(family):
    check(GROWTH_EDGES[family])


def test_growth_counts_what_the_planner_copies_and_the_executor_builds():
    from sqlglot import parse_one

    from rag.sqlguard import _check_columns, expanded_size

    def size(sql):
        return expanded_size(_check_columns(parse_one(sql, read="postgres")))

    flat = size("select heading || heading as x from v_chunks")
    assert (flat.pieces, flat.built, flat.depth) == (2, 2, 0)
    nested = size("select x || x || x as y from (select heading || heading as x from v_chunks offset 0) s")
    assert (nested.pieces, nested.built, nested.depth) == (6, 2 + 4 + 6, 1)  # 2 in s; then 4 and 6 pieces
    passed_on = size("select y from (select x as y from (select heading || heading as x from v_chunks) s) t")
    assert (passed_on.pieces, passed_on.built) == (2, 2)  # a column passed on is not built again
    scalar = size("select (select heading || heading from v_chunks limit 1) || section_type from v_chunks")
    assert scalar.pieces == 3
    union = size("select x || x from (select heading as x from v_chunks union all "
                 "select caption || caption || caption from v_figures) u")
    assert union.pieces == 6  # as wide as the widest branch
    fanout = size("select x + x + x from (select chunk_index + chunk_index as x from v_chunks) s")
    assert fanout.terms > size("select x from (select chunk_index + chunk_index as x from v_chunks) s").terms
