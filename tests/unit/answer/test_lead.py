"""The answer's first sentence from table facts (rag/answer/lead.py) and computed metrics (rag/metrics.py):
what a question asks, which row answers it, how the sentence reads, and how a metric is computed and shown."""

import pytest

from rag.answer.lead import best_facts, compare_sentence, computation_sentences, fact_sentence
from rag.retrieve.measure import Ask, strip_instructions
from rag.metrics import compute, evaluate, label_rank, line_items, metric_of, metrics
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


def test_only_the_sentences_that_ask_or_define_are_the_question():
    # the sentences around the question that speak about the task never count as the measure's words
    assert strip_instructions(
        "What is Amazon's year-over-year change in revenue from FY2016 to FY2017 (in units of percents and round to "
        "one decimal place)? Calculate what was asked by utilizing the line items clearly shown in the statement of "
        "income.") == "What is Amazon's year-over-year change in revenue from FY2016 to FY2017 ?"
    assert strip_instructions(
        "What is the FY2019 - FY2020 total revenue growth rate for Block (formerly known as Square)? Approach the "
        "question asked by assuming the standpoint of an investment banking analyst who only has access to the "
        "statement of income.") == "What is the FY2019 - FY2020 total revenue growth rate for Block ?"
    assert strip_instructions(
        "We want to calculate a financial metric. Here's the question: what is the FY2015 EBITDA % margin for "
        "Netflix?") == "what is the FY2015 EBITDA % margin for Netflix?"
    assert strip_instructions(
        "According to the details clearly outlined within the P&L statement, what is the FY2015 D&A % margin for "
        "AMD?") == "what is the FY2015 D&A % margin for AMD?"
    q = ("What is the FY2018 - FY2020 3 year average EBITDA % margin for Walmart? Define EBITDA as operating income "
         "+ depreciation and amortization. Answer in units of percents.")
    assert "Define EBITDA as operating income + depreciation and amortization" in strip_instructions(q)
    assert "Answer" not in strip_instructions(q)
    # a sentence that carries the measure is not an instruction; one sentence, or questions only, stay whole
    assert strip_instructions("Acme reports energy in MWh. What was the total in 2023?") == \
        "Acme reports energy in MWh. What was the total in 2023?"
    assert strip_instructions("What were the U.S. sales in 2023? And in 2022?") == \
        "What were the U.S. sales in 2023? And in 2022?"
    for asked in ("According to the logistics providers, how much GHG did Acme's shipping generate in 2023?",
                  "If we exclude the impact of M&A, which segment has dragged down 3M's overall growth in 2022?"):
        assert strip_instructions(asked) == asked  # a source the measure is attributed to, a condition: asked


def test_an_amount_is_written_in_the_scale_the_question_asks():
    netflix = DocumentMeta(2, "NETFLIX_2017_10K.pdf", company="Netflix, Inc.", company_key="netflix", fiscal_year=2017)
    now = _fact(1, "Total current liabilities", 5466312, 2017, scale=1e3, title="Consolidated Balance Sheets")
    before = _fact(2, "Total current liabilities", 4586657, 2016, scale=1e3, title="Consolidated Balance Sheets")
    computed = []
    text = fact_sentence(now, netflix, 1, [before], _ask("What is Netflix's year end FY2017 total current liabilities "
                                                         "(in USD millions)?"), computed)
    assert text.startswith("Netflix's total current liabilities were $5,466 million in FY2017, up 19.2% from "
                           "$4,587 million in FY2016 [1].") and "5,466" in computed
    as_printed = fact_sentence(now, netflix, 1, [], _ask("What were Netflix's total current liabilities in FY2017?"))
    assert "$5,466,312 thousand" in as_printed  # no scale asked: as the table prints it


