"""The SQL guard: one SELECT over the allowlisted views with safe functions, LIMIT enforced; nothing else."""

import pytest
from sql_attacks import GUARD, all_guard_attacks

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
            "catalogs", "tables outside the views", "writes", "amplification"} <= set(GUARD)
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
