"""Each retrieval stage on small real stores (real Postgres, real model, generated PDFs)."""

import pytest

from rag.config import RetrievalSettings
from rag.retrieve.pipeline import dynamic_k, retrieve
from rag.retrieve.query import understand
from rag.retrieve.search import SearchFilters
from rag.retrieve.stages import ScopeAndFilters


@pytest.fixture
def filings(clean_store, ingest, pdfs, tmp_path):
    import make_pdfs

    for key in ("10k_2020", "10k_2021", "10k_2022"):
        assert ingest(pdfs[key]).ok
    other = make_pdfs.make_10k(tmp_path / "globex.pdf", company="Globex Industries Incorporated", year=2022,
                               revenue=8800, capex=640)
    assert ingest(other).ok
    return clean_store


def test_the_year_in_the_question_wins(filings, embedder):
    for year, capex in ((2020, "1,300"), (2021, "1,400"), (2022, "1,577")):
        r = retrieve(filings, embedder, f"What were Acme Widgets' purchases of property, plant and equipment in {year}?")
        assert r.chunks and r.chunks[0].fiscal_year == year
        assert capex in r.chunks[0].content
        stage = r.trace.of(ScopeAndFilters)
        assert stage.notes["detected"]["year"] == year


def test_compare_question_gets_both_companies(filings, embedder):
    r = retrieve(filings, embedder, "Compare net sales of Acme Widgets and Globex Industries in 2022")
    assert {c.company for c in r.chunks} >= {"Acme Widgets Corporation", "Globex Industries Incorporated"}
    assert dynamic_k(r.intent, RetrievalSettings()) == 7  # near-identical filings are then deduplicated


def test_latest_prefers_the_newest_filing(filings, embedder):
    r = retrieve(filings, embedder, "What are the latest risk factors Acme Widgets reports?")
    assert r.chunks[0].fiscal_year == 2022


def test_follow_up_uses_the_conversation(filings, embedder):
    r = retrieve(filings, embedder, "and in 2021?", history=["What were Acme Widgets' net sales in 2022?"])
    assert r.intent.followup and r.chunks[0].fiscal_year == 2021


def test_explicit_filter_that_matches_nothing_says_so(filings, embedder):
    r = retrieve(filings, embedder, "net sales", filters=SearchFilters(year_min=1990, year_max=1991))
    assert r.refused and "no document matches the filters" in r.message and r.chunks == []


def test_question_about_something_absent_is_refused(filings, embedder):
    r = retrieve(filings, embedder, "What did Acme Widgets report under IFRS17 for its Zorbatron-9 program?")
    assert r.refused and "Zorbatron-9" in r.message and r.nearest


def test_threshold_refuses_off_topic_questions(filings, embedder):
    r = retrieve(filings, embedder, "best pasta recipe with basil", RetrievalSettings(threshold=0.5))
    assert r.refused and "above threshold 0.50" in r.message and r.nearest


