"""match_chunks above 30,000 chunks (sql/functions/match_chunks.sql): the HNSW index serves the semantic side, the library's size comes from
the planner's estimate, and the full-text side matches the rarest terms first within its budget. A real embedded
store filled by SQL with 32,000 chunks (random unit vectors; texts where a few words are everywhere)."""

from __future__ import annotations

import numpy as np
import pytest

N = 32_000


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    from rag.config import Settings
    from rag.store import open_store

    s = Settings()
    s.db.data_dir = tmp_path_factory.mktemp("big")
    st = open_store(s)
    with st.transport.connection() as conn:
        conn.execute("set statement_timeout = 0")
        doc = conn.execute("insert into documents (file_name, sha256, page_count, embedding_model, doc_type) "
                           "values ('big.pdf', 'big', 1, 'all-MiniLM-L6-v2', '10-K') returning id").fetchone()[0]
        conn.execute("""insert into chunks (document_id, chunk_index, page_start, page_end, content, token_count,
                                            embedding)
                        select %s, i, 1 + i / 10, 1 + i / 10,
                               'revenue growth margin operating results ' || case when i = 7777 then 'zebracorn '
                               else '' end || 'segment ' || (i %% 97), 12,
                               (select ('[' || string_agg((random() - 0.5)::text, ',') || ']')::vector
                                  from generate_series(1, 384) where i >= 0)
                          from generate_series(0, %s - 1) i""", (doc, N))
        conn.execute("analyze chunks")
    yield st
    st.close()


def _vec(store, chunk_index: int) -> list[float]:
    with store.transport.connection() as conn:
        text = conn.execute("select embedding::text from chunks where chunk_index = %s", (chunk_index,)).fetchone()[0]
    v = np.array([float(x) for x in text.strip("[]").split(",")])
    return list(v / np.linalg.norm(v))


def test_big_library_uses_the_estimate_and_finds_both_sides(big):
    with big.transport.connection() as conn:
        assert conn.execute("select reltuples from pg_class where relname = 'chunks'").fetchone()[0] > 30_000
    # the rare word among words found in every chunk: the full-text side still ranks its chunk first
    hits = big.match_chunks(_vec(big, 123), "zebracorn revenue growth margin", match_count=10, candidate_count=50)
    by_index = {h.chunk_index: h for h in hits}
    assert 7777 in by_index and by_index[7777].full_text_rank == 1
    # the semantic side: the chunk whose vector is the query comes first from the index
    assert 123 in by_index and by_index[123].semantic_rank == 1


def test_a_question_of_common_words_only_still_fuses_both_sides(big):
    # every term is in every chunk: the rarest is matched, at most 20,000 rows are ranked (bench/bench_scale.py
    # measures the time), and the semantic side still decides the first chunk
    hits = big.match_chunks(_vec(big, 5), "revenue growth margin operating results", match_count=10,
                            candidate_count=50)
    assert len(hits) == 10 and hits[0].chunk_index == 5
    assert any(h.full_text_rank for h in hits)


def _fts_plan(conn) -> str:
    conn.execute("set local role rag_app")
    conn.execute("set local enable_seqscan = off")  # a 32,000-row table could be read whole either way
    assert conn.execute("select current_user").fetchone()[0] == "rag_app"
    return "\n".join(r[0] for r in conn.execute(
        "explain select id from chunks where fts @@ to_tsquery('simple', 'zebracorn')").fetchall())


def test_the_full_text_match_stays_behind_row_level_security(big):
    # sql/functions/match_chunks.sql: with the match LEAKPROOF the GIN index ran it on other workspaces' rows before the policy,
    # and a team could time, count (EXPLAIN ANALYZE) or provoke errors over another team's words. The app's role reads
    # the table with the policy first, even when sequential scans are discouraged.
    with big.transport.connection() as conn:
        assert conn.execute("select proleakproof from pg_proc where oid = "
                            "'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure").fetchone()[0] is False
        with conn.transaction():
            plan = _fts_plan(conn)
            found = conn.execute("select chunk_index from chunks where fts @@ to_tsquery('simple', 'zebracorn')"
                                 ).fetchall()
    assert "chunks_fts_gin" not in plan and "SubPlan" in plan, plan
    assert found == [(7777,)]
    names = [r["check_name"] for r in big.doctor("all-MiniLM-L6-v2", 384)]
    assert "full-text index under row-level security" not in names  # 062's row showed every workspace's size


def test_terms_missing_finds_terms_phrases_and_respects_the_document_list(big):
    # sql/functions/terms_missing.sql (each term's query computed first, as a value): a phrase, a stopword, a document list, an empty list
    doc = big.list_documents()[0].document_id
    assert big.terms_missing(["zebracorn", "DocVQA", "segment 5", "Segment 96 revenue", "the"], None) == [
        "DocVQA", "Segment 96 revenue"]
    assert big.terms_missing(["zebracorn", "DocVQA"], [doc]) == ["DocVQA"]
    assert big.terms_missing(["zebracorn"], [doc + 1000]) == ["zebracorn"]
    assert big.terms_missing([], None) == []
    assert big.transport.app_role == "rag_app"  # the store's calls ran as the app's role



