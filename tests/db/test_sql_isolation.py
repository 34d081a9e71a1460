"""Structured questions and workspaces, secure by construction — tested by category on the real embedded Postgres:
the reader role's own privileges (read from the catalog), every family of attack run straight on the reader's login
(as if the guard had let it through), state that would outlive a question, size amplification, and workspace
spoofing by anon, authenticated and the reader roles."""

from __future__ import annotations

import psycopg
import pytest
from psycopg.rows import dict_row
from roles import as_role
from sql_attacks import GROWTH_EDGES, all_wall_attacks, run_measured

from rag.errors import StoreError
from rag.sqlguard import SqlRejected, _wrap, run_readonly
from rag.store.reader import _PRIVILEGE_CHECK, privilege_problems, reader_url


def _reader(store, role: str = "rag_query") -> psycopg.Connection:
    return psycopg.connect(reader_url(store.transport.url, role), autocommit=True)


def _owner(store, sql: str, params=None):
    with store.transport.connection() as conn:
        return conn.execute(sql, params).fetchall()


_as = as_role


@pytest.fixture
def teams(clean_store, ingest, pdfs):
    """paper.pdf shared, report_final_v2.pdf (a 10-K) in team-a, esg.pdf in team-b."""
    assert ingest(pdfs["10k_2022"]).ok and ingest(pdfs["esg"]).ok and ingest(pdfs["paper"]).ok
    _owner(clean_store, "update documents set workspace = 'team-a' where file_name = 'report_final_v2.pdf' "
                        "returning id")
    _owner(clean_store, "update documents set workspace = 'team-b' where file_name = 'esg.pdf' returning id")
    return clean_store


# -- the reader role's own privileges, from the catalog -------------------------------------------------------

def test_reader_logins_cannot_become_anything_else(store):
    team = store.admin_rpc("ensure_workspace_reader", {"p_workspace": "team-x"})
    for role in ("rag_query", team):
        with _reader(store, role) as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(_PRIVILEGE_CHECK).fetchone()
            assert row["rolname"] == role and privilege_problems(row) == []
            assert row["member_of"] == ["rag_reader"] and row["group_member_of"] == []
            others = [r["rolname"] for r in cur.execute(
                "select rolname from pg_roles where rolname not in (session_user, 'rag_reader')").fetchall()]
            assert "postgres" in others and "service_role" in others
            for other in others:  # every other role: the superuser, the API roles, pg_read_server_files, …
                with pytest.raises(psycopg.Error), conn.transaction():
                    conn.execute(f'set local role "{other}"')


def test_reader_privileges_are_the_views_and_their_columns_only(store):
    with _reader(store) as conn:
        tables = [r[0] for r in conn.execute("""select c.relname from pg_class c join pg_namespace n
                     on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'v', 'm', 'S')""")]
        for t in tables:
            full = conn.execute("select has_table_privilege(%s, 'SELECT')", (f"public.{t}",)).fetchone()[0]
            assert full == t.startswith("v_") or t == "reader_roles", t  # reader_roles: its own row (policy)
            for priv in ("INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"):
                assert not conn.execute("select has_table_privilege(%s, %s)", (f"public.{t}", priv)).fetchone()[0]
        cols = dict(conn.execute("""select table_name, array_agg(column_name::text order by column_name)
                                      from information_schema.column_privileges
                                     where grantee = 'rag_reader' and table_name in ('documents', 'chunks', 'figures')
                                     group by 1""").fetchall())
        assert "content" not in cols["chunks"] and "embedding" not in cols["chunks"]
        assert not {"sha256", "meta", "workspace"} & set(cols["documents"])
        assert "image" not in cols["figures"] and "ocr_text" not in cols["figures"]
        ours = [r[0] for r in conn.execute("""select p.oid::regprocedure::text from pg_proc p
                    join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'
                     and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
                     and has_function_privilege(p.oid, 'EXECUTE')""")]
        assert ours == ["current_workspace()"]
        for fn in ("pg_read_file(text)", "set_config(text,text,boolean)", "pg_advisory_lock(bigint)",
                   "pg_terminate_backend(integer,bigint)", "lo_import(text)", "pg_ls_dir(text)"):
            assert not conn.execute("select has_function_privilege(%s, 'EXECUTE')", (fn,)).fetchone()[0], fn
        config = conn.execute("select unnest(setconfig) from pg_db_role_setting "
                              "where setrole = 'rag_query'::regrole").fetchall()
        settings = dict(c[0].split("=", 1) for c in config)
        assert settings["default_transaction_read_only"] == "on" and settings["work_mem"] == "4MB"
        assert settings["temp_file_limit"] == "16MB" and settings["statement_timeout"] == "5s"


