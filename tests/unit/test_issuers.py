"""Issuers as analysts name them, periods in every form, and the coverage check's terms (issue 12)."""

import pytest

from rag.domain import Period, fiscal_year_of_end, is_form_name, is_period_token, periods_in, spelled_out_in
from rag.issuers import Issuer, Issuers
from rag.retrieve.query import key_terms, understand

ISSUERS = Issuers([
    Issuer("3m", "3M Company", ["3M Company", "MMM"]),
    Issuer("adobe", "Adobe Inc.", ["Adobe Inc", "Adobe Systems Incorporated", "Adobe", "ADBE"]),
    Issuer("best buy", "Best Buy Co., Inc.", ["Best Buy Co., Inc", "Best Buy", "BBY"]),
    Issuer("boeing", "The Boeing Company", ["The Boeing Company", "Boeing", "BA"]),
    Issuer("johnson johnson", "Johnson & Johnson", ["Johnson & Johnson", "JNJ"]),
    Issuer("procter gamble", "The Procter & Gamble Company", ["The Procter & Gamble Company", "PG"]),
    Issuer("advanced micro devices", "Advanced Micro Devices, Inc.", ["AMD"]),
    Issuer("target", "Target Corporation", ["Target Corporation", "TGT"]),
    Issuer("amazon com", "Amazon.com, Inc.", ["Amazon.com, Inc", "AMZN"]),
    Issuer("square", "Square, Inc.", ["Square, Inc", "SQ"]),
])


@pytest.mark.parametrize("text, key", [
    ("What was MMM's revenue?", "3m"), ("3M’s capex", "3m"), ("Best-Buy stores", "best buy"),
    ("BEST BUY CO net income", "best buy"), ("bestbuy", "best buy"), ("BBY's margin", "best buy"),
    ("Adobe Systems revenue in 2015", "adobe"), ("ADBE Q2 FY23", "adobe"), ("boeing's backlog", "boeing"),
    ("BA deliveries", "boeing"), ("J&J sales", "johnson johnson"), ("JnJ sales", "johnson johnson"),
    ("Johnson and Johnson", "johnson johnson"), ("P&G margin", "procter gamble"), ("P & G", "procter gamble"),
    ("Procter and Gamble", "procter gamble"), ("procter & gamble's", "procter gamble"),
    ("AMD revenue", "advanced micro devices"), ("amd's revenue", "advanced micro devices"),
    ("Target's revenue", "target"),
    ("What is Amazon's FY2017 revenue?", "amazon com"),  # a web domain in the legal name is not part of the name
])
def test_a_mention_finds_its_issuer_whatever_the_form(text, key):
    assert [i.key for i in ISSUERS.find(text)] == [key]


@pytest.mark.parametrize("text", ["what is the revenue target", "which category performed best", "best practices",
                                  "what is the IT budget", "Microsoft's revenue", "an analyst's view"])
def test_common_words_and_other_companies_find_no_issuer(text):
    assert ISSUERS.find(text) == []


def test_issuers_are_found_in_the_order_named():
    assert [i.key for i in ISSUERS.find("compare Boeing and 3M")] == ["boeing", "3m"]


def test_a_new_document_joins_the_issuer_it_shares_a_name_or_symbol_with():
    assert ISSUERS.same_issuer("adobe systems", ["Adobe Systems Incorporated", "Adobe"]).key == "adobe"
    assert ISSUERS.same_issuer("bby holdings", ["BBY"]).key == "best buy"
    assert ISSUERS.same_issuer("boeing capital", []).key == "boeing"  # a word-prefix of the key
    assert ISSUERS.same_issuer("microsoft", ["Microsoft Corporation", "MSFT"]) is None


def test_every_way_of_writing_a_quarter_is_the_same_period():
    forms = ["FY2023Q1", "Q1 FY23", "1Q23", "first quarter of fiscal 2023", "Q1'23", "fiscal 2023 first quarter",
             "Q1 of FY2023", "1QFY23", "FY23 Q1"]
    assert {tuple(periods_in(f)) for f in forms} == {(Period(2023, "Q1"),)}
    assert periods_in("FY22 and 2021") == [Period(2022), Period(2021)]
    assert periods_in("Q3 10 stores opened") == []  # a bare two-digit number after a space is not a year