def test_standard_metrics_ebitda_growth_and_fixed_asset_turnover():
    assert metric_of("What is the FY2015 unadjusted EBITDA % margin for Netflix?").name == "EBITDA margin"
    assert metric_of("What was AWK's FY2021 unadjusted EBITDA?").name == "EBITDA"
    assert metric_of("what is the FY2015 depreciation and amortization (D&A) % margin for AMD?").name == "D&A margin"
    assert metric_of("What is the FY2019 - FY2020 total revenue growth rate for Block?").name == "revenue growth"
    assert metric_of("What is the FY2019 fixed asset turnover ratio?").name == "fixed asset turnover"
    assert metric_of("What is the total asset turnover?").name == "asset turnover"
    # a growth reads the year before, may exceed 100%, and shows both years' figures
    rev = {("revenue", 2020): _fact(1, "Total net revenue", 9497578, 2020, chunk=7, scale=1e3),
           ("revenue", 2019): _fact(2, "Total net revenue", 4713500, 2019, chunk=7, scale=1e3)}
    g = compute(metric_of("revenue growth"), 2020, lambda item, year: rev.get((item, year)))
    assert g is not None and round(g.value, 1) == 101.5
    _, formula = computation_sentences(g, DocumentMeta(3, "BLOCK_2020_10K.pdf", company="Square, Inc."), {7: 1})
    assert formula == ("Revenue growth = (revenue 9,497,578 - revenue 4,713,500 (FY2019)) / revenue 4,713,500 (FY2019)"
                       " = 101.5% [1].")
    assert compute(metric_of("revenue growth"), 2019, lambda item, year: rev.get((item, year))) is None  # no 2018
    # a compound annual growth from the first year asked to the last
    lmt = {("revenue", 2022): _fact(1, "Net sales", 65984, 2022, chunk=7), ("revenue", 2020): _fact(2, "Net sales",
                                                                                            65398, 2020, chunk=7)}
    m = metric_of("What is Lockheed Martin's 2 year total revenue CAGR from FY2020 to FY2022?")
    assert m.name == "revenue CAGR"
    c = compute(m, 2022, lambda item, year: lmt.get((item, year)), start=2020)
    assert c is not None and round(c.value, 1) == 0.4
    lead, formula = computation_sentences(c, DocumentMeta(4, "LMT_2022_10K.pdf", company="Lockheed Martin"), {7: 1})
    assert lead == "Lockheed Martin's revenue CAGR was 0.4% over FY2020–FY2022 [1]."
    assert formula.startswith("Revenue CAGR = (revenue 65,984 / revenue 65,398 (FY2020))^(1/2) - 1 = 0.4%")
    assert compute(m, 2022, lambda item, year: lmt.get((item, year))) is None  # no first year: nothing computed
    # a report that prints its EBITDA (with its unit in the label) and no operating income: the other convention
    printed = {("ebitda", 2023): _fact(1, "EBITDA (in €m)", 653.8, 2023, unit="EUR", title="Key figures"),
               ("revenue", 2023): _fact(2, "Revenue (in €m)", 4096.7, 2023, unit="EUR", title="Key figures")}
    m = metric_of("EBITDA margin")
    assert compute(m, 2023, lambda item, year: printed.get((item, year))) is None
    c = compute(m.other(), 2023, lambda item, year: printed.get((item, year)))
    assert c is not None and round(c.value, 1) == 16.0
    items = line_items()
    assert label_rank(items["ebitda"], "EBITDA (in €m)") == 0 and label_rank(items["revenue"], "Revenue (in €m)") == 9
    assert label_rank(items["gross_profit"], "Gross margin (in %)") is None  # a share is not the amount
    assert label_rank(items["depreciation_amortization"],
                      "Depreciation and amortization of property, equipment and intangibles") is not None


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
    # the other common convention (year-end inventory) is computed from the same rows, to be shown beside it
    other = metric_of("inventory turnover").other()
    year_end = compute(other, 2023, lambda item, year: inv.get((item, year)))
    assert other.several and round(year_end.value, 2) == round(36386 / 5140, 2)
    assert metric_of("operating margin").other() is None  # one convention: nothing beside it
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


def test_a_period_named_by_its_end_date_or_length_matches_its_column():
    """"The three months ended June 2, 2023" is the column of that date and length, whatever fiscal quarter it is;
    the period's words are not the measure's."""
    ask = _ask("Adobe Digital Media revenue for the three months ended June 2, 2023?")
    assert ask.terms == ["digital", "media", "revenue"] and ask.ends == [(2023, 6, 2)] and ask.span == "Q"
    quarter = _fact(1, "Total Digital Media revenue", 3511, 2023, fp="Q2", period="Q2 FY2023")
    quarter.col_header = "Three Months Ended June 2, 2023"
    half = _fact(2, "Total Digital Media revenue", 6906, 2023, fp="H1", period="H1 FY2023")
    half.col_header = "Six Months Ended June 2, 2023"
    year_before = _fact(3, "Total Digital Media revenue", 3200, 2022, fp="Q2", period="Q2 FY2022")
    year_before.col_header = "Three Months Ended June 3, 2022"
    top = best_facts([half, year_before, quarter], ask, {}, {1: BOEING})[0]
    assert top.fact.value == 3511 and top.period_ok
    # a fiscal period named beside the date is the one the columns are filed under
    ask = _ask("Boeing net sales in the December 2022 quarter (second quarter of fiscal 2023)?")
    assert ask.years == [2023] and ask.quarter == "Q2" and ask.ends == [(2022, 12, None)]


