"""The SQL guard: one SELECT over the allowlisted views with safe functions, LIMIT enforced; nothing else."""

import pytest

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


def test_at_least_25_attacks():
    assert len(ATTACKS) >= 25


def test_plain_selects_pass_with_a_limit():
    assert check("select doc_type, count(*) from v_documents where fiscal_year = 2023 group by doc_type") \
        .endswith("LIMIT 200")
    assert check("SELECT file_name FROM v_documents ORDER BY figure_count DESC LIMIT 5").endswith("LIMIT 5")
    assert check("select * from v_figures limit 100000").endswith("LIMIT 200")
    assert "WITH t AS" in check("with t as (select * from v_documents) select count(*) from t")