def test_a_year_ending_in_the_first_days_of_january_is_the_year_it_covers():
    import datetime as dt

    assert fiscal_year_of_end(dt.date(2023, 1, 1)) == 2022
    assert fiscal_year_of_end(dt.date(2021, 1, 3)) == 2020
    assert fiscal_year_of_end(dt.date(2023, 1, 28)) == 2023  # a retailer's year ending late January
    assert fiscal_year_of_end(dt.date(2022, 12, 31)) == 2022


def test_questions_parse_every_period_form():
    for q in ["What was Boeing's revenue in FY2023Q1?", "Boeing revenue Q1 FY23", "Boeing 1Q23 revenue",
              "Boeing's revenue in the first quarter of fiscal 2023"]:
        i = understand(q, ISSUERS)
        assert (i.companies, i.years, i.quarters) == (["boeing"], [2023], ["Q1"]), q


@pytest.mark.parametrize("term", ["FY2023Q1", "1Q23", "Q1'23", "H1", "FY23", "2023E", "Q3"])
def test_periods_are_period_tokens(term):
    assert is_period_token(term)


@pytest.mark.parametrize("term", ["DocVQA", "AGM", "GPT-4", "XFUN", "Scope 3"])
def test_things_are_not_period_tokens(term):
    assert not is_period_token(term)


def test_form_names():
    assert all(is_form_name(f) for f in ["10-K", "10-Q", "8-K", "DEF 14A", "S-1", "Form 20-F", "10-KT"])
    assert not is_form_name("GPT-4")


def test_the_coverage_check_never_counts_periods_forms_abbreviations_or_aliases():
    for q in ["What was Boeing's revenue in FY2023Q1?", "When is the AGM for MMM?", "Did BBY's YoY comps grow in 1Q23?",
              "What does the 10-K say about the DEF 14A?", "What was J&J's CAGR since FY19?",
              "What was the SG&A of ADBE in Q2 FY23?", "How many FTEs did Best-Buy have?"]:
        assert key_terms(q, ISSUERS) == [], q
    # a thing the documents could contain still counts
    assert key_terms("What is XYLayoutLM's score on DocVQA in FY2023Q1?", ISSUERS) == ["XYLayoutLM", "DocVQA"]


def test_an_abbreviation_the_passages_spell_out_is_there():
    assert spelled_out_in("AGM", "The Annual General Meeting of shareholders was held on 12 May.")
    assert spelled_out_in("CAGR", "a compound annual growth rate of 7%")
    assert not spelled_out_in("AGM", "the annual meeting of stockholders")
    assert not spelled_out_in("TGT", "sales to grow through the year")  # a short acronym spelled by chance
    assert spelled_out_in("TGT", "Total Gross Turnover rose")


def test_a_name_of_the_issuer_shares_its_words_initials_or_clipping_and_a_heading_word_is_none():
    from rag.issuers import names_issuer
    assert names_issuer("ATOSS", ["ATOSS Software AG"]) and names_issuer("IBM", ["International Business Machines"])
    assert names_issuer("P&G", ["The Procter & Gamble Company"]) and names_issuer("Amex", ["American Express Company"])
    assert names_issuer("ExxonMobil", ["Exxon Mobil Corporation"]) and names_issuer("BBY", ["Best Buy Co., Inc."])
    assert not names_issuer("Employees", ["Merck KGaA"]) and not names_issuer("Wiener Börse AG", ["SBO AG"])


def test_a_name_note_makes_the_renamed_name_a_name_of_the_issuer():
    it = understand("What is the FY2020 revenue growth rate for Block (formerly known as Square)?", ISSUERS)
    assert it.companies == ["square"] and "block" in it.company_terms  # "Block" is who, not a part asked
