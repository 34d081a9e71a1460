"""Supabase's roles on the embedded Postgres: what anon, authenticated and service_role may and may not do,
and per-workspace isolation (sql/functions/current_workspace.sql, sql/policies)."""

import psycopg
import pytest
from roles import as_role


@pytest.fixture
def two_workspaces(clean_store, ingest, pdfs):
    assert ingest(pdfs["10k_2022"]).ok and ingest(pdfs["esg"]).ok and ingest(pdfs["paper"]).ok
    with clean_store.transport.connection() as conn:
        conn.execute("update documents set workspace = 'team-a' where file_name = 'report_final_v2.pdf'")
        conn.execute("update documents set workspace = 'team-b' where file_name = 'esg.pdf'")
    return clean_store


_as = as_role


def test_every_table_has_row_level_security(store):
    with store.transport.connection() as conn:
        rows = conn.execute("""select c.relname, c.relrowsecurity from pg_class c join pg_namespace n
                               on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r'""").fetchall()
    assert rows and all(rls for _, rls in rows), [name for name, rls in rows if not rls]


def test_no_security_definer_and_fixed_search_path(store):
    with store.transport.connection() as conn:
        rows = conn.execute("""select p.proname, p.prosecdef, p.proconfig from pg_proc p
                               join pg_namespace n on n.oid = p.pronamespace
                               where n.nspname = 'public' and p.prokind = 'f'
                                 and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
                            """).fetchall()
    assert rows
    assert not [name for name, definer, _ in rows if definer]
    assert not [name for name, _, cfg in rows if not cfg or not any(c.startswith("search_path=") for c in cfg)]


def test_no_function_of_ours_runs_for_public(store):
    """Every function file revokes PUBLIC's EXECUTE (Postgres grants it by default) and grants it to named roles."""
    with store.transport.connection() as conn:
        rows = conn.execute("""select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                               where n.nspname = 'public' and p.prokind = 'f'
                                 and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
                                 and (p.proacl is null or exists (select 1 from aclexplode(p.proacl) a
                                                                  where a.grantee = 0))""").fetchall()
    assert not rows, rows


