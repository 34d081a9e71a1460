"""Ingestion and hybrid search on generated PDFs, against the real embedded Postgres and model."""

import pytest

from rag.retrieve.search import SearchFilters, hybrid_search


def test_paper_sections_figure_and_search(clean_store, ingest, embedder, pdfs):
    res = ingest(pdfs["paper"])
    assert res.ok, res.error
    assert res.chunks >= 4 and res.figures == 1 and res.pages == 2
    docs = clean_store.list_documents()
    assert docs[0].doc_type == "research paper"
    out = hybrid_search(clean_store, embedder, "How does accuracy change over training epochs?", k=3)
    top = out.results[0]
    assert top.page_start == 2 and top.section_type == "results"
    fig = out.figures[0]
    assert fig.page == 2 and fig.caption.startswith("Figure 1")
    assert fig.chunk_id in {r.chunk_id for r in out.results}  # linked to the results chunk
    j = out.to_json()
    assert set(j) == {"query", "results", "figures", "timings_ms"}
    assert set(j["results"][0]) == {"document", "document_id", "chunk_id", "page", "pages", "section", "heading",
                                    "score", "scores", "text"}
    assert set(j["results"][0]["scores"]) >= {"cosine", "text_rank", "fused"}


def test_10k_metadata_table_rows_vector_chart_and_relations(clean_store, ingest, embedder, pdfs):
    for key in ("10k_2020", "10k_2021", "10k_2022"):
        r = ingest(pdfs[key])
        assert r.ok, r.error
    docs = {d.fiscal_year: d for d in clean_store.list_documents()}
    assert set(docs) == {2020, 2021, 2022}
    d22 = docs[2022]
    assert d22.doc_type == "10-K" and d22.company == "Acme Widgets Corporation"
    assert d22.figures == 1  # the vector bar chart; the table is not a figure
    rel = {(r["relation"], r["fiscal_year"]) for r in clean_store.related_documents(d22.document_id)}
    assert rel == {("previous_period", 2021)}
    rel21 = {(r["relation"], r["fiscal_year"]) for r in clean_store.related_documents(docs[2021].document_id)}
    assert rel21 == {("previous_period", 2020), ("next_period", 2022)}

    out = hybrid_search(clean_store, embedder, "purchases of property, plant and equipment", k=5,
                        filters=SearchFilters(year_min=2022, year_max=2022))
    assert out.results and all(r.fiscal_year == 2022 for r in out.results)
    hit = next(r for r in out.results if "Purchases of property" in r.content)
    line = next(l for l in hit.content.splitlines() if l.startswith("Purchases of property"))
    assert line == "Purchases of property, plant and equipment (PP&E) | (1,577) | (1,400) | (1,300)"
    lines = hit.content.splitlines()
    assert "(Millions) | 2022 | 2021 | 2020" in lines[: lines.index(line)]  # the header travels with the rows
    assert "Form 10-K" not in hit.content  # the running footer is not content
    assert hit.heading.startswith("PART II")


def test_filters_that_match_nothing_return_nothing(clean_store, ingest, embedder, pdfs):
    assert ingest(pdfs["esg"]).ok
    out = hybrid_search(clean_store, embedder, "scope 1 emissions", filters=SearchFilters(companies=["nobody"]))
    assert out.results == []


def test_esg_raster_chart_caption_and_ocr(clean_store, ingest, embedder, pdfs):
    r = ingest(pdfs["esg"])
    assert r.ok and r.figures == 1
    out = hybrid_search(clean_store, embedder, "chart of renewable electricity share", k=3)
    f = out.figures[0]
    assert f.caption.startswith("Chart 3") and f.page == 2
    assert "Renewable" in f.ocr_text or "renewable" in f.ocr_text.lower()
    png = clean_store.figure_image(f.figure_id)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_same_file_twice_is_already_ingested(clean_store, ingest, pdfs):
    first = ingest(pdfs["esg"])
    second = ingest(pdfs["esg"])
    assert first.ok and not first.already_ingested
    assert second.already_ingested and second.document_id == first.document_id
    assert len(clean_store.list_documents()) == 1