def _lit(store, chunk_index: int) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in _vec(store, chunk_index)) + "]"


def _owner_and_app(store, vec: str, question: str) -> tuple[list, list]:
    sql = "select chunk_index, full_text_rank from match_chunks(%s::vector, %s, 20, 50) order by chunk_index"
    with store.transport.connection() as conn:
        owner = conn.execute(sql, (vec, question)).fetchall()
        with conn.transaction():
            conn.execute("set local role rag_app")
            assert conn.execute("select row_security_active('public.chunks')").fetchone()[0]
            app = conn.execute(sql, (vec, question)).fetchall()
    return owner, app


@pytest.mark.parametrize("question", ["zebracorn revenue growth margin", "segment 5 zebracorn", "qwxzv"])
def test_the_app_role_matches_on_chunk_lexemes_with_the_owners_results(big, question):
    # sql/functions/match_chunks.sql: under row-level security the match reads chunk_lexemes (no TOAST fetch per row) and checks the ids it
    # finds on chunks.fts; the owner keeps the GIN path. The same chunks come back either way.
    owner, app = _owner_and_app(big, _lit(big, 42), question)
    assert app == owner
    if question.startswith("zebracorn"):
        assert dict(app)[7777]  # found by the full-text side


@pytest.fixture(scope="module")
def phrases(tmp_path_factory):
    """300 chunks that all hold 'alpha' and 'beta' (too common to be selective, so the query keeps its phrases):
    next to each other in the even ones, apart in the odd ones."""
    from rag.config import Settings
    from rag.store import open_store

    s = Settings()
    s.db.data_dir = tmp_path_factory.mktemp("phrases")
    st = open_store(s)
    with st.transport.connection() as conn:
        doc = conn.execute("insert into documents (file_name, sha256, page_count, embedding_model, doc_type) "
                           "values ('p.pdf', 'p', 1, 'all-MiniLM-L6-v2', '10-K') returning id").fetchone()[0]
        conn.execute("""insert into chunks (document_id, chunk_index, page_start, page_end, content, token_count,
                                            embedding)
                        select %s, i, 1, 1, case when i %% 2 = 0 then 'alpha beta gamma' else 'beta gamma alpha' end,
                               3, (select ('[' || string_agg((random() - 0.5)::text, ',') || ']')::vector
                                     from generate_series(1, 384) where i >= 0)
                          from generate_series(0, 299) i""", (doc,))
        conn.execute("analyze chunks")
    yield st
    st.close()


@pytest.mark.parametrize("question", ['"alpha beta"', 'gamma -"alpha beta"'])
def test_phrases_are_widened_on_the_lexemes_and_narrowed_again(phrases, question):
    # no positions in chunk_lexemes: a phrase is looked for as all its words, then checked on chunks.fts; a negated
    # phrase takes the old path. Owner (GIN) and app role (lexemes) find the same chunks.
    owner, app = _owner_and_app(phrases, _lit(phrases, 0), question)
    assert app == owner
    ranked = [i for i, rank in app if rank]
    if question == '"alpha beta"':
        assert ranked and all(i % 2 == 0 for i in ranked)


@pytest.mark.parametrize("terms", [["alpha beta"], ["beta alpha"], ["gamma alpha"], ["alpha"], ["delta"],
                                   ["alpha delta"], ["beta gamma alpha", "alpha beta gamma"]])
def test_terms_missing_on_the_lexemes_agrees_with_the_owners_path(phrases, terms):
    # sql/functions/terms_missing.sql: under row-level security each term is looked for in chunk_lexemes (no TOAST fetch per row); a phrase
    # as all its words, then checked on chunks.fts until a chunk holds it. The owner keeps the GIN path: both answer
    # alike ('alpha beta' is adjacent in the even chunks, 'beta alpha' in none, 'gamma alpha' in the odd ones)
    sql = "select term from terms_missing(%s, null)"
    with phrases.transport.connection() as conn:
        owner = conn.execute(sql, (terms,)).fetchall()
        with conn.transaction():
            conn.execute("set local role rag_app")
            assert conn.execute("select row_security_active('public.chunks')").fetchone()[0]
            app = conn.execute(sql, (terms,)).fetchall()
    assert app == owner
    expected = {"beta alpha", "delta", "alpha delta"} & set(terms)
    assert {t for (t,) in app} == expected