# -- every family of attack, straight on the reader's login -------------------------------------------------

@pytest.mark.parametrize("category,sql", all_wall_attacks(), ids=lambda v: str(v)[:48])
def test_the_database_refuses_what_the_guard_would_refuse(teams, category, sql):
    with _reader(teams) as conn:
        with pytest.raises(psycopg.Error), conn.transaction():
            conn.execute(sql)
    assert _owner(teams, "select count(*) from documents")[0][0] == 3


def test_the_reader_never_ends_another_session(store):
    with store.transport.connection() as owner:
        pid = owner.info.backend_pid
        with _reader(store) as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("select pg_terminate_backend(%s)", (pid,))
        assert owner.execute("select 1").fetchone() == (1,)


# -- nothing outlives a question ----------------------------------------------------------------------------

def test_session_state_does_not_outlive_a_question(teams):
    pool = teams.reader()
    pids = set()
    for _ in range(3):  # the pool has two connections: poison both
        with pool.connection() as conn:
            pids.add(conn.info.backend_pid)
            conn.execute("set statement_timeout = 1")
            conn.execute("set work_mem = '512MB'")
            conn.execute("set rag.workspace = 'team-a'")
            conn.execute("prepare p as select 1")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("select pg_advisory_lock(7212001)")
    for _ in range(3):
        with pool.connection() as conn:
            assert conn.execute("show statement_timeout").fetchone()[0] != "1ms"
            assert conn.execute("show work_mem").fetchone()[0] == "4MB"
            assert conn.execute("select current_setting('rag.workspace', true)").fetchone()[0] in (None, "")
            assert conn.execute("select count(*) from pg_prepared_statements").fetchone()[0] == 0
    rows = run_readonly(teams, "select count(*) as n from v_documents")
    assert rows == [{"n": 1}]  # the shared paper only
    assert teams.list_documents()  # the owner's connections were never touched


def test_what_a_reader_changes_on_its_own_role_does_not_stick(store, settings):
    """A role may ALTER its own defaults and password; the login options win over them, and the owner puts them
    back whenever the app opens the reader pool."""
    from rag.store import open_store

    with _reader(store) as conn:
        conn.execute("set default_transaction_read_only = off")
        for sql in ("alter role rag_query set row_security = off", "alter role rag_query set work_mem = '1GB'",
                    "alter role rag_query set client_encoding = 'SQL_ASCII'",
                    "alter role rag_query set search_path = pg_temp", "alter role rag_query reset statement_timeout"):
            conn.execute(sql)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # large objects persist: not for readers
            conn.execute("select lo_from_bytea(0, 'x')")
    st = open_store(settings)
    try:
        assert len(run_readonly(st, "select count(*) as n from v_documents")) == 1
        with st.reader().connection() as conn:
            assert conn.execute("show work_mem").fetchone()[0] == "4MB"
            assert conn.execute("show row_security").fetchone()[0] == "on"
        config = dict(c[0].split("=", 1) for c in _owner(store, "select unnest(setconfig) from pg_db_role_setting "
                                                                "where setrole = 'rag_query'::regrole"))
        assert config["work_mem"] == "4MB" and config["statement_timeout"] == "5s" and "row_security" not in config
    finally:
        st.close()
        _owner(store, "select configure_reader_role('rag_query'), 1")


def test_no_one_but_a_migrator_holds_the_migration_lock(store):
    from rag.store import migrations

    with _reader(store) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
            conn.execute("lock table schema_migrations in exclusive mode")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("select pg_advisory_lock(7212001)")
        with store.transport.connection() as other:
            assert migrations.migrate(other, lock_timeout_s=2) == []  # not blocked by the reader


