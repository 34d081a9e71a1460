"""The answer's first sentence from table facts (rag/answer/lead.py) and computed metrics (rag/answer/metrics.py):
what a question asks, which row answers it, how the sentence reads, and how a metric is computed and shown."""

import pytest

from rag.answer.lead import Ask, best_facts, compare_sentence, computation_sentences, fact_sentence, strip_instructions
from rag.answer.metrics import compute, evaluate, label_rank, line_items, metric_of, metrics
from rag.records import DocumentMeta, Fact
from rag.retrieve.query import understand

BOEING = DocumentMeta(1, "BOEING_2022_10K.pdf", company="The Boeing Company", company_key="boeing", fiscal_year=2022,
                      doc_type="10-K")
KNOWN = {"boeing": "The Boeing Company", "adobe": "Adobe Inc.", "kion": "KION GROUP AG"}


def _fact(i, label, value, year, path=None, title="Consolidated Statements of Operations", unit="USD", scale=1e6,
          chunk=10, doc=1, period=None, fp="FY", raw=None, change=False):
    return Fact(i, doc, chunk, 45, label, path or label, str(year), period or f"FY{year}", year, fp, change, value,
                raw or f"{value:,.0f}", unit, scale, title, f"{label} | {raw or value}")


def _ask(q):
    return Ask.of(understand(q, KNOWN))


def test_the_question_without_its_instructions():
    q = ("Assume that you are a public equities analyst. Answer the following question by primarily using "
         "information that is shown in the balance sheet: what is the year end FY2018 net PPNE for 3M? Answer in USD "
         "billions.")
    assert strip_instructions(q) == "what is the year end FY2018 net PPNE for 3M?"
    ask = _ask("What is the FY2018 capital expenditure amount (in USD millions) for Boeing? Give a response to the "
               "question by relying on the details shown in the cash flow statement.")
    assert ask.terms == ["capital", "expenditure"] and ask.years == [2018] and ask.companies == ["boeing"]
    assert ask.jargon == [frozenset({"capital", "expenditure"})] and {"purchas", "property"} <= ask.expansion
    assert ask.statement == "cash flows"


def test_the_sentence_that_answers_with_the_change_computed_by_code():
    ask = _ask("What were Boeing's total revenues in 2022?")
    now = _fact(1, "Total revenues", 66608, 2022)
    before = _fact(2, "Total revenues", 62286, 2021)
    computed = []
    assert fact_sentence(now, BOEING, 1, [before], ask, computed) == (
        "Boeing's total revenues were $66,608 million in FY2022, up 6.9% from $62,286 million in FY2021 [1]. "
        "(As printed in the table “Consolidated Statements of Operations”, p. 45.)")
    assert computed == ["6.9%"]  # not printed anywhere: verification knows it was computed


def test_the_row_that_answers():
    facts = [_fact(1, "Direct energy use", 1571993, 2023, unit="GJ", scale=1, title="Energy use"),
             _fact(2, "Total energy use within the organization (direct and indirect)", 2296953, 2023, unit="GJ",
                   scale=1, title="Energy use"),
             _fact(3, "Share of renewable energy use", 20.3, 2023, unit="%", scale=1, title="Energy use"),
             _fact(4, "Energy sold", 8453, 2023, unit="GJ", scale=1, title="Energy use")]
    best = best_facts(facts, _ask("How much energy did the KION Group consume in 2023?"), {}, {})
    assert best[0].fact.fact_id == 2  # the whole, a quantity (not a share), 'consume' read as 'use'

    scopes = [_fact(1, "Greenhouse gas emissions – Scope 1 and 2", 188231, 2023, unit="t CO2e", scale=1, chunk=3),
              _fact(2, "Direct (Scope 1)", 110769, 2023, unit="t CO2e", scale=1, chunk=3)]
    best = best_facts(scopes, _ask("What were KION's direct (Scope 1) greenhouse gas emissions in 2023?"), {}, {})
    assert best[0].fact.fact_id == 2  # Scope 1, not Scope 1 and 2

    revenue = [_fact(1, "Net revenue", 24117, 2022, path="Net revenue", title="Supplemental Unaudited Pro Forma "
                     "Information", chunk=1),
               _fact(2, "Net revenue", 23601, 2022, chunk=2),
               _fact(3, "Data Center", 6043, 2022, path="Net revenue › Data Center", title="Segment information",
                     chunk=3)]
    assert best_facts(revenue, _ask("What was AMD's net revenue in 2022?"), {}, {})[0].fact.fact_id == 2
    assert best_facts(revenue, _ask("What was AMD's Data Center net revenue in 2022?"), {}, {})[0].fact.fact_id == 3

    periods = [_fact(1, "Total revenues", 66608, 2022), _fact(2, "Total revenues", 62286, 2021)]
    assert best_facts(periods, _ask("What were Boeing's total revenues in FY2021?"), {}, {})[0].fact.fact_id == 2


