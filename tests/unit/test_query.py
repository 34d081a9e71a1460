from rag.retrieve.query import key_terms, understand
from rag.retrieve.rerank import recency_factor

KNOWN = {"3m": "3M Company", "best buy": "Best Buy Co., Inc", "advanced micro devices": "Advanced Micro Devices, Inc",
         "boeing": "The Boeing Company"}


def test_entities_years_periods_types():
    i = understand("What was Best Buy's revenue in Q2 FY2024 according to the 10-Q?", KNOWN)
    assert i.companies == ["best buy"] and i.years == [2024] and i.quarters == ["Q2"] and "10-Q" in i.doc_types
    assert understand("AMD data center revenue FY22", KNOWN).companies == ["advanced micro devices"]
    assert understand("AMD data center revenue FY22", KNOWN).years == [2022]
    assert understand("Boeing's latest annual report", KNOWN).latest
    assert not understand("3M total current liabilities in 2018", KNOWN).latest


def test_compare_and_intent_sections():
    i = understand("Compare 3M and Boeing gross margin between 2021 and 2022", KNOWN)
    assert i.compare and set(i.companies) == {"3m", "boeing"} and i.target_year == 2022
    assert understand("What results does the model achieve on the benchmark?").target_sections[0] == "results"
    assert "methods" in understand("How was the model trained?").target_sections
    assert "related_work" in understand("What prior work exists on layout models?").target_sections
    assert "conclusion" in understand("What limitations do the authors acknowledge?").target_sections


def test_follow_up_is_completed_from_the_previous_turn():
    i = understand("and in 2021?", KNOWN, history=["What were 3M's net sales in 2022?"])
    assert i.followup and i.companies == ["3m"] and i.years == [2021]
    assert "net sales" in i.rewritten


def test_statement_and_finance_terms():
    i = understand("What is the FY2018 capex amount for 3M? Use the cash flow statement.", KNOWN)
    assert i.statement_words == ["cash flows"] and "purchases of property plant and equipment" in i.text_query
    assert i.wants_number


def test_key_terms_skip_companies_periods_and_generic_abbreviations():
    assert key_terms("What score does XYLayoutLM achieve on DocVQA?", {}) == ["XYLayoutLM", "DocVQA"]
    assert key_terms("What were AMD's Scope 1 emissions in 2022?", {"advanced micro devices": "AMD"}) == ["Scope 1"]
    assert key_terms("net PPNE for 3M in FY2018, in USD billions, see Figure 3 and Item 8", KNOWN) == []


def test_recency_decays_by_age_and_never_below_one_minus_weight():
    assert recency_factor(0, 0.3, 3) == 1.0
    assert abs(recency_factor(3, 0.3, 3) - 0.85) < 1e-9
    assert recency_factor(100, 0.3, 3) > 0.7
    assert recency_factor(5, 0.0, 3) == 1.0