def test_diversity_location_groups_and_per_document_cap(filings, embedder):
    r = retrieve(filings, embedder, "widgets demand and net sales growth", RetrievalSettings(k=7))
    groups = [(c.document_id, c.page_start, c.chunk_index // 3) for c in r.chunks]
    assert len(groups) == len(set(groups))
    per_doc = {}
    for c in r.chunks:
        per_doc[c.document_id] = per_doc.get(c.document_id, 0) + 1
    assert max(per_doc.values()) <= 3
    off = retrieve(filings, embedder, "widgets demand and net sales growth", RetrievalSettings(k=7, diversity=False))
    assert len(off.chunks) == 7


def test_results_question_gets_results_chunks_and_its_figure(clean_store, ingest, embedder, pdfs):
    assert ingest(pdfs["paper"]).ok and ingest(pdfs["esg"]).ok
    r = retrieve(clean_store, embedder, "What results does the hybrid retriever achieve?")
    assert r.chunks[0].section_type == "results"
    assert r.chunks[0].factors["section"] == 2.0
    assert 1 <= len(r.figures) <= 3
    f = r.figures[0]
    assert f.caption.startswith("Figure 1") and f.chunk_id in {c.chunk_id for c in r.chunks}
    assert f.why_shown


def test_no_figures_when_none_is_relevant(clean_store, ingest, embedder, pdfs):
    assert ingest(pdfs["paper"]).ok
    r = retrieve(clean_store, embedder, "Who are the authors and which references are cited?")
    assert all(f.similarity >= 0.2 for f in r.figures)
    assert len(r.figures) <= 3


def test_trace_records_every_stage(filings, embedder):
    r = retrieve(filings, embedder, "Acme Widgets net sales 2022")
    names = [s.stage for s in r.trace.stages]
    assert names[:3] == ["query understanding", "metadata filters", "embed query"]
    assert {"candidates (hybrid SQL)", "rerank", "coverage", "threshold", "diversity", "figures"} <= set(names)
    j = r.to_json(with_trace=True)
    assert {"cosine", "text_rank", "fused", "recency", "section", "metadata", "final"} <= set(j["results"][0]["scores"])


def test_dynamic_k():
    cfg = RetrievalSettings()
    assert dynamic_k(understand("Scope 1 emissions?"), cfg) == 3
    assert dynamic_k(understand("What drove the change in operating margin for the company in the last year?"), cfg) == 5
    assert dynamic_k(understand("Compare revenue between 2020, 2021 and 2022"), cfg) == 7


def test_query_embedding_cache(embedder):
    embedder.encode_query("a cached question")
    hits = embedder.cache_hits
    embedder.encode_query("a cached question")
    assert embedder.cache_hits == hits + 1


def test_cross_encoder_path_with_a_tiny_local_model(filings, embedder, tmp_path):
    """No cross-encoder weights ship offline: build a tiny random one locally to exercise the code path."""
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from rag.embed import resolve_model_path

    cfg = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=37, num_labels=1)
    BertForSequenceClassification(cfg).save_pretrained(tmp_path / "ce")
    AutoTokenizer.from_pretrained(resolve_model_path("all-MiniLM-L6-v2")).save_pretrained(tmp_path / "ce")
    r = retrieve(filings, embedder, "Acme Widgets net sales 2022",
                 RetrievalSettings(cross_encoder=str(tmp_path / "ce"), threshold=0.0))
    assert r.chunks and all(0.0 < c.factors["rerank"] < 1.0 for c in r.chunks)
    assert all(c.relevance == c.factors["rerank"] for c in r.chunks)


def test_eval_reports_system_and_baseline(filings, embedder, tmp_path):
    import json

    from rag.eval import run_eval

    qf = tmp_path / "eval" / "q.jsonl"
    qf.parent.mkdir()
    qs = [
        {"id": "a", "question": "Acme Widgets purchases of property, plant and equipment 2021", "kind": "fact",
         "docs": ["acme_old"], "pages": {"acme_old": [4]}, "answer": "1,400", "figure": None, "section": None},
        {"id": "b", "question": "What did Acme Widgets report about its Zorbatron-9 program?", "kind": "unanswerable",
         "docs": [], "pages": {}, "answer": None, "figure": None, "section": None},
    ]
    qf.write_text("\n".join(json.dumps(q) for q in qs))
    rep = run_eval(filings, embedder, qf, k=5, baseline=True)
    assert rep["system"]["doc@k"] == 1.0 and rep["system"]["refusal_unanswerable"] == 1.0
    assert rep["baseline"]["refusal_unanswerable"] == 0.0
    assert rep["plot"]["metrics"][0] == "doc@k" and len(rep["plot"]["system"]) == len(rep["plot"]["baseline"])
    # the Debug page's own questions (issue 36): rows a user wrote, by the document's label, run the same way
    from rag.eval import questions_of_rows

    own = questions_of_rows([{"question": "Acme Widgets purchases of property, plant and equipment 2021",
                              "document": "Acme 10-K FY2021", "page": 4},
                             {"question": "  ", "document": "Acme 10-K FY2021", "page": 4},
                             {"question": "no page", "document": "Acme 10-K FY2021", "page": None}],
                            {"Acme 10-K FY2021": "acme_old"})
    assert len(own) == 1 and own[0]["pages"] == {"acme_old": [4]}
    qf.write_text(json.dumps(own[0]))
    assert run_eval(filings, embedder, qf, k=5)["system"]["page@k"] == 1.0


def test_named_statement_is_found_and_preferred(filings, embedder):
    r = retrieve(filings, embedder, "What were Acme Widgets' purchases of property, plant and equipment in 2022? "
                                    "Use the cash flow statement.")
    top = r.chunks[0]
    assert "Purchases of property, plant and equipment (PP&E) | (1,577)" in top.content
    assert "Consolidated Statement of Cash Flows" in top.heading  # the statement heads its sub-sections
    assert top.factors["section"] > 1.6
    r = retrieve(filings, embedder, "What were Acme Widgets' total inventories at year end 2022? Use the balance sheet.")
    assert "Inventories | 4,366" in r.chunks[0].content
    assert r.chunks[0].heading.endswith("Consolidated Balance Sheet")
    boosted = [c for c in r.candidates if c.factors["section"] > 1.6]
    assert boosted and all("Consolidated Balance Sheet" in c.heading for c in boosted)


def test_a_document_named_by_its_date_or_by_another_years_label(clean_store, ingest, embedder, pdfs, tmp_path):
    import make_pdfs

    assert ingest(pdfs["10k_2022"]).ok
    release = make_pdfs.make_earnings_release(tmp_path / "acme_q4.pdf")
    res = ingest(release)
    assert res.ok and res.metadata["fiscal_year"] == 2022 and res.metadata["published_date"] == "2023-03-09"
    docs = {d.file_name: d for d in clean_store.list_documents()}
    assert docs["acme_q4.pdf"].year_labels == (2022, 2023)
    # "FY2023" in the retailer's sense of "the year that ended in January 2023"
    r = retrieve(clean_store, embedder, "What drove Acme Widgets' comparable sales growth in FY2023?")
    assert r.chunks[0].file_name == "acme_q4.pdf"
    r = retrieve(clean_store, embedder, "What did Acme Widgets announce on March 9, 2023?")
    assert {c.file_name for c in r.chunks} == {"acme_q4.pdf"}
    assert r.trace.of(ScopeAndFilters).notes["detected"]["dates"]


def test_a_small_library_gets_the_exact_nearest_chunks(filings, embedder):
    """Up to 30,000 chunks the semantic candidates are the exact cosine top-k (056), never an approximate index's."""
    import numpy as np

    with filings.transport.connection() as c:
        ids = [r[0] for r in c.execute("select id from chunks").fetchall()]
    embs = filings.chunk_embeddings(ids)
    for q in ("purchases of property, plant and equipment", "risk factors about suppliers", "Globex revenue"):
        v = embedder.encode_query(q)
        exact = sorted(embs, key=lambda i: -float(np.dot(embs[i], v)))[:20]
        hits = filings.match_chunks(v, "", match_count=20, candidate_count=20)
        by_rank = [h.chunk_id for h in sorted(hits, key=lambda h: h.semantic_rank or 10**6)]
        assert by_rank == exact


def test_sub_searches_in_parallel_give_what_they_give_in_turn(filings, embedder):
    """The question's search, the statement title's and each named company's run at once on pooled connections;
    the candidates, their order and scores are those of the same searches one after another."""
    from rag.retrieve.stages import Candidates

    q = "Compare the income statement of Acme Widgets in 2021 with Globex Industries in 2022"
    seen = {}
    for parallel in (1, 3, 2):
        cfg = RetrievalSettings()
        cfg.candidates.parallel_searches = parallel
        r = retrieve(filings, embedder, q, cfg)
        stage = r.trace.of(Candidates)
        assert stage.notes["sub_searches"] >= 2  # two companies, and the statement title
        seen[parallel] = [(c.chunk_id, round(c.fused_score, 9)) for c in r.chunks], stage.notes
    assert seen[1] == seen[3] == seen[2]