def test_a_unit_the_question_names_and_a_part_it_asks_for():
    ask = _ask("Boeing energy consumption in the portfolio 2020 (MWh)?")
    assert ask.unit == "MWh"
    total = _fact(1, "Energy consumption", 4548951, 2020, unit="MWh", scale=1, title="Key figures")
    intensity = _fact(2, "Energy consumption per unit", 10.8, 2020, unit="kWh", scale=1, title="Key figures")
    assert best_facts([intensity, total], ask, {}, {1: BOEING})[0].fact.value == 4548951
    ask = _ask("What were Boeing's emissions in Germany in 2020?")
    assert ask.parts == ["Germany", "german"]  # its names: "German emissions" is the same part
    whole = _fact(1, "Emissions in the portfolio", 1021319, 2020, unit="t CO2e", scale=1, title="Key figures")
    germany = _fact(2, "Emissions in the portfolio", 899333, 2020, unit="t CO2e", scale=1, title="Key figures")
    germany.col_header = "Germany"
    assert best_facts([whole, germany], ask, {}, {1: BOEING})[0].fact.value == 899333


def test_the_spelled_out_term_is_the_jargon_and_a_segment_table_is_a_part():
    ask = _ask("How much did Boeing spend on R&D in 2022?")
    spelled = _fact(1, "Research and development", 5005, 2022)
    capitalized = _fact(2, "Capitalized R&D", 943, 2022, title="Deferred tax assets")
    assert best_facts([capitalized, spelled], ask, {}, {1: BOEING})[0].fact.value == 5005
    ask = _ask("What adjusted EBIT did Boeing report for fiscal 2022?")
    segment = _fact(1, "Adjusted EBIT", 1429, 2022, title="Flexibles Segment")
    whole = _fact(2, "Adjusted EBIT", 1608, 2022, title="Reconciliation of net income to Adjusted EBIT", chunk=11)
    assert best_facts([segment, whole], ask, {}, {1: BOEING})[0].fact.value == 1608


def test_the_named_parts_a_question_asks_for():
    from rag.parts import breakdown_terms
    company = {"adobe", "amcor", "kion", "3m", "best", "buy"}
    parts = lambda q: breakdown_terms(q, company)
    assert parts("How much revenue did Best Buy generate in Texas in fiscal 2023?") == ["Texas"]
    assert parts("What were Amcor's net sales to PepsiCo in fiscal 2023?") == ["PepsiCo"]
    assert parts("How much revenue did Adobe's Photoshop product generate in fiscal 2022?") == ["Photoshop"]
    assert parts("What were KION's Scope 1 emissions at its Aschaffenburg plant in 2023?") == ["Aschaffenburg"]
    assert parts("How much did 3M's Post-it Notes sales amount to in 2022?") == ["Post-it Notes"]
    assert parts("What were Adobe's Japanese revenues in fiscal 2022?") == ["Japan"]
    # measures, periods, acronyms and the company itself are not parts
    assert parts("What Was AMCOR's Adjusted Non GAAP EBITDA for FY 2023") == []
    assert parts("What is the FY2018 capital expenditure amount (in USD millions) for 3M?") == []
    assert parts("What were KION's Scope 1 emissions in the EMEA region in 2023?") == []


def test_a_change_asked_is_said_in_percentage_points_for_a_rate_and_in_the_unit_asked_for_an_amount():
    rate = _ask("By how many percentage points did Boeing's turnover rate change from 2021 to 2022?")
    now, before = (_fact(1, "Turnover rate", 5.9, 2022, unit="%", scale=1, raw="5.9"),
                   _fact(2, "Turnover rate", 8.1, 2021, unit="%", scale=1, raw="8.1"))
    computed: list[str] = []
    assert "down 2.2 percentage points from 8.1% in FY2021" in fact_sentence(now, BOEING, 1, [before], rate, computed)
    assert computed == ["2.2 percentage points"]
    energy = _ask("What's the change in Boeing's energy use from 2021 to 2022, in GWh?")
    now, before = (_fact(1, "Energy use", 2337, 2022, unit="GWh", scale=1), _fact(2, "Energy use", 2432, 2021,
                                                                                    unit="GWh", scale=1))
    assert "down 95 GWh (3.9%) from 2,432 GWh in FY2021" in fact_sentence(now, BOEING, 1, [before], energy, [])
    level = _ask("What was Boeing's turnover rate in 2022?")  # no change asked: the level alone, as before
    assert "percentage points" not in fact_sentence(_fact(1, "Turnover rate", 5.9, 2022, unit="%", scale=1), BOEING,
                                                    1, [before], level, [])