def test_a_held_migration_lock_is_one_clear_line_after_the_timeout(store):
    from rag.store import migrations

    with store.transport.connection() as holder, holder.transaction():
        holder.execute("lock table schema_migrations in exclusive mode")
        with store.transport.connection() as other, pytest.raises(StoreError) as err:
            migrations.migrate(other, lock_timeout_s=1)
    assert "migration lock" in str(err.value) and "\n" not in str(err.value)


# -- caps ---------------------------------------------------------------------------------------------------

def test_rows_are_capped(teams):
    _owner(teams, "update documents set workspace = null returning id")
    rows = run_readonly(teams, "select a.chunk_id from v_chunks a, v_chunks b, v_chunks c")
    assert len(rows) == 200


def test_bytes_are_capped_with_a_clear_message(teams):
    with pytest.raises(SqlRejected, match="larger than 2 kB"):
        run_readonly(teams, "select a.heading, a.section_type, b.chunk_id from v_chunks a, v_chunks b",
                     max_bytes=2000)


def test_a_huge_value_never_leaves_the_server(teams):
    with teams.reader().connection() as conn:  # the byte measurement runs on the server, before sending
        rows = conn.execute(_wrap("select repeat('x', 5000000) as big", 200, 1_000_000)).fetchall()
    assert rows[0][0] is None and rows[0][1] > 1_000_000


def test_temp_files_and_time_are_capped_for_the_reader(teams):
    with teams.reader().connection() as conn:
        with pytest.raises(psycopg.errors.ConfigurationLimitExceeded), conn.transaction():
            conn.execute("select count(*) from (select g from generate_series(1, 3000000) g order by g desc) s")
    with pytest.raises(SqlRejected, match="longer than"):
        run_readonly(teams, "select count(*) from v_chunks a, v_chunks b, v_chunks c, v_chunks d, v_chunks e, "
                     "v_chunks f, v_chunks g, v_chunks h", timeout_ms=300)


@pytest.mark.parametrize("family", list(GROWTH_EDGES))
def test_the_largest_question_the_guard_lets_through_stays_bounded(teams, family):
    """Each family's largest question that passes the guard, run as run_readonly runs it: the backend's peak
    memory stays under 256 MB and the question ends within twice its timeout (finished or cancelled)."""
    _owner(teams, "update documents set workspace = null returning id")
    timeout_ms = teams.settings.sql.timeout_ms
    m = run_measured(teams, GROWTH_EDGES[family], timeout_ms)
    assert m["peak_mb"] < 256, m
    assert m["seconds"] < 2 * timeout_ms / 1000, m


# -- workspaces -----------------------------------------------------------------------------------------------

def test_views_run_with_the_callers_rights(store):
    opts = dict(_owner(store, "select relname, reloptions from pg_class where relname like 'v\\_%' and relkind = 'v'"))
    assert all("security_invoker=true" in (o or []) for o in opts.values()) and len(opts) == 3


def test_the_shared_reader_sees_shared_documents_whatever_it_sets(teams):
    with _reader(teams) as conn:
        base = {r[0] for r in conn.execute("select file_name from v_documents")}
        assert base == {"paper.pdf"}
        conn.execute("set rag.workspace = 'team-a'")
        conn.execute("""set request.jwt.claims = '{"workspace": "team-a"}'""")
        conn.execute("set role rag_reader")
        assert {r[0] for r in conn.execute("select file_name from v_documents")} == base
        ids = {r[0] for r in conn.execute("select distinct document_id from v_chunks")} | \
            {r[0] for r in conn.execute("select distinct document_id from v_figures")}
        assert ids == {r[0] for r in conn.execute("select document_id from v_documents")}
        assert conn.execute("select count(*) from documents").fetchone()[0] == 1  # RLS on the base table too


