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


def test_dates_explanations_and_annual_questions():
    i = understand("What was the key agenda of the AMCOR's 8k filing dated 1st July 2022?", {"amcor": "Amcor plc"})
    assert i.dates == ["2022-07-01"] and "8-K" in i.doc_types
    assert understand("Results announced on March 9, 2023 and 2023-05-25").dates == ["2023-03-09", "2023-05-25"]
    i = understand("What drove the increase in Ulta Beauty's merchandise inventories at the end of FY2023?")
    assert i.explain and not i.statement_words  # the narrative explains; the balance sheet only states
    assert understand("What were inventories at year end FY2023?").statement_words[0] == "balance sheet"
    assert understand("Are gross margins historically consistent?").annual
    assert understand("Inventories in FY2023").annual and not understand("Inventories in Q2 of FY2023").annual


def test_statement_titles():
    from rag.statements import statement_of_title

    assert statement_of_title("Consolidated Balance Shee t") == "balance sheet"  # broken kerning
    assert statement_of_title("AMCOR PLC AND SUBSIDIARIES CONSOLIDATED BALANCE SHEETS") == "balance sheet"
    assert statement_of_title("Condensed Consolidated Statements of Income (Unaudited)") == "income statement"
    assert statement_of_title("Consolidated Statements of Cash Flows (continued)") == "cash flows"
    assert statement_of_title("Consolidated Statements of Comprehensive Income") == "comprehensive income"
    assert statement_of_title("Amounts recognized in the Consolidated Balance Sheet as of Dec. 31") is None
    assert statement_of_title("Supplemental Balance Sheet Information") is None
    assert statement_of_title("Balance sheet information") is None


def test_filing_parts_and_forward_looking_questions():
    from rag.retrieve.rerank import filing_section

    assert "risk" in understand("Is Boeing's business subject to cyclicality?").filing_sections
    assert "business" in understand("What industry does Amcor primarily operate in?").filing_sections
    assert "mdna" in understand("What drove operating margin change in FY2022?").filing_sections
    assert filing_section("PART I › Item\xa01A. Risk Factors › Risks Related to Our Business") == "risk"
    assert filing_section("PART II › Item 7. Management’s Discussion and Analysis › Overview") == "mdna"
    assert filing_section("PART I › Item 1. - Business › Sustainability") == "business"
    assert filing_section("PART II › Item 8. Financial Statements") is None
    i = understand("What production rate changes is Boeing forecasting for FY2023?")
    assert i.forward and i.years == [2022, 2023] and i.target_year == 2023  # plans for 2023 are in the 2022 report


def test_a_follow_up_resolves_a_period_named_relative_to_the_previous_turn():
    from rag.retrieve.query import understand

    known = {"adobe": "Adobe", "mtu": "MTU"}
    it = understand("what about the year before?", known, ["What were MTU's Scope 1 emissions in 2023?"])
    assert it.years == [2022] and it.companies == ["mtu"] and it.followup
    it = understand("and how does that compare with the same quarter a year earlier?", known,
                    ["What was Adobe's net income in Q2 2023?"])
    assert it.years == [2022, 2023] and it.quarters == ["Q2"] and it.compare
    it = understand("and in Q2 2022?", known, ["What was Adobe's net income in Q1 2023?"])
    assert it.years == [2022] and it.quarters == ["Q2"]


def test_a_follow_up_that_names_another_numbered_item_replaces_the_previous_one():
    it = understand("what about Scope 2 that year?", None, ["What were Merck's Scope 1 emissions in 2021?"])
    assert "Scope 2" in it.rewritten and "Scope 1" not in it.rewritten and 2021 in it.years


def test_a_short_question_with_a_subject_of_its_own_is_not_a_follow_up():
    """Issue 36's walkthrough: "What does PaperMage do?" after questions on POLYTEC was taken as a follow-up."""
    history = ["What was POLYTEC's revenue in 2023?"]
    for q in ("What does PaperMage do?", "What is Multi-LexSum?", "Who wrote XYLayoutLM?"):
        i = understand(q, KNOWN, history=history)
        assert not i.followup and i.rewritten == q, q
    for q in ("What was revenue?", "What is it?", "And in 2022?", "What about Scope 2?", "What does POLYTEC do?",
              "How about Europe?"):
        assert understand(q, KNOWN, history=history).followup, q


def test_a_figure_named_by_its_number():
    from rag.retrieve.query import named_figure

    assert named_figure("Show me Figure 3 of the S2ORC paper") == "3"
    assert named_figure("what does fig. 12 show?") == "12"
    assert named_figure("Explain Figure 4.") == "4"
    assert named_figure("Fig 2b in the PaSa paper") == "2"
    assert named_figure("the figures for revenue in 2023") is None  # "figures" are numbers, not a figure
    assert named_figure("the figure of 2.5 million") is None  # a figure as in an amount
    assert named_figure("a figure 2.5 times higher") is None
    assert named_figure("Exhibit 99.1 of the 8-K") is None  # a filing's exhibit is a document