def test_one_document_is_one_transaction(clean_store, embedder):
    vec = [0.0] * 383 + [1.0]
    good = {"chunk_index": 0, "page_start": 1, "page_end": 1, "content": "fine", "token_count": 1, "embedding": vec}
    bad = dict(good, chunk_index=1, content="   ")  # violates the non-empty check
    doc = {"file_name": "x.pdf", "sha256": "deadbeef", "page_count": 1, "embedding_model": embedder.model_name}
    with pytest.raises(Exception):
        clean_store.ingest_document(doc, [good, bad], [])
    assert clean_store.list_documents() == []
    with clean_store.transport.connection() as conn:
        assert conn.execute("select count(*) from chunks").fetchone()[0] == 0


def test_store_built_with_another_model_is_refused(clean_store, ingest, pdfs, settings):
    from rag.embed import Embedder
    from rag.errors import EmbeddingModelMismatch
    from rag.ingest.pipeline import ingest_file

    assert ingest(pdfs["esg"]).ok
    other = Embedder(settings.embedding.model_copy(update={"model": "some-other-model"}))
    with pytest.raises(EmbeddingModelMismatch, match="reindex"):
        clean_store.check_model(other.model_name)
    res = ingest_file(pdfs["paper"], clean_store, other, settings)
    assert not res.ok and "reindex" in res.error
    bad = clean_store.doctor("some-other-model", 384)
    assert not next(c for c in bad if c["check_name"] == "embedding model")["ok"]


def test_delete_cascades_and_doctor_passes(clean_store, ingest, embedder, pdfs):
    r = ingest(pdfs["paper"])
    assert all(c["ok"] for c in clean_store.doctor(embedder.model_name, embedder.dim))
    assert clean_store.delete_document(r.document_id)
    with clean_store.transport.connection() as conn:
        assert conn.execute("select count(*) from chunks").fetchone()[0] == 0
        assert conn.execute("select count(*) from figures").fetchone()[0] == 0