def test_anon_reads_shared_documents_only_and_cannot_write(two_workspaces):
    s = two_workspaces
    names = {r[1] for r in _as(s, "anon", "select * from list_documents()")}
    assert names == {"paper.pdf"}  # the two workspace documents are not shared
    assert _as(s, "anon", "select count(*) from chunks")[0][0] > 0
    for sql in ("insert into documents (file_name, sha256, page_count, embedding_model) values ('x', 'x', 1, 'm')",
                "delete from chunks", "update documents set title = 'x'", "select delete_document(1)",
                "select ingest_document('{}'::jsonb, '[]'::jsonb, '[]'::jsonb)", "select reindex_begin('m', 384)",
                "select add_feedback('q', 'a', '{}', 1)", "select * from feedback", "select * from query_log",
                "select feedback_stats()", "select * from result_share(10)"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            _as(s, "anon", sql)
    # the original PDFs: only those of the documents anon may see (the cited page, sql/policies/document_files.sql)
    files = {r[0] for r in _as(s, "anon", "select d.file_name from document_files f join documents d "
                                          "on d.id = f.document_id")}
    assert files <= {"paper.pdf"}


def test_authenticated_sees_its_workspace_and_never_the_other(two_workspaces):
    s = two_workspaces
    a = {r[1] for r in _as(s, "authenticated", "select * from list_documents()", claims='{"workspace": "team-a"}')}
    b = {r[1] for r in _as(s, "authenticated", "select * from list_documents()", claims='{"workspace": "team-b"}')}
    assert a == {"paper.pdf", "report_final_v2.pdf"} and b == {"paper.pdf", "esg.pdf"}
    # search goes through the same policies: team-b's search never returns team-a's chunks
    hits = _as(s, "authenticated", """select file_name from match_chunks(
                   (select embedding from chunks limit 1), 'net sales purchases emissions', 50, 50)""",
               claims='{"workspace": "team-b"}')
    assert hits and "report_final_v2.pdf" not in {h[0] for h in hits}
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        _as(s, "authenticated", "select delete_document(1)", claims='{"workspace": "team-a"}')


def test_service_role_writes(two_workspaces):
    s = two_workspaces
    assert _as(s, "service_role", "select add_feedback('q', 'a', '{}', 1)")[0][0] >= 1
    assert _as(s, "service_role", "select count(*) from list_documents()")[0][0] == 3
    assert _as(s, "service_role", "select delete_document(3)")[0][0] is True


def test_new_documents_take_the_callers_workspace(clean_store):
    with clean_store.transport.connection() as conn, conn.transaction():
        conn.execute("select set_config('rag.workspace', 'team-c', true)")
        conn.execute("insert into documents (file_name, sha256, page_count, embedding_model) values ('w.pdf', 'w', 1, 'm')")
        assert conn.execute("select workspace from documents where sha256 = 'w'").fetchone()[0] == "team-c"
    with clean_store.transport.connection() as conn, conn.transaction():
        conn.execute("""select set_config('request.jwt.claims', '{"workspace": "team-d"}', true)""")
        conn.execute("insert into documents (file_name, sha256, page_count, embedding_model) values ('v.pdf', 'v', 1, 'm')")
        assert conn.execute("select workspace from documents where sha256 = 'v'").fetchone()[0] == "team-d"


def test_chunk_lexemes_follow_the_chunks_and_their_policies(two_workspaces):
    # sql/functions/chunk_lexemes_after_insert.sql: the narrow copy of the chunks' lexemes that match_chunks reads under row-level security (068) is kept
    # by a trigger, deleted with its chunks, and shown to each role exactly as the chunks are
    s = two_workspaces
    with s.transport.connection() as conn:
        counts = "select (select count(*) from chunks), (select count(*) from chunk_lexemes)"
        n_chunks, n_lex = conn.execute(counts).fetchone()
        assert n_chunks > 0 and n_lex == n_chunks
        assert conn.execute("select bool_and(l.lexemes = strip(c.fts)) from chunk_lexemes l "
                            "join chunks c on c.id = l.chunk_id").fetchone()[0]
        a_doc, b_doc = (conn.execute("select id from documents where workspace = %s", (w,)).fetchone()[0]
                        for w in ("team-a", "team-b"))
        assert not conn.execute("select has_table_privilege('rag_reader', 'chunk_lexemes', 'select')").fetchone()[0]
    q = "select count(*) from chunk_lexemes where document_id = %s"
    for role in ("authenticated", "rag_app"):
        assert _as(s, role, q, (a_doc,), claims='{"workspace": "team-b"}')[0][0] == 0
        assert _as(s, role, q, (b_doc,), claims='{"workspace": "team-b"}')[0][0] > 0
        assert _as(s, role, q, (a_doc,), claims='{"workspace": "team-a"}')[0][0] > 0
    assert _as(s, "anon", q, (a_doc,))[0][0] == 0
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        _as(s, "authenticated", "insert into chunk_lexemes values (0, %s, '')", (a_doc,),
            claims='{"workspace": "team-a"}')
    with s.transport.connection() as conn:
        conn.execute("delete from documents where id = %s", (a_doc,))
        n_chunks, n_lex = conn.execute(counts).fetchone()
    assert n_lex == n_chunks


def test_chunk_postings_follow_the_chunks_and_their_workspace(two_workspaces):
    # sql/functions/chunk_postings_after_insert.sql: the inverted index that match_chunks and terms_missing use under row-level security at scale (071,
    # 072) holds exactly the chunks' lexemes, under the document's workspace (rewritten when the owner moves a
    # document, as the fixture did), and each role reads only the shared postings and its own workspace's
    s = two_workspaces
    postings = "select document_id, lexeme, unnest(chunk_ids) from chunk_postings"
    lexemes = "select c.document_id, l, c.id from chunks c, unnest(tsvector_to_array(c.fts)) l"
    with s.transport.connection() as conn:
        for a, b in ((postings, lexemes), (lexemes, postings)):
            assert conn.execute(f"select count(*) from ({a} except {b}) x").fetchone()[0] == 0
        assert conn.execute("select count(*) from chunk_postings p join documents d on d.id = p.document_id "
                            "where p.workspace <> coalesce(d.workspace, '')").fetchone()[0] == 0
        a_doc, b_doc = (conn.execute("select id from documents where workspace = %s", (w,)).fetchone()[0]
                        for w in ("team-a", "team-b"))
        shared = conn.execute("select id from documents where workspace is null").fetchone()[0]
        assert not conn.execute("select has_table_privilege('rag_reader', 'chunk_postings', 'select')").fetchone()[0]
    q = "select count(*) from chunk_postings where document_id = %s"
    for role in ("authenticated", "rag_app"):
        assert _as(s, role, q, (a_doc,), claims='{"workspace": "team-b"}')[0][0] == 0
        assert _as(s, role, q, (b_doc,), claims='{"workspace": "team-b"}')[0][0] > 0
        assert _as(s, role, q, (shared,), claims='{"workspace": "team-b"}')[0][0] > 0
        assert _as(s, role, q, (a_doc,), claims='{"workspace": "team-a"}')[0][0] > 0
    assert _as(s, "anon", q, (a_doc,))[0][0] == 0 and _as(s, "anon", q, (shared,))[0][0] > 0
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        _as(s, "authenticated", "insert into chunk_postings values ('team-a', 'x', %s, '{1}')", (a_doc,),
            claims='{"workspace": "team-a"}')
    for row in (("team-a", a_doc), ("team-b", a_doc), ("", shared)):  # another team's, or the shared documents
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            _as(s, "rag_app", "insert into chunk_postings values (%s, 'x', %s, '{1}')", row,
                claims='{"workspace": "team-b"}')
    with s.transport.connection() as conn:
        conn.execute("update documents set workspace = 'team-c' where id = %s", (b_doc,))
        assert conn.execute("select array_agg(distinct workspace) from chunk_postings where document_id = %s",
                            (b_doc,)).fetchone()[0] == ["team-c"]
    assert _as(s, "rag_app", q, (b_doc,), claims='{"workspace": "team-b"}')[0][0] == 0
    with s.transport.connection() as conn:
        conn.execute("delete from documents where id = %s", (a_doc,))
        assert conn.execute(q, (a_doc,)).fetchone()[0] == 0


def test_a_document_moved_while_its_chunks_are_written_keeps_its_postings_whole(two_workspaces):
    # sql/functions/chunk_postings_after_insert.sql: the chunks' trigger holds the document until the transaction ends, so the owner's move waits and then
    # rewrites the postings from every committed chunk (an attack found a posting left behind in the old workspace)
    s = two_workspaces
    with s.transport.connection() as conn:
        a_doc = conn.execute("select id from documents where workspace = 'team-a'").fetchone()[0]
    with s.transport.connection() as writer, s.transport.connection() as owner:
        writer.execute("begin")
        writer.execute("select set_config('rag.workspace', 'team-a', true)")
        writer.execute("set local role rag_app")
        writer.execute("insert into chunks (document_id, chunk_index, page_start, page_end, content, token_count) "
                       "values (%s, 100000, 1, 1, 'racewordx', 1)", (a_doc,))
        owner.execute("set lock_timeout = 300")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            owner.execute("update documents set workspace = 'team-b' where id = %s", (a_doc,))
        writer.execute("commit")
        owner.execute("update documents set workspace = 'team-b' where id = %s", (a_doc,))
        assert owner.execute("select array_agg(distinct workspace) from chunk_postings where document_id = %s",
                             (a_doc,)).fetchone()[0] == ["team-b"]
        assert owner.execute("select count(*) from chunk_postings where lexeme = 'racewordx'").fetchone()[0] == 1


def test_term_stats_and_postings_lookups_read_only_the_callers_workspaces(two_workspaces):
    # sql/policies/term_stats.sql and chunk_postings.sql: the read policies are one equality on the row's workspace, and every index starts with the
    # workspace, so a lookup by lexeme or by document takes the policy as its index condition: it reads nothing of
    # another team's, whether the word or the document exists there or not (an attack saw the buffers differ)
    s = two_workspaces
    with s.transport.connection() as conn:
        a_doc = conn.execute("select id from documents where workspace = 'team-a'").fetchone()[0]
        word = conn.execute("select lexeme from term_stats where workspace = 'team-a' and lexeme not in "
                            "(select lexeme from term_stats where workspace <> 'team-a') limit 1").fetchone()[0]
    for sql, params in (("select * from term_stats where lexeme = %s", (word,)),
                        ("select * from chunk_postings where lexeme = %s", (word,)),
                        ("select * from chunk_postings where document_id = %s", (a_doc,))):
        for role in ("rag_app", "authenticated"):
            assert _as(s, role, sql, params, claims='{"workspace": "team-b"}') == []
            with s.transport.connection() as conn, conn.transaction():
                conn.execute("select set_config('request.jwt.claims', %s, true)", ('{"workspace": "team-b"}',))
                conn.execute("set local enable_seqscan = off")  # these tables are small here
                conn.execute(f"set local role {role}")
                plan = "\n".join(r[0] for r in conn.execute("explain (analyze, costs off, timing off, summary off) "
                                                            + sql, params).fetchall())
            assert "Rows Removed by Filter" not in plan, plan
            cond = next(line for line in plan.splitlines() if "Index Cond" in line)
            assert "workspace" in cond, plan


def test_a_move_in_an_older_snapshot_is_refused_and_estimates_show_no_other_teams_words(two_workspaces):
    # sql/functions/chunk_postings_after_insert.sql: a move rewrites the postings from the chunks committed when it runs, so a REPEATABLE READ move
    # (whose snapshot may predate a chunk insert it waited for) is refused; and no statistics are kept on the
    # postings' or the vocabulary's key columns, so a plain EXPLAIN estimates a team-a word like a word nobody has
    s = two_workspaces
    with s.transport.connection() as conn:
        a_doc = conn.execute("select id from documents where workspace = 'team-a'").fetchone()[0]
        with pytest.raises(psycopg.errors.ActiveSqlTransaction), conn.transaction():
            conn.execute("set transaction isolation level repeatable read")
            conn.execute("update documents set workspace = 'team-b' where id = %s", (a_doc,))
        word = conn.execute("select lexeme from term_stats where workspace = 'team-a' order by ndoc desc limit 1"
                            ).fetchone()[0]
        conn.execute("analyze chunk_postings")
        conn.execute("analyze term_stats")
        assert conn.execute("select count(*) from pg_stats where (tablename, attname) in (('chunk_postings', "
                            "'workspace'), ('chunk_postings', 'lexeme'), ('term_stats', 'workspace'))").fetchone()[0] == 0
    plans = [_as(s, "rag_app", f"explain select * from chunk_postings where lexeme = '{w}'",
                 claims='{"workspace": "team-b"}')[0][0] for w in (word, "qqzzxxv")]
    assert plans[0] == plans[1]


def test_a_metadata_edit_locks_only_the_callers_own_documents(two_workspaces):
    # sql/functions/update_document_metadata.sql: update_document_metadata locks the documents of the filing's company before it writes; a team's edit,
    # held open, never locks a shared document or another team's, and a team cannot edit (or lock) either
    s = two_workspaces
    with s.transport.connection() as conn:
        a_doc, key = conn.execute("select id, company_key from documents where workspace = 'team-a'").fetchone()
        shared = conn.execute("select id from documents where workspace is null").fetchone()[0]
        b_doc = conn.execute("select id from documents where workspace = 'team-b'").fetchone()[0]
        conn.execute("update documents set company_key = %s where id in (%s, %s)", (key, shared, b_doc))
    with s.transport.connection() as team, s.transport.connection() as owner:
        team.execute("begin")
        team.execute("select set_config('rag.workspace', 'team-a', true)")
        team.execute("set local role rag_app")
        assert team.execute("select update_document_metadata(%s, p_fiscal_year => 2031)", (a_doc,)).fetchone()[0]
        assert not team.execute("select update_document_metadata(%s, p_company => 'X', p_company_key => 'x')",
                                (b_doc,)).fetchone()[0]  # not its own: not found
        assert not team.execute("select update_document_metadata(%s, p_company => 'X', p_company_key => 'x')",
                                (shared,)).fetchone()[0]  # seen but not its own: nothing saved, and it says so (080)
        owner.execute("set lock_timeout = 200")
        try:
            locked = owner.execute("select id from documents where id in (%s, %s) for update nowait",
                                   (shared, b_doc)).fetchall()  # neither is locked by the team's open edit
            assert sorted(r[0] for r in locked) == sorted([shared, b_doc])
            with pytest.raises(psycopg.errors.LockNotAvailable):  # its own filing is
                owner.execute("select id from documents where id = %s for update nowait", (a_doc,))
        finally:
            owner.execute("reset lock_timeout")
        team.execute("commit")
    with s.transport.connection() as conn:
        rows = dict(conn.execute("select id, company_key from documents where id in (%s, %s)", (shared, b_doc)).fetchall())
        assert rows == {shared: key, b_doc: key}  # neither was edited