def test_a_metric_the_question_defines_is_computed_from_its_definition():
    from rag.metrics import defined_metric, without_definition
    dpo = defined_metric("What is Amazon's FY2017 DPO? DPO is defined as: 365 * (average accounts payable between "
                         "FY2016 and FY2017) / (FY2017 COGS + change in inventory between FY2016 and FY2017).")
    assert dpo is not None and dpo.defined and dpo.unit == "days"
    assert dpo.formula == "365 * ( avg(accounts_payable) ) / ( cost_of_sales + delta(inventory) )"
    assert dpo.averaged == {"accounts_payable"} and dpo.changed == {"inventory"}
    ratio = defined_metric("What is Block's FY2016 working capital ratio? Define working capital ratio as total current "
                           "assets divided by total current liabilities.")
    assert ratio is not None and ratio.formula == "current_assets / current_liabilities" and ratio.unit == "x"
    # a definition of an input ("Define EBITDA as …") for a margin asked is not the metric asked
    assert defined_metric("What is Walmart's EBITDA % margin? Define unadjusted EBITDA as unadjusted operating income "
                          "+ depreciation and amortization from the cash flow statement.") is None
    assert defined_metric("Define synergy as the magic of teamwork.") is None  # operands that are no line item
    assert "change" not in without_definition("What is DPO? DPO is defined as: COGS + change in inventory.")
    values = {"current_assets": 19815.0, "current_liabilities": 13997.0}
    nwc = defined_metric("What is Lockheed Martin's FY2021 net working capital? Define net working capital as total "
                         "current assets less total current liabilities. Answer in USD millions.")
    assert nwc is not None and evaluate(nwc.formula, values) == 5818.0


def test_an_emissions_line_item_is_never_read_from_an_energy_table():
    def _item_unit_fits(item, f):
        return line_items()[item].unit_fits(f)
    energy = _fact(1, "Scope 1", 178270, 2023, title="[T39] Energy consumption in megawatt hours", unit=None, scale=1)
    emissions = _fact(2, "Scope 1", 39428, 2023, title="Greenhouse gas emissions in t CO2e", unit=None, scale=1)
    assert not _item_unit_fits("scope_1", energy) and _item_unit_fits("scope_1", emissions)
    assert _item_unit_fits("revenue", energy)  # an item without a class of its own: as before


def test_a_value_is_written_with_the_decimals_the_document_prints():
    from rag.answer.lead import money

    assert money(_fact(1, "PaSa-7b", 0.5798, 2024, unit=None, scale=1.0, raw="0.5798")) == "0.5798"
    assert money(_fact(1, "Scope 1", 1772.6, 2023, unit="t", scale=1.0, raw="1,772.6 t")) == "1,772.6 t"
    assert money(_fact(1, "Share", 12.5, 2023, unit="%", scale=1.0, raw="12.50%")) == "12.50%"
    assert money(_fact(1, "Capex", -1577, 2022, raw="(1,577)")) == "-$1,577 million"
    # a value code computed is not a printed one: rounded as before
    assert money(_fact(1, "PaSa-7b", 0.5798, 2024, unit=None, scale=1.0, raw="0.5798"), 0.123456) == "0.12"


def test_an_unchanged_figure_names_the_earlier_value():
    ask = _ask("What were Boeing's Scope 2 emissions in 2022?")
    now, before = (_fact(1, "Scope 2 emissions", 325, 2022, unit="kt CO2e", scale=1),
                   _fact(2, "Scope 2 emissions", 325, 2021, unit="kt CO2e", scale=1))
    assert "unchanged from 325 kt CO2e in FY2021" in fact_sentence(now, BOEING, 1, [before], ask, [])


def test_an_irregular_plural_takes_were():
    ask = _ask("How many women worked at Boeing at the end of 2022?")
    women = _fact(1, "Women", 211, 2022, unit="employees", scale=1)
    assert "women were 211 employees in FY2022" in fact_sentence(women, BOEING, 1, [], ask, [])


def test_a_paper_named_by_its_title_is_not_a_part_the_figure_is_broken_down_by():
    from rag.answer.offline import _missing_breakdown
    q = "Compare the average inter-annotator standard deviation of COARSE vs FINE annotations in LongEval."
    it = understand(q, KNOWN)
    ask = Ask.of(it)
    paper = DocumentMeta(11, "longeval.pdf", title="LONGEVAL: Guidelines for Human Evaluation of Faithfulness",
                         doc_type="research paper")
    report = DocumentMeta(12, "acme.pdf", company="Acme AG", company_key="acme", fiscal_year=2023)
    assert _missing_breakdown(None, [], it, ask, [paper, report]) is None  # the document asked, not a part
    it = understand("How many employees did Acme have in Romania in 2023?", {"acme": "Acme AG"})
    assert "Romania" in (_missing_breakdown(None, [], it, Ask.of(it), [paper, report]) or "")


def test_a_model_named_after_its_paper_is_the_papers_subject_not_an_unknown_entity():
    from rag.answer.offline import _of_title
    assert _of_title("S2ORC-SciBERT", {"s2orc"}) and _of_title("LongEval", {"longeval"})
    assert not _of_title("SciBERT", {"s2orc"}) and not _of_title("Microsoft", {"pasa"})