def test_progress_is_reported_per_page(clean_store, ingest, pdfs):
    seen = []
    ingest(pdfs["paper"], progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert [s for s in seen if s[0] == "pages"] == [("pages", 1, 2), ("pages", 2, 2)]
    assert any(s[0] == "embedding" for s in seen)


def test_reindex_re_embeds_everything(clean_store, ingest, embedder, pdfs):
    from rag.ingest.reindex import reindex

    ingest(pdfs["paper"])
    n = reindex(clean_store, embedder)
    assert n["chunks"] > 0 and n["figures"] == 1
    assert all(c["ok"] for c in clean_store.doctor(embedder.model_name, embedder.dim))


def test_term_stats_follow_inserts_and_cascading_deletes(clean_store, ingest, pdfs):
    def ndoc(lexeme):
        with clean_store.transport.connection() as conn:
            row = conn.execute("select ndoc from term_stats where lexeme = %s", (lexeme,)).fetchone()
            return row[0] if row else 0

    r = ingest(pdfs["esg"])
    assert ndoc("greenfield") >= 1
    clean_store.delete_document(r.document_id)
    assert ndoc("greenfield") == 0


def test_chunk_and_figure_counts_are_kept_on_the_document(clean_store, ingest, pdfs):
    # sql/functions/documents_count_rows.sql: list_documents reads the counts from the document row (at a million chunks counting them on each call
    # took 117 ms); the triggers keep them through ingestion (as the app's role) and a direct delete
    assert ingest(pdfs["paper"]).ok and ingest(pdfs["10k_2022"]).ok
    counted = "select d.id, (select count(*) from chunks c where c.document_id = d.id), " \
              "(select count(*) from figures f where f.document_id = d.id) from documents d order by d.id"

    def listed():
        return sorted((d.document_id, d.chunks, d.figures) for d in clean_store.list_documents())

    with clean_store.transport.connection() as conn:
        assert listed() == [tuple(r) for r in conn.execute(counted).fetchall()]
        doc, n_chunks, n_figures = listed()[0]
        assert n_chunks >= 4 and n_figures == 1
        conn.execute("delete from figures where document_id = %s", (doc,))
        conn.execute("delete from chunks where id in (select id from chunks where document_id = %s limit 2)", (doc,))
        assert listed()[0] == (doc, n_chunks - 2, 0)
        assert listed() == [tuple(r) for r in conn.execute(counted).fetchall()]


def test_a_count_that_a_move_would_make_stale_is_refused(clean_store, ingest, pdfs):
    # sql/functions/documents_count_rows.sql: a team's insert of chunks waits for an owner who is moving the document to another team; once the move
    # commits, the trigger can no longer count the document (the row fails the team's write policy), so the insert is
    # refused as a serialization failure, not left with a stale count. The app role deletes no chunk or figure
    # directly (they go with their document, which still counts nothing and refuses nothing: nothing is left).
    import threading

    import psycopg

    assert ingest(pdfs["paper"]).ok
    with clean_store.transport.connection() as conn:
        doc, n = conn.execute("select id, chunk_count from documents").fetchone()
        conn.execute("update documents set workspace = 'team-a' where id = %s", (doc,))
    result: dict = {}

    def as_team_a(sql):
        with clean_store.transport.connection() as conn:
            try:
                with conn.transaction():
                    conn.execute("select set_config('rag.workspace', 'team-a', true)")
                    conn.execute("set local role rag_app")
                    result["rows"] = conn.execute(sql, (doc,)).rowcount
            except psycopg.Error as exc:
                result["error"] = exc.sqlstate

    as_team_a("delete from chunks where document_id = %s")
    assert result == {"error": "42501"}  # permission denied: not even its own
    result.clear()
    insert = ("insert into chunks (document_id, chunk_index, page_start, page_end, content, token_count) "
              "values (%s, 999, 1, 1, 'one more', 2)")
    with clean_store.transport.connection() as owner, owner.transaction():
        owner.execute("update documents set workspace = 'team-b' where id = %s", (doc,))
        t = threading.Thread(target=as_team_a, args=(insert,))
        t.start()
        t.join(2)
        assert t.is_alive(), result  # the insert waits for the move
    t.join(30)
    assert result.get("error") == "40001", result
    with clean_store.transport.connection() as conn:
        assert conn.execute("select chunk_count, (select count(*) from chunks where document_id = %s) "
                            "from documents where id = %s", (doc, doc)).fetchone() == (n, n)
        conn.execute("update documents set workspace = null where id = %s", (doc,))  # shared again
    assert clean_store.delete_document(doc)  # as the app role: the cascade refuses nothing
    with clean_store.transport.connection() as conn:
        assert conn.execute("select count(*) from chunks where document_id = %s", (doc,)).fetchone() == (0,)


def test_no_planner_statistics_on_the_counts(clean_store, ingest, pdfs):
    # sql/migrations/001_baseline.sql: the counts are seen by plain EXPLAIN's estimates of every role, across workspaces
    assert ingest(pdfs["paper"]).ok
    with clean_store.transport.connection() as conn:
        conn.execute("analyze documents")
        kept = conn.execute("select attname from pg_stats where tablename = 'documents' "
                            "and attname in ('chunk_count', 'figure_count')").fetchall()
    assert kept == []


def test_control_characters_never_reach_stored_text(clean_store, ingest, tmp_path):
    """Issue 36: a BEL drawn as a bullet is dropped at ingestion. (Text stored before issue 36 was cleaned by the
    data migration 090, squashed into the baseline by issue 37: a store at the squash point has been cleaned.)"""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "\x07 Scope 1 emissions fell by 12% as the vehicle fleet was electrified.", fontsize=11)
    page.insert_text((72, 90), "\x07 Scope 2 emissions fell by 30% with renewable electricity contracts.", fontsize=11)
    doc.save(tmp_path / "bullets.pdf")
    res = ingest(tmp_path / "bullets.pdf")
    assert res.ok
    with clean_store.transport.connection() as conn:
        text = " ".join(r[0] for r in conn.execute("select content from chunks where document_id = %s",
                                                   (res.document_id,)))
    assert "Scope 1 emissions fell" in text and "\x07" not in text
