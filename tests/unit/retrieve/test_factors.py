"""Each rerank factor on hand-built candidates (no database): the multiplier and its reason."""

import pytest
from hand_built import cand, context, doc

from rag.config import RetrievalSettings
from rag.retrieve import factors, rerank

TABLE = "Consolidated Balance Sheet\nInventories | 4,366 | 4,100\nTotal assets | 9,000 | 8,500\nCash | 1 | 2"


def test_metadata_boosts_the_company_year_and_type_named():
    cfg = RetrievalSettings()
    ctx = context("What were Acme Widgets' net sales in the 10-K for 2022?")
    m, why = factors.metadata(cand(1), ctx)
    assert m == pytest.approx(cfg.company_boost * cfg.year_boost * cfg.period_boost)  # a type named: no annual boost
    assert "company named" in why and "year 2022" in why and "a 10-K" in why
    older = cand(2, doc(2, year=2020))
    assert factors.metadata(older, ctx)[0] == pytest.approx(cfg.company_boost * cfg.period_boost)
    annual = context("What were Acme Widgets' net sales in 2022?")
    assert factors.metadata(cand(3), annual)[0] == pytest.approx(cfg.company_boost * cfg.year_boost * cfg.period_boost)
    q2 = cand(4, doc(4, year=2022, doc_type="10-Q", fiscal_period="Q2"))
    assert factors.metadata(q2, annual)[0] == pytest.approx(cfg.company_boost * cfg.year_boost)


def test_metadata_gives_no_company_boost_when_the_company_is_already_a_filter():
    ctx = context("What were Acme Widgets' net sales?", filtered_companies=True)
    m, why = factors.metadata(cand(1), ctx)
    assert m == 1.0 and why == "no named company, period or type"


def test_recency_decays_with_age_against_the_issuers_newest():
    ctx = context("What are Acme Widgets' risks?", newest_by_company={"acme widgets": 2022.0})
    new, _ = factors.recency(cand(1), ctx)
    old, why = factors.recency(cand(2, doc(2, year=2019)), ctx)
    assert new == 1.0 and old < new and "3.0 years older" in why
    assert ctx.recency_weight == RetrievalSettings().factors.recency_weight_company  # a company without a period


def test_recency_weight_is_one_for_latest_and_for_a_history_up_to_now():
    assert context("What is the latest revenue?").recency_weight == 1.0
    assert context("Are Acme Widgets' gross margins historically consistent?").recency_weight == 1.0
    assert context("What was Acme Widgets' gross margin trend from 2019 to 2021?").recency_weight < 1.0  # a period


def test_a_history_prefers_the_annual_reports_that_show_several_years():
    ctx = context("Are Acme Widgets' gross margins historically consistent?")
    annual, why = factors.metadata(cand(1), ctx)
    release, _ = factors.metadata(cand(2, doc(2, doc_type="earnings release", fiscal_period="Q4")), ctx)
    assert annual > release and "reports several years" in why
    assert factors.recency_factor(3.0, 1.0, 3.0) == pytest.approx(0.5)
    assert factors.recency_factor(10.0, 0.0, 3.0) == 1.0


def test_section_boosts_a_papers_target_section():
    cfg = RetrievalSettings()
    paper = doc(1, company=None, doc_type="research paper")
    ctx = context("What results does the method achieve?", [paper])
    assert factors.section(cand(1, paper, section_type="results"), ctx)[0] == cfg.section_boost
    assert factors.section(cand(2, paper, section_type="discussion"), ctx)[0] == cfg.related_section_boost
    assert factors.section(cand(3, paper, section_type="references"), ctx)[0] == 1.0


def test_section_boosts_the_statement_itself_not_a_discussion_of_it():
    cfg = RetrievalSettings()
    ctx = context("What were total inventories? Use the balance sheet.")
    sheet = cand(1, content=TABLE, heading="Item 8 › Consolidated Balance Sheet")
    talk = cand(2, content="Inventories rose, as the Consolidated Balance Sheet shows in detail for the year.")
    s, why = factors.section(sheet, ctx)
    assert s == pytest.approx(cfg.statement_boost * cfg.factors.statement_table_boost) and "balance sheet" in why
    assert factors.section(talk, ctx)[0] == 1.0