def test_a_workspace_reader_sees_its_workspace_and_never_the_other(teams):
    role = teams.admin_rpc("ensure_workspace_reader", {"p_workspace": "team-b"})
    with _reader(teams, role) as conn:
        seen = {r[0] for r in conn.execute("select file_name from v_documents")}
        assert seen == {"paper.pdf", "esg.pdf"}
        conn.execute("set rag.workspace = 'team-a'")
        conn.execute("""set request.jwt.claims = '{"workspace": "team-a"}'""")
        assert {r[0] for r in conn.execute("select file_name from v_documents")} == seen
        with pytest.raises(psycopg.Error):
            conn.execute("select set_config('rag.workspace', 'team-a', false)")


def test_the_app_runs_structured_questions_as_its_workspaces_reader(teams, settings):
    from rag.store import open_store

    s = settings.model_copy(deep=True)
    s.db.workspace = "team-a"
    st = open_store(s)
    try:
        rows = run_readonly(st, "select file_name from v_documents order by 1")
        assert rows == [{"file_name": "paper.pdf"}, {"file_name": "report_final_v2.pdf"}]
    finally:
        st.close()


def test_anon_and_authenticated_see_only_their_claims_workspace(teams):
    s = teams
    assert {r[1] for r in _as(s, "anon", "select * from list_documents()")} == {"paper.pdf"}
    b = {r[1] for r in _as(s, "authenticated", "select * from list_documents()", claims='{"workspace": "team-b"}')}
    assert b == {"paper.pdf", "esg.pdf"}
    hits = _as(s, "authenticated", """select file_name from match_chunks(
                   (select embedding from chunks limit 1), 'net sales purchases emissions widgets', 50, 50)""",
               claims='{"workspace": "team-b"}')
    assert hits and "report_final_v2.pdf" not in {h[0] for h in hits}
    for role in ("anon", "authenticated"):  # spoofing the claim from inside: set_config is not theirs
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            _as(s, role, """select set_config('request.jwt.claims', '{"workspace": "team-a"}', true)""",
                claims='{"workspace": "team-b"}')
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            _as(s, role, "select set_config('rag.workspace', 'team-a', true)")


def test_vocabulary_is_per_workspace(teams):
    only_a = [r[0] for r in _owner(teams, """select lexeme from term_stats where workspace = 'team-a'
                 except select lexeme from term_stats where workspace <> 'team-a'""")]
    assert len(only_a) > 20
    for role, claims in (("anon", None), ("authenticated", '{"workspace": "team-b"}')):
        seen = _as(teams, role, "select count(*) from term_stats where lexeme = any(%s)", (only_a,), claims=claims)
        assert seen[0][0] == 0
    seen = _as(teams, "authenticated", "select count(*) from term_stats where lexeme = any(%s)", (only_a,),
               claims='{"workspace": "team-a"}')
    assert seen[0][0] == len(only_a)
    # counts follow deletes and moves
    total = _owner(teams, "select sum(ndoc) from term_stats")[0][0]
    _owner(teams, "update documents set workspace = 'team-c' where workspace = 'team-a' returning id")
    assert _owner(teams, "select count(*) from term_stats where workspace = 'team-a'")[0][0] == 0
    assert _owner(teams, "select sum(ndoc) from term_stats")[0][0] == total
    _owner(teams, "delete from documents where workspace = 'team-c' returning id")
    assert _owner(teams, "select coalesce(sum(ndoc), 0) from term_stats where workspace = 'team-c'")[0][0] == 0


def test_a_file_is_unique_per_workspace(clean_store, settings, embedder, pdfs):
    from rag.ingest.pipeline import ingest_file
    from rag.store import open_store

    stores = {}
    for ws in ("team-a", "team-b", None):
        s = settings.model_copy(deep=True)
        s.db.workspace = ws
        stores[ws] = (open_store(s), s)
    try:
        first = {ws: ingest_file(pdfs["esg"], st, embedder, s) for ws, (st, s) in stores.items()}
        assert all(r.ok and not r.already_ingested for r in first.values())
        assert len({r.document_id for r in first.values()}) == 3
        again = ingest_file(pdfs["esg"], *stores["team-b"][:1], embedder, stores["team-b"][1])
        assert again.already_ingested and again.document_id == first["team-b"].document_id
    finally:
        for st, _ in stores.values():
            st.close()