def test_metric_definitions_come_from_one_table_with_their_conventions():
    names = {m.name for m in metrics()}
    assert {"gross margin", "operating margin", "current ratio", "quick ratio", "capex to revenue",
            "days payable outstanding", "inventory turnover", "effective tax rate", "payout ratio",
            "return on assets", "scope 1 and 2 emissions", "emissions per employee"} <= names
    assert all(m.convention for m in metrics())
    assert metric_of("Does Adobe have an improving operating margin profile as of FY2022?").name == "operating margin"
    assert metric_of("Compute the acid-test ratio").name == "quick ratio"
    assert metric_of("KION's Scope 1 and 2 emissions per employee").name == "emissions per employee"
    assert metric_of("What were total revenues?") is None
    assert evaluate("(a + b) / c * 365", {"a": 1, "b": 2, "c": 3}) == 365
    with pytest.raises(ValueError):
        evaluate("__import__('os')", {})


def test_line_item_labels_match_by_their_mode():
    items = line_items()
    assert label_rank(items["revenue"], "Total net sales") == 0
    assert label_rank(items["revenue"], "Net sales — Products") is None  # '=': the whole label only
    assert label_rank(items["capex"], "Purchases of property, plant and equipment (PP&E)") == 0  # the start
    assert label_rank(items["scope_1"], "Combustion processes", "Scope 1 (direct carbon emissions) › Combustion "
                                                                "processes") is not None  # '~': anywhere


def test_a_metric_computed_from_facts_with_its_formula_cited():
    facts = {("operating_income", 2022): _fact(1, "Operating income", 6098, 2022, chunk=7),
             ("revenue", 2022): _fact(2, "Total revenue", 17606, 2022, chunk=7)}
    c = compute(metric_of("operating margin"), 2022, lambda item, year: facts.get((item, year)))
    assert c is not None and round(c.value, 1) == 34.6
    lead, formula = computation_sentences(c, DocumentMeta(3, "ADOBE_2022_10K.pdf", company="Adobe Inc."), {7: 1})
    assert lead == "Adobe's operating margin was 34.6% in FY2022 [1]."
    assert formula == "Operating margin = operating income 6,098 / revenue 17,606 = 34.6% [1]."
    # an input that is not found: no number is guessed
    assert compute(metric_of("operating margin"), 2021, lambda item, year: facts.get((item, year))) is None
    # an average balance when the year before is found, else the year-end balance (and the answer says so)
    inv = {("cost_of_sales", 2023): _fact(1, "Cost of sales", 36386, 2023),
           ("inventory", 2023): _fact(2, "Merchandise inventories", 5140, 2023),
           ("inventory", 2022): _fact(3, "Merchandise inventories", 5965, 2022)}
    turn = compute(metric_of("inventory turnover"), 2023, lambda item, year: inv.get((item, year)))
    assert turn is not None and round(turn.value, 2) == round(36386 / ((5140 + 5965) / 2), 2)
    del inv[("inventory", 2022)]
    turn = compute(metric_of("inventory turnover"), 2023, lambda item, year: inv.get((item, year)))
    assert turn is not None and "year-end balance" in turn.notes[0]
    # inputs that cannot belong together (a margin of 1,000%) are refused, not shown
    bad = {("operating_income", 2022): _fact(1, "Operating income", 6098, 2022, scale=1e6),
           ("revenue", 2022): _fact(2, "Total revenue", 176, 2022, scale=1e6)}
    assert compute(metric_of("operating margin"), 2022, lambda item, year: bad.get((item, year))) is None


def test_a_comparison_states_the_difference():
    adobe = DocumentMeta(3, "a.pdf", company="Adobe Inc.", company_key="adobe")
    amd = DocumentMeta(4, "b.pdf", company="Advanced Micro Devices, Inc.", company_key="amd")
    facts = [_fact(1, "Research and development", 5005, 2022, doc=4), _fact(2, "Research and development", 2987,
                                                                          2022, doc=3)]
    computed = []
    text = compare_sentence(facts, {3: adobe, 4: amd}, computed)
    assert text == "Advanced Micro Devices' figure is $2,018 million higher than Adobe's (1.7×)."
