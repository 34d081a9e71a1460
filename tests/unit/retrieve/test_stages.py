"""Each retrieval stage on hand-built records (no database). Stages that call the store are tested through their
pure parts (pool_of, not_mentioned, select, Figures.admit and best); tests/db runs them whole on real Postgres."""

import numpy as np
import pytest
from hand_built import cand, doc, figure, hit

from rag.config import RetrievalSettings
from rag.records import Refusal
from rag.retrieve.pipeline import run_stages
from rag.retrieve.query import Entity, understand
from rag.retrieve.search import SearchFilters
from rag.retrieve.stages import (
    Budget,
    Coverage,
    Figures,
    Rerank,
    ScopeAndFilters,
    State,
    _Picker,
    Threshold,
    Understand,
    diversity_notes,
    dynamic_k,
    not_mentioned,
    own_similarity,
    pool_of,
    select,
)

DOCS = [doc(1, year=2021), doc(2, year=2022), doc(3, "Globex Industries Inc", 2022),
        doc(4, None, 2023, "research paper")]


def state(question: str, user: SearchFilters | None = None, cfg: RetrievalSettings | None = None) -> State:
    s = State(question, None, None, cfg or RetrievalSettings(), DOCS, user or SearchFilters())
    assert run_stages([Understand()], s).refusal is None
    return s


def test_understand_records_what_it_detected():
    s = state("Compare Acme Widgets and Globex net sales in 2022")
    assert s.it.companies == ["acme widgets", "globex industries"] and s.it.years == [2022]
    entry = s.trace.of(Understand)
    assert entry.notes["compare"] and entry.stage == "query understanding"
    assert s.it.entities == [Entity(company="acme widgets"), Entity(company="globex industries")]


def test_scope_turns_a_detected_company_and_year_into_filters():
    s = state("What were Acme Widgets' net sales in 2022?")
    run_stages([ScopeAndFilters()], s)
    assert [d.document_id for d in s.where.docs] == [2]
    assert s.where.params["filter_companies"] == ["acme widgets"] and s.where.params["filter_document_ids"] == [2]
    assert s.trace.of(ScopeAndFilters).notes["detected"] == {"companies": ["acme widgets"], "year": 2022}


def test_a_paper_named_by_its_title_is_the_scope_and_a_generic_title_names_nothing():
    from rag.retrieve.stages import short_title
    papers = [doc(11, None, 2023, "research paper", title="LONGEVAL: Guidelines for Human Evaluation"),
              doc(12, None, 2020, "research paper", title="S2ORC: The Semantic Scholar Open Research Corpus"),
              doc(13, None, 2023, "research paper", title="A Perspective on Explanations"),
              doc(14, "Acme Widgets Corporation", 2023, "annual report", title="Annual Report 2023: Our year")]
    s = State("How much did LongEval spend on Upwork annotators?", None, None, RetrievalSettings(), papers,
              SearchFilters())
    run_stages([Understand(), ScopeAndFilters()], s)
    assert [d.document_id for d in s.where.docs] == [11] and s.where.params["filter_document_ids"] == [11]
    assert s.trace.of(ScopeAndFilters).notes["detected"]["documents"] == ["longeval"]
    s = State("What did S2ORC-SciBERT score on ChemProt?", None, None, RetrievalSettings(), papers, SearchFilters())
    run_stages([Understand(), ScopeAndFilters()], s)
    assert [d.document_id for d in s.where.docs] == [12]  # "S2ORC-SciBERT" names the S2ORC paper's model
    s = State("What does the annual report 2023 say about water?", None, None, RetrievalSettings(), papers,
              SearchFilters())
    run_stages([Understand(), ScopeAndFilters()], s)
    assert len(s.where.docs) == 4  # a generic title names no document
    assert short_title("Note: a remark") is None and short_title("Paper Plain: Making papers") == "paper plain"


def test_scope_refuses_user_filters_that_match_nothing():
    s = state("net sales", SearchFilters(year_min=1990, year_max=1991))
    run_stages([ScopeAndFilters(), Rerank()], s)
    assert isinstance(s.refusal, Refusal) and "no document matches the filters" in s.refusal.message
    assert [e.stage for e in s.trace.stages] == ["query understanding", "metadata filters"]  # nothing after it ran


def test_a_year_a_company_has_no_document_for_stays_a_boost():
    s = state("What were Acme Widgets' net sales in 2019?")
    run_stages([ScopeAndFilters()], s)
    assert "year" not in s.where.detected and {d.document_id for d in s.where.docs} == {1, 2}


def test_pool_keeps_the_questions_hits_and_caps_title_hits_at_the_median():
    hits = [hit(1, fused=0.03), hit(2, fused=0.02), hit(3, fused=0.01)]
    title = [hit(2, fused=0.5), hit(7, fused=0.5)]
    ents = [hit(8, 3, fused=0.04), hit(1, fused=0.9)]
    pool = pool_of(hits, title, ents, DOCS)
    assert [c.chunk_id for c in pool] == [1, 2, 3, 7, 8]
    assert pool[3].fused == 0.02 and pool[3].fused_score == 0.5  # entered at the median; the hit keeps its score
    assert pool[4].company_key == "globex industries" and pool[4].year_labels == (2022,)