READER_CALLS = {
    "list_documents": "select * from list_documents()",
    "document_by_sha256": "select document_by_sha256('x')",
    "related_documents": "select * from related_documents(1)",
    "related_documents_graph": "select * from related_documents_graph(1, 3)",
    "get_store_info": "select get_store_info()",
    "doctor": "select * from doctor('all-MiniLM-L6-v2', 384)",
    "match_chunks": "select * from match_chunks((select embedding from chunks limit 1), 'net sales', 5, 10)",
    "match_chunks_cosine": "select * from match_chunks_cosine((select embedding from chunks limit 1), 5)",
    "match_figures": "select * from match_figures((select embedding from chunks limit 1), 3)",
    "figures_numbered": "select * from figures_numbered('3', array[1, 2]::bigint[])",
    "get_figure_image": "select get_figure_image((select min(id) from figures))",
    "chunk_embeddings": "select * from chunk_embeddings(array[1, 2]::bigint[])",
    "terms_missing": "select * from terms_missing(array['widgets'])",
    "get_document_file": "select get_document_file((select min(id) from documents))",
    "current_workspace": "select current_workspace()",
    "visible_document": "select visible_document(1)",
    "issuer_names": "select * from issuer_names()",
    "match_facts": "select * from match_facts('net sales')",
}


def test_every_function_granted_to_readers_works_for_them(teams):
    for role in ("anon", "authenticated"):
        granted = {r[0] for r in _owner(teams, """select p.proname from pg_proc p join pg_namespace n
                      on n.oid = p.pronamespace where n.nspname = 'public'
                       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
                       and has_function_privilege(%s, p.oid, 'EXECUTE')""", (role,))}
        assert granted == set(READER_CALLS), granted ^ set(READER_CALLS)
        for sql in READER_CALLS.values():
            _as(teams, role, sql, claims='{"workspace": "team-b"}')  # raises on permission denied
    files = _as(teams, "anon", "select document_id from document_files")
    assert {f[0] for f in files} <= {r[0] for r in _owner(teams, "select id from documents where workspace is null")}


# -- the app's own calls run under row-level security (rag_app) ---------------------------------------------

def _app(settings, workspace):
    from rag.store import open_store

    s = settings.model_copy(deep=True)
    s.db.workspace = workspace
    return open_store(s)


def test_the_app_sees_shared_and_its_own_workspace_only(teams, settings, embedder):
    from rag.retrieve.pipeline import retrieve

    assert teams.transport.app_role == "rag_app"
    a, b = _app(settings, "team-a"), _app(settings, "team-b")
    try:
        assert {d.file_name for d in a.list_documents()} == {"paper.pdf", "report_final_v2.pdf"}
        assert {d.file_name for d in b.list_documents()} == {"paper.pdf", "esg.pdf"}
        assert {d.file_name for d in teams.list_documents()} == {"paper.pdf"}  # no workspace: the shared ones
        q = embedder.encode_query("What were the net sales and purchases of property, plant and equipment?")
        hits = b.match_chunks(q, "net sales purchases of property plant equipment widgets", 50, 50)
        assert hits and "report_final_v2.pdf" not in {h.file_name for h in hits}
        out = retrieve(b, embedder, "What were Acme Widgets' net sales in 2022?", settings.retrieval)
        assert "report_final_v2.pdf" not in {c.file_name for c in out.chunks}
        a_doc = next(d.document_id for d in a.list_documents() if d.file_name == "report_final_v2.pdf")
        paper = next(d.document_id for d in a.list_documents() if d.file_name == "paper.pdf")
        assert b.delete_document(a_doc) is False and b.document_file(a_doc) is None
        assert b.update_document_metadata(a_doc, company="Hijacked") is False
        assert a.delete_document(paper) is False  # shared: readable by every team, written by none of them
        # table facts follow their document: team b neither reads nor rewrites team a's
        a_facts = a.match_facts("purchases property plant equipment", document_ids=[a_doc])
        assert a_facts and not b.match_facts("purchases property plant equipment", document_ids=[a_doc])
        assert b.replace_document_facts(a_doc, [{"chunk_index": 0, "label": "x", "value": 1, "raw": "1"}]) == 0
        assert len(a.match_facts("purchases property plant equipment", document_ids=[a_doc])) == len(a_facts)
        # so do its tables: team b neither reads them (by document or by a cited chunk) nor replaces them
        a_tables = a.document_tables(a_doc)
        assert a_tables and b.document_tables(a_doc) == [] and b.tables_of_chunks([a_facts[0].chunk_id]) == []
        assert b.replace_document_tables(a_doc, a_tables[:1], []) == 0
        assert len(a.document_tables(a_doc)) == len(a_tables)
        assert a.tables_of_chunks([a_facts[0].chunk_id])
        anon_b = _as(teams, "anon", "select count(*) from match_facts('purchases property plant equipment')",
                     claims='{"workspace": "team-b"}')
        assert anon_b[0][0] == 0
        b.add_feedback("q from b", "a", [], 1)
        a.log_query("q from a", [], 1.0)
        assert a.feedback_stats()["total"] == 0 and b.feedback_stats()["total"] == 1
        assert b.result_share()[0]["results"] == 0 or all(r["file_name"] != "report_final_v2.pdf"
                                                          for r in b.result_share())
    finally:
        a.close()
        b.close()