@pytest.fixture
def team_doc(big):
    """A document of team-a in the big library, three chunks holding a word nobody else has; removed afterwards
    (the other tests compare the owner, who sees every workspace, with the app's role)."""
    with big.transport.connection() as conn:
        doc = conn.execute("insert into documents (file_name, sha256, page_count, embedding_model, doc_type, "
                           "workspace) values ('a.pdf', 'team-a-doc', 1, 'all-MiniLM-L6-v2', '10-K', 'team-a') "
                           "returning id").fetchone()[0]
        conn.execute("""insert into chunks (document_id, chunk_index, page_start, page_end, content, token_count,
                                            embedding)
                        select %s, i, 1, 1, 'quokkaline orbit revenue growth clause-level', 5,
                               (select embedding from chunks where chunk_index = 42 limit 1)
                          from generate_series(0, 2) i""", (doc,))
    yield doc
    with big.transport.connection() as conn:
        conn.execute("delete from documents where id = %s", (doc,))


def _as_team(store, team: str, sql: str, params=()) -> list:
    with store.transport.connection() as conn, conn.transaction():
        conn.execute("select set_config('rag.workspace', %s, true)", (team,))
        conn.execute("set local role rag_app")
        assert conn.execute("select current_workspace()").fetchone()[0] == team
        return conn.execute(sql, params).fetchall()


def test_the_postings_lookup_stays_in_the_callers_workspace(big, team_doc):
    # sql/functions/chunk_postings_after_insert.sql: under row-level security the lookup is an index scan whose condition holds the policy's workspaces
    # with the lexeme (both leakproof equalities): a team never reads another team's postings, found or not
    sql = "select document_id from chunk_postings where lexeme = any(array['quokkalin'])"
    plan = "\n".join(r[0] for r in _as_team(big, "team-b", "explain " + sql))
    cond = next(line for line in plan.splitlines() if "Index Cond" in line)
    assert "workspace" in cond and "lexeme" in cond, plan
    assert _as_team(big, "team-b", sql) == []
    assert _as_team(big, "team-a", sql) == [(team_doc,)]


def test_at_scale_the_app_role_finds_its_own_teams_words_and_never_anothers(big, team_doc):
    # match_chunks and terms_missing at more than 30,000 chunks, as the app's role: the full-text candidates and the coverage check
    # come from the postings of the caller's workspace and the shared one
    match = ("select document_id, full_text_rank from match_chunks(%s::vector, 'quokkaline revenue', 10, 50) "
             "where document_id = %s")
    missing = "select term from terms_missing(array['quokkaline', 'quokkaline orbit', 'orbit quokkaline'], null)"
    vec = _lit(big, 42)
    assert _as_team(big, "team-b", match, (vec, team_doc)) == []
    assert _as_team(big, "team-b", missing) == [("quokkaline",), ("quokkaline orbit",), ("orbit quokkaline",)]
    found = _as_team(big, "team-a", match, (vec, team_doc))
    assert len(found) == 3 and {r[1] for r in found} == {1, 2, 3}
    # a hyphenated word is a phrase of its parts ('clause-level' <-> 'clause' <-> 'level'): looked up by its first
    # lexeme, checked on the chunks' fts
    hyphen = match.replace("'quokkaline revenue'", "'clause-level growth'")
    assert len(_as_team(big, "team-a", hyphen, (vec, team_doc))) == 3
    assert _as_team(big, "team-b", hyphen, (vec, team_doc)) == []
    assert _as_team(big, "team-a", missing) == [("orbit quokkaline",)]


def test_when_even_the_rarest_term_is_everywhere_the_latest_uploads_are_ranked(big):
    # sql/functions/match_chunks.sql: 'revenue' and 'growth' are in all 32,000 chunks of the library's first document, more than the 5,000
    # candidates the postings give. They are taken from the most recently added documents first, so a filing added
    # today is ranked (071 took the first found in the index: the oldest document's, and never reached the new one).
    with big.transport.connection() as conn:
        doc = conn.execute("insert into documents (file_name, sha256, page_count, embedding_model, doc_type, "
                           "workspace) values ('new.pdf', 'team-a-new', 1, 'all-MiniLM-L6-v2', '10-K', 'team-a') "
                           "returning id").fetchone()[0]
        conn.execute("""insert into chunks (document_id, chunk_index, page_start, page_end, content, token_count,
                                            embedding)
                        select %s, i, 1, 1, 'revenue growth and more revenue growth, then revenue growth again', 9,
                               (select embedding from chunks where chunk_index = 42 limit 1)
                          from generate_series(0, 2) i""", (doc,))
    try:
        sql = ("select document_id, full_text_rank from match_chunks(%s::vector, 'revenue growth', 10, 50) "
               "where full_text_rank is not null order by full_text_rank")
        found = _as_team(big, "team-a", sql, (_lit(big, 7),))
        assert [d for d, _ in found[:3]] == [doc] * 3, found
        assert _as_team(big, "team-b", sql + " limit 3", (_lit(big, 7),))[0][0] != doc  # another team: never
    finally:
        with big.transport.connection() as conn:
            conn.execute("delete from documents where id = %s", (doc,))