def test_rerank_sorts_by_final_score():
    s = state("What were Acme Widgets' net sales in 2022?")
    run_stages([ScopeAndFilters()], s)
    s.candidates = [cand(1, DOCS[0], fused=0.03), cand(2, DOCS[1], fused=0.02)]
    run_stages([Rerank()], s)
    assert [c.chunk_id for c in s.candidates] == [2, 1]  # the year asked beats the higher fused score
    assert s.candidates[0].final == 1.0 and s.trace.of(Rerank).n_out == 2


def test_coverage_names_the_documents_searched():
    r = not_mentioned(["DocVQA"], DOCS[:2], DOCS, [cand(1)])
    assert r.message == "insufficient data: the documents of Acme Widgets Corporation do not mention 'DocVQA'"
    assert not_mentioned(["X"], DOCS, DOCS, []).message.startswith("insufficient data: the documents do not")
    assert Coverage.name == "coverage"


def test_threshold_refuses_with_the_nearest_passages():
    s = state("net sales", cfg=RetrievalSettings(threshold=0.6))
    s.candidates = [cand(1, relevance=0.5), cand(2, relevance=0.55)]
    run_stages([Threshold()], s)
    assert s.refusal.message == "no relevant passages above threshold 0.60"
    assert [c.chunk_id for c in s.refusal.nearest] == [2, 1] and s.threshold == 0.6
    s = state("net sales")
    s.candidates = [cand(1, relevance=0.5), cand(2, relevance=0.1)]
    run_stages([Threshold()], s)
    assert s.refusal is None and [c.chunk_id for c in s.passed] == [1]


def test_dynamic_k():
    cfg = RetrievalSettings()
    assert dynamic_k(understand("Who wrote the paper?"), cfg) == 3
    assert dynamic_k(understand("net sales 2022"), cfg) == 5  # a statement implied: not short
    assert dynamic_k(understand("What were the net sales of the company in fiscal 2022 and why?"), cfg) == 5
    assert dynamic_k(understand("Compare net sales in 2021 and 2022"), cfg) == 7
    assert dynamic_k(understand("net sales"), RetrievalSettings(k=4)) == 4