def test_a_workpaper_holds_its_workspaces_documents_only(teams, settings, embedder):
    """Issue 38: the workpaper reads tables as the caller, so another team's filings are not in it, by any name."""
    from rag.errors import RagError
    from rag.workpaper import load_workpaper, subjects

    a, b = _app(settings, "team-a"), _app(settings, "team-b")
    try:
        a_doc = next(d.document_id for d in a.list_documents() if d.file_name == "report_final_v2.pdf")
        assert load_workpaper(a, embedder.encode, document_id=a_doc).history.measures
        with pytest.raises(RagError, match="no document"):
            load_workpaper(b, embedder.encode, document_id=a_doc)
        with pytest.raises(RagError, match="no issuer named"):
            load_workpaper(b, embedder.encode, company="Acme Widgets")
        assert f"doc:{a_doc}" not in subjects(b.list_documents())
    finally:
        a.close()
        b.close()


def test_store_wide_administration_is_not_an_app_call(teams, settings):
    b = _app(settings, "team-b")
    try:
        for fn, params in (("reindex_texts", {"p_kind": "chunks", "p_after_id": 0, "p_batch": 3}),
                           ("reindex_begin", {"p_model": "evil", "p_dim": 3}),
                           ("configure_reader_role", {"p_role": "service_role"}),
                           ("ensure_workspace_reader", {"p_workspace": "team-a"}),
                           ("set_reader_password", {"p_role": "rag_query", "p_password": "x"})):
            with pytest.raises(StoreError, match="permission denied"):
                b.rpc(fn, params)
        with pytest.raises(StoreError, match="not a reader role"):  # not even the owner turns another role into one
            b.admin_rpc("configure_reader_role", {"p_role": "service_role"})
    finally:
        b.close()
    assert _owner(teams, "select count(*) from chunks where embedding is null")[0][0] == 0


def test_a_teams_document_never_rewrites_the_links_among_shared_ones(clean_store, settings, embedder, pdfs):
    from rag.ingest.pipeline import ingest_file

    for key in ("10k_2020", "10k_2022"):  # two periods of one issuer, shared
        assert ingest_file(pdfs[key], clean_store, embedder, settings).ok
    shared = set(_owner(clean_store, "select source_id, target_id, relation from document_relations"))
    assert len(shared) == 2
    b = _app(settings, "team-b")
    try:
        assert ingest_file(pdfs["10k_2021"], b, embedder, b.settings).ok  # the year between, in team-b
        mine = b.list_documents()
        b_doc = next(d.document_id for d in mine if d.fiscal_year == 2021)
        assert {r["relation"] for r in b.related_documents(b_doc)} == {"previous_period", "next_period"}
    finally:
        b.close()
    after = set(_owner(clean_store, "select source_id, target_id, relation from document_relations"))
    assert shared <= after  # the shared documents still link to each other
    assert {r["document_id"] for r in clean_store.related_documents(min(s[0] for s in shared))} <= \
        {s[1] for s in shared} | {s[0] for s in shared}