def test_section_boosts_the_filing_part_and_lowers_boilerplate():
    cfg = RetrievalSettings()
    ctx = context("What risks is Acme Widgets exposed to?")
    assert factors.section(cand(1, heading="Item 1A. Risk Factors"), ctx)[0] == cfg.filing_section_boost
    assert factors.section(cand(2, heading="Item 15. Exhibits"), ctx)[0] == cfg.factors.boilerplate_factor
    asks = context("Which exhibits does the 10-K list?")
    assert factors.section(cand(3, heading="Item 15. Exhibits"), asks)[0] == 1.0


def test_table_factor_only_when_a_number_is_wanted():
    f = RetrievalSettings().factors
    share = factors.table_share(cand(1, content=TABLE))
    assert share == 0.75
    assert factors.table(cand(1, content=TABLE), context("What is the total amount of inventories?"))[0] == \
        pytest.approx(1 + f.table_boost * share)
    assert factors.table(cand(1, content=TABLE), context("Why did inventories rise?"))[0] == 1.0


def test_heuristic_short_long_first_and_early_chunks():
    f = RetrievalSettings().factors
    ctx = context("What drove net sales?")
    short, why = factors.heuristic(cand(5, content="Too short."), ctx)
    assert short == pytest.approx(f.short_chunk_factor * (1 + f.early_position_bonus * 0.5)) and "short" in why
    long_ = factors.heuristic(cand(9, content="word " * 500), ctx)[0]
    assert long_ == pytest.approx(f.long_chunk_factor * (1 + f.early_position_bonus * 0.1))
    first = factors.heuristic(cand(0, content="word " * 100, chunk_index=0), ctx)[0]
    assert first == pytest.approx(f.first_chunk_other * (1 + f.early_position_bonus))
    intro = factors.heuristic(cand(0, content="word " * 100, chunk_index=0), context("What is the background?"))[0]
    assert intro == pytest.approx(f.first_chunk_intro * (1 + f.early_position_bonus))


def test_a_comparison_of_named_things_prefers_the_passage_naming_all_of_them():
    f = RetrievalSettings().factors
    paper = doc(1, company=None, doc_type="research paper")
    ctx = context("How does the XYModel compare with GPT-4o on recall?", [paper])
    both = "Method Precision Recall\nGPT-4o | 0.96 | 0.69\nXYModel-7b-Selector | 0.95 | 0.78"  # a row named after it
    assert factors.comparands(cand(1, paper, content=both), ctx) == (
        f.comparand_boost, "names every one compared: XYModel, GPT-4o")
    assert factors.comparands(cand(2, paper, content="The XYModel crawler expands citations."), ctx) == (
        1.0, "names 1 of the 2 compared")
    assert factors.comparands(cand(3, paper, content="GPT-4omega and myXYModel"), ctx)[0] == 1.0  # not those names
    one_named = context("What recall does GPT-4o reach?", [paper])
    assert factors.comparands(cand(4, paper, content=both), one_named)[0] == 1.0


def test_relevance_is_cosine_plus_a_share_of_text_rank():
    c = cand(1, cosine=0.4, text_rank=0.8)
    assert factors.relevance(c, context("net sales")) == pytest.approx(0.4 + 0.25 * 0.8)
    assert factors.relevance(cand(2, cosine=0.95, text_rank=1.0), context("x")) == 1.0


def test_score_multiplies_the_factors_and_normalises_the_final_score():
    cs = [cand(1, fused=0.03), cand(2, fused=0.015, content=TABLE)]
    ctx = context("What were Acme Widgets' net sales in 2022?")
    rerank.score(cs, ctx)
    assert max(c.final for c in cs) == 1.0
    for c in cs:
        assert list(c.factors) == ["fused_norm", "metadata", "recency", "section", "table", "comparands",
                                   "heuristic"]
        assert set(c.reasons) == set(c.factors)
    a, b = cs
    prod = lambda c: c.factors["fused_norm"] * c.factors["metadata"] * c.factors["recency"] * \
        c.factors["section"] * c.factors["heuristic"] * c.factors["table"] * c.factors["comparands"]
    assert b.final == pytest.approx(prod(b) / max(prod(a), prod(b)))


def test_score_without_rerank_is_the_fused_score():
    cs = [cand(1, fused=0.03), cand(2, fused=0.015)]
    rerank.score(cs, context("net sales", cfg=RetrievalSettings(rerank=False)))
    assert [c.final for c in cs] == [1.0, 0.5]