def _emb(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_select_caps_documents_and_skips_near_duplicates_and_taken_locations():
    cfg = RetrievalSettings()
    text = "Net sales rose because demand for widgets grew in every region we serve."
    cs = [cand(1, DOCS[1], text, final=1.0, page=1, chunk_index=0),
          cand(2, DOCS[1], text, final=0.9, page=5, chunk_index=20),  # the same words: a near-duplicate
          cand(3, DOCS[1], "Operating income fell on higher costs of raw materials.", final=0.8, page=1,
               chunk_index=1),  # the same place as chunk 1
          cand(4, DOCS[1], "Cash flows from operations were strong this year overall.", final=0.7, page=9),
          cand(5, DOCS[1], "Inventories were reduced across all distribution centres.", final=0.6, page=12),
          cand(6, DOCS[1], "Capital expenditure went mainly to new production lines.", final=0.5, page=14)]
    embs = {c.chunk_id: _emb(1, i * 0.1, 0) for i, c in enumerate(cs)}
    chosen = select(cs, 5, False, embs, [], cfg)
    assert [c.chunk_id for c in chosen] == [1, 4, 5]  # at most 3 per document
    assert [c.chunk_id for c in select(cs, 5, True, embs, [], cfg)] == [1, 4, 5, 6]  # one document: no cap

    # the record the Debug page shows: what each rule set aside, and what MMR changed against the plain top-k
    picker = _Picker(cfg.max_per_document, cfg.selection.location_group_chunks, cfg.selection.near_duplicate_jaccard)
    chosen = select(cs, 5, False, embs, [], cfg, picker)
    assert picker.ruled_out == {2: "near-duplicate", 3: "same location group", 6: "per-document cap"}
    notes = diversity_notes(cs, cs[:5], chosen, picker.ruled_out)
    assert notes["before"] == {"chunks": 5, "documents": 1, "pages": 4}
    assert notes["after"] == {"chunks": 3, "documents": 1, "pages": 3}
    assert notes["ruled_out"] == {"near-duplicate": 1, "per-document cap": 1, "same location group": 1}
    assert notes["brought_in"] == []
    assert notes["left_out"] == [{"chunk_id": 2, "rank": 2, "why": "near-duplicate"},
                                 {"chunk_id": 3, "rank": 3, "why": "same location group"}]


def test_select_takes_each_entitys_best_chunk_first():
    cfg = RetrievalSettings()
    acme = [cand(i, DOCS[1], f"Acme passage number {i} about net sales and widgets {i}.", final=1 - i / 10, page=i)
            for i in range(1, 6)]
    globex = cand(9, DOCS[2], "Globex net sales were lower.", final=0.1, page=1)
    embs = {c.chunk_id: _emb(1, c.chunk_id, 0) for c in acme + [globex]}
    ents = [Entity(company="acme widgets"), Entity(company="globex industries")]
    chosen = select(acme + [globex], 3, False, embs, ents, cfg)
    assert 9 in {c.chunk_id for c in chosen} and chosen[-1].chunk_id == 9


def test_budget_keeps_chunks_in_rank_order_until_the_characters_are_spent():
    s = state("net sales", cfg=RetrievalSettings(context_chars=250))
    s.chosen = [cand(1, content="a" * 200), cand(2, content="b" * 100), cand(3, content="c" * 10)]
    run_stages([Budget()], s)
    assert [c.chunk_id for c in s.chosen] == [1] and s.trace.of(Budget).notes["used"] == 200
    s.chosen = [cand(1, content="a" * 900)]
    run_stages([Budget()], s)
    assert len(s.chosen) == 1  # the best chunk always stays


def test_figures_keep_linked_and_close_figures_above_their_floors():
    cfg = RetrievalSettings()
    chunks = [cand(1), cand(2)]
    found = [figure(1, 2, 0.25, True), figure(2, None, 0.45, False), figure(3, None, 0.3, False),
             figure(4, 1, 0.1, True), figure(5, None, 0.41, False), figure(6, 1, 0.5, True)]
    kept = Figures.best(Figures.admit(found, chunks, cfg), cfg)
    assert [f.figure_id for f in kept] == [6, 2, 5]  # at most 3; the linked bonus ranks 6 first
    assert kept[0].why_shown.startswith("linked to answer chunk #1")
    assert kept[1].why_shown == "caption/context similarity 0.45, own words 0.00"


def test_a_figure_is_admitted_by_its_own_words_when_its_stored_vector_is_mostly_its_page():
    """Charts side by side on one page score alike by their stored vectors (caption and the page around them);
    one below the floor is still admitted when its own words (caption, legend, labels) are close to the
    question."""
    cfg = RetrievalSettings()
    female, male = figure(1, None, 0.52, False), figure(2, None, 0.37, False)
    female.own_similarity, male.own_similarity = 0.40, 0.48
    far = figure(3, None, 0.30, False)
    far.own_similarity = 0.25
    kept = Figures.admit([female, male, far], [cand(1)], cfg)
    assert [f.figure_id for f in kept] == [1, 2]
    assert kept[1].why_shown == "caption/context similarity 0.37, own words 0.48"


def test_figures_are_ranked_by_their_own_words_against_what_the_question_asks_about(embedder):
    """The issuer's name, which any figure of its report may bear, does not rank a figure that only repeats it
    ("Vonovia in Figures") over the one that shows what is asked; the real embedding model judges."""
    from rag.words import measure_text

    question = "share of Vonovia apartments per energy efficiency class"
    brochure = figure(1, None, 0.60, False, caption="Vonovia in Figures")
    classes = figure(2, None, 0.55, False, caption="Energy Efficiency Standards in the Portfolio (Germany)")
    embedder.load()
    about = measure_text(question, ["Vonovia SE", "vonovia"])
    own_similarity([brochure, classes], embedder.encode_query(question), embedder, embedder.encode_query(about))
    assert brochure.measure_similarity is not None and classes.measure_similarity is not None
    assert brochure.measure_similarity < brochure.own_similarity  # the name no longer counts for it
    bonus = RetrievalSettings().selection.linked_figure_bonus
    assert classes.score(bonus) > brochure.score(bonus)
    # the floor admits a figure close to what is asked though not to the whole question
    cfg = RetrievalSettings()
    classes.similarity, classes.own_similarity, classes.measure_similarity = 0.2, 0.2, cfg.figure_floor + 0.01
    assert Figures.admit([classes], [cand(1)], cfg) == [classes]


@pytest.mark.parametrize("stage", [Understand, ScopeAndFilters, Rerank, Coverage, Threshold, Budget, Figures])
def test_every_stage_has_a_name_for_the_trace(stage):
    assert stage.name and stage.name == stage().name


def test_a_quarter_of_a_fiscal_year_scopes_to_that_quarters_documents():
    docs = [doc(1, year=2023, doc_type="earnings release", fiscal_period="Q4"),
            doc(2, year=2023, doc_type="10-Q", fiscal_period="Q2"), doc(3, year=2023),
            doc(4, year=2022, doc_type="earnings release", fiscal_period="Q4")]
    for q, want in [("How did Acme Widgets' gross margin change in FY2023Q4?", [1, 3]),
                    ("Acme Widgets 2Q23 net sales", [2]), ("Acme Widgets net sales in the second quarter of fiscal 2023", [2])]:
        s = State(q, None, None, RetrievalSettings(), docs, SearchFilters())
        run_stages([Understand(), ScopeAndFilters()], s)
        assert [d.document_id for d in s.where.docs] == want, q
    # a quarter no document reports stays a boost
    s = State("Acme Widgets 1Q23 net sales", None, None, RetrievalSettings(), docs, SearchFilters())
    run_stages([Understand(), ScopeAndFilters()], s)
    assert "year" not in s.where.detected