def test_the_readers_own_defaults_never_change_what_a_value_means(store, settings):
    from rag.store.reader import ReaderPool

    with store.transport.connection() as conn:  # as a reader could do for itself, had it got past the guard
        conn.execute("alter role rag_query set transform_null_equals = on")
        conn.execute("alter role rag_query set timezone = 'Pacific/Kiritimati'")
    try:
        pool = ReaderPool(reader_url(store.transport.url, "rag_query"))
        try:
            with pool.connection() as conn:
                assert conn.execute("show transform_null_equals").fetchone()[0] == "off"
                assert conn.execute("show timezone").fetchone()[0] == "UTC"
        finally:
            pool.close()
    finally:
        _owner(store, "select configure_reader_role('rag_query'), 1")


def test_a_conversation_is_seen_only_by_its_workspace(clean_store, settings):
    """Conversations (sql/functions/*_conversation*.sql) under row-level security: another team can neither list, read, extend nor delete
    one; the app's own workspace sees its own only."""
    from rag.store import open_store

    stores = {}
    for ws in ("team-a", "team-b"):
        s = settings.model_copy(deep=True)
        s.db.workspace = ws
        stores[ws] = open_store(s)
    try:
        a, b = stores["team-a"], stores["team-b"]
        cid = a.create_conversation()
        assert a.add_conversation_turn(cid, "What were net sales?", {"question": "q", "answer": "x",
                                                                      "confidence": "low"}) == 0
        assert [c.conversation_id for c in a.list_conversations()] == [cid]
        assert b.list_conversations() == [] and b.conversation(cid) is None
        assert b.add_conversation_turn(cid, "injected", {"answer": "y"}) is None
        assert b.delete_conversation(cid) is False
        assert [t.question for t in a.conversation(cid)[1]] == ["What were net sales?"]
    finally:
        for st in stores.values():
            st.close()


def test_store_wide_state_is_changed_only_by_the_owner(teams, settings):
    """rag_app (a team's app) reads store_info and may insert the first document's model once; it cannot change or
    remove it, nor add anything else, so no team can break another's search (issue 34.7)."""
    model = _owner(teams, "select value from store_info where key = 'embedding_model'")[0][0]
    for sql in ("update store_info set value = 'evil' where key = 'embedding_model'",
                "delete from store_info", "insert into store_info values ('embedding_dim', '3')",
                "truncate store_info"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            _as(teams, "rag_app", sql)
    with pytest.raises(psycopg.errors.UniqueViolation):  # recorded once: the key is taken
        _as(teams, "rag_app", "insert into store_info values ('embedding_model', 'evil')")
    _as(teams, "rag_app", "insert into store_info values ('embedding_model', 'evil') on conflict (key) do nothing "
                          "returning key")  # what ingest_document runs: nothing changes
    assert _owner(teams, "select value from store_info where key = 'embedding_model'")[0][0] == model
    assert _as(teams, "rag_app", "select count(*) from store_info")[0][0] >= 1  # reading is what it needs
    for role in ("rag_query", "anon", "authenticated"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            _as(teams, role, "insert into store_info values ('x', 'y')")
    b = _app(settings, "team-b")  # and the app still reads it
    try:
        assert b.store_info().get("embedding_model") == model
    finally:
        b.close()


def test_a_reader_login_keeps_nothing_and_tells_no_one(store, settings):
    """Logged in directly as a reader, with read-only switched off in its own session (issue 34.3): no temporary
    table (temp_file_limit does not count them), and no notification of the store reaches a listener or comes
    from it (Postgres has no privilege for LISTEN / NOTIFY: the store sends none, and workers poll)."""
    team = store.admin_rpc("ensure_workspace_reader", {"p_workspace": "team-t"})
    for role in ("rag_query", team):
        assert _owner(store, "select has_database_privilege(%s, current_database(), 'TEMP')", (role,))[0][0] is False
        with _reader(store, role) as conn:
            conn.execute("set default_transaction_read_only = off")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("create temp table big as select repeat('x', 1000) as x from generate_series(1, 10)")
    disabled = dict(_owner(store, "select tgname, tgenabled from pg_trigger where tgrelid = 'procrastinate_jobs'::regclass "
                                  "and tgname like '%%notify%%'"))
    assert disabled and set(disabled.values()) == {"D"}, disabled
    with store.transport.connection() as listener:
        listener.execute("listen procrastinate_any_queue_v1")
        listener.commit()  # LISTEN takes effect at commit
        _owner(store, "insert into procrastinate_jobs (queue_name, task_name, args) values ('ingest', 't', '{}') "
                      "returning id")
        assert list(listener.notifies(timeout=1.0, stop_after=1)) == []
        _owner(store, "delete from procrastinate_jobs where task_name = 't' returning id")
        listener.execute("unlisten *")


def test_the_reader_session_is_rechecked_before_every_question(teams):
    """The app's reader connection is checked out only with the settings it logs in with; one that differs is
    refused with one line (here: a setting changed on the pooled connection and not reset)."""
    from rag.store.reader import ReaderPool

    pool = teams.reader()
    with pool.connection() as conn:
        ReaderPool._check_settings(conn)
        conn.execute("set work_mem = '1GB'")
        with pytest.raises(StoreError, match="work_mem"):
            ReaderPool._check_settings(conn)
    assert run_readonly(teams, "select count(*) as n from v_documents")  # reset on its way back: the next one runs


def _estimate(store, role: str, sql: str, params=None) -> float:
    with _reader(store, role) as conn:
        return conn.execute("explain (format json) " + sql, params).fetchone()[0][0]["Plan"]["Plan Rows"]


def test_another_workspaces_values_cannot_be_told_from_estimates_or_statistics(teams):
    """A heading, caption, title or section type present only in team-a's document is indistinguishable, for
    team-b's reader, from one that exists nowhere: the planner's estimate is the same, and the statistics views
    that would show sampled values or row counters are not readable (issue 34.4)."""
    with teams.transport.connection() as conn:  # team-a's passages many times over, so that sampling sees them
        cols = [r[0] for r in conn.execute("select column_name from information_schema.columns where table_name = "
                                           "'chunks' and column_name not in ('id', 'chunk_index') "
                                           "and is_generated = 'NEVER' order by ordinal_position")]
        conn.execute(f"insert into chunks (chunk_index, {', '.join(cols)}) select c.chunk_index + 1000 * g, "
                     f"{', '.join('c.' + x for x in cols)} from chunks c join documents d on d.id = c.document_id, "
                     "generate_series(1, 60) g where d.workspace = 'team-a'")
        conn.execute("analyze documents, chunks, figures")
    team_b = teams.admin_rpc("ensure_workspace_reader", {"p_workspace": "team-b"})
    a_id = _owner(teams, "select id from documents where workspace = 'team-a'")[0][0]
    heading, n = _owner(teams, "select heading, count(*) from chunks where document_id = %s and heading <> '' "
                               "group by 1 order by 2 desc limit 1", (a_id,))[0]
    title = _owner(teams, "select title from documents where id = %s", (a_id,))[0][0]
    for view, column, present in (("v_chunks", "heading", heading), ("v_documents", "title", title),
                                  ("v_documents", "file_name", "report_final_v2.pdf")):
        for op in ("=", "<", ">="):
            sql = f"select 1 from {view} where {column} {op} %s"
            assert _estimate(teams, team_b, sql, (present,)) == _estimate(teams, team_b, sql, ("zq nowhere",)), \
                (column, op, present)
    with _reader(teams, team_b) as conn:
        for sql in ("select * from pg_stats where tablename = 'chunks'",
                    "select n_live_tup, n_tup_ins from pg_stat_user_tables where relname = 'query_log'",
                    "select * from pg_statio_user_tables",
                    "select pg_stat_get_tuples_inserted('query_log'::regclass)",
                    "select pg_stat_get_live_tuples('chunks'::regclass)"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
