"""Candidates judged by meaning and type (rag/answer/fit.py), with the real embedding model; quantities as types
(rag/quantities.py); the question's language (rag/language.py)."""

from __future__ import annotations

import pytest

from rag.answer.fit import Judge, measure_text
from rag.language import not_english
from rag.quantities import answer_type, asked_class, class_of_unit, classes_near_numbers
from rag.records import Candidate, DocumentMeta, Fact


def _chunk(cid: int, text: str, doc: int = 1, company: str = "acme", year: int = 2023) -> Candidate:
    return Candidate(chunk_id=cid, document_id=doc, chunk_index=cid, page_start=cid, page_end=cid, heading=None,
                     section_type="body", content=text, file_name=f"doc{doc}.pdf", company_key=company,
                     fiscal_year=year, final=1.0)


def _fact(fid: int, cid: int, label: str, raw: str, value: float, unit: str | None, year: int,
          title: str = "Key figures", doc: int = 1) -> Fact:
    return Fact(fact_id=fid, document_id=doc, chunk_id=cid, page=cid, label=label, label_path=label,
                col_header=str(year), period=str(year), fiscal_year=year, fiscal_period="FY", is_change=False,
                value=value, raw=raw, unit=unit, scale=1.0, table_title=title, row_text=f"{label} | {raw}")


DOCS = {1: DocumentMeta(1, "doc1.pdf", company="Acme AG", company_key="acme", fiscal_year=2023),
        2: DocumentMeta(2, "doc2.pdf", company="Other plc", company_key="other", fiscal_year=2023)}


def test_units_are_types_whatever_the_words_around_them():
    assert class_of_unit("t CO2e") == "emissions" and class_of_unit("GWh") == "energy"
    assert class_of_unit("EUR thousand") == "currency" and class_of_unit("%") == "percent"
    assert class_of_unit("FTE") == "headcount" and class_of_unit("m³") == "water"
    assert classes_near_numbers("Scope 1 fell to 1,050 t CO2e in 2023, 8.0% of the total, costing €3.2 million.") \
        == ["emissions", "percent", "currency"]
    assert asked_class("What was the energy consumption in MWh?") == "energy"
    assert asked_class("What percentage of employees are women?") == "percent"


def test_the_answer_type_comes_from_the_form_of_the_question():
    assert answer_type("Show me the chart of emissions by scope", False) == "chart"
    assert answer_type("Why did revenue fall in 2023?", False) == "description"
    assert answer_type("How many employees did the group have?", True) == "count"
    assert answer_type("What share of energy came from renewables?", True) == "share"
    assert answer_type("What was the net income in 2023?", True) == "quantity"
    assert answer_type("Does the report mention a dividend?", False) == "yes/no"
    # the thing asked named last, as analysts type it: the chart is the answer
    assert answer_type("Viscom share price vs DAX and TecDAX in 2023 chart", True) == "chart"
    assert answer_type("how did AMS revenue develop by quarter? graph please", True) == "chart"
    assert answer_type("Which chart shows agreement as more units are annotated?", False) == "chart"
    # a question about what a chart holds asks that, not the chart
    assert answer_type("What significance threshold is drawn on the bar charts in the paper?", True) == "quantity"


def test_a_question_not_in_english_is_named_and_terse_english_is_not():
    assert not_english("Wie hoch waren die Scope-1-Emissionen im Jahr 2023?") == "German"
    assert not_english("Quel est le chiffre d'affaires en 2023 ?") == "French"
    assert not_english("¿Cuántos empleados tiene la empresa?") == "Spanish"
    assert not_english("营业收入是多少") == "a non-Latin script"
    for q in ("Scope 1 emissions 2023?", "What was the revenue of Deutsche Bank in 2023?",
              "How did the Gesamtumsatz der Gruppe change?", "EBITDA FY2023, EUR m"):
        assert not_english(q) is None, q


def test_the_measure_is_the_question_without_instructions_companies_and_periods():
    assert measure_text("What were Acme's total energy consumption figures in 2023? Answer in MWh.", ["Acme"]) \
        .lower().startswith("total energy consumption figures")


@pytest.fixture(scope="module")
def judge_of(embedder):
    embedder.load()

    def make(question: str, companies=(), years=()):
        return Judge(embedder, question, list(companies), list(companies), list(years), DOCS)
    return make


def test_a_row_worded_otherwise_is_found_by_meaning_and_the_asked_year_is_its_cell(judge_of):
    chunks = [_chunk(1, "Environmental key figures"), _chunk(2, "Our people")]
    facts = [_fact(1, 1, "Total energy consumption", "118.4", 118.4, "GWh", 2023),
             _fact(2, 1, "Total energy consumption", "121.0", 121.0, "GWh", 2022),
             _fact(3, 1, "Scope 1 emissions", "1,050", 1050, "t CO2e", 2023),
             _fact(4, 2, "Employees (headcount)", "4,210", 4210, "employees", 2023)]
    j = judge_of("How much energy did the group use altogether in 2022?", years=[2022])
    best = j.best_value(facts, chunks)[0]
    assert best.fact is not None and best.fact.fact_id == 2 and j.answers(best)
    assert best.checks == {"entity": "inferred", "period": "match", "unit": "match", "qualifier": "inferred"}


def test_a_numbered_qualifier_asked_is_never_answered_by_another_number(judge_of):
    chunks = [_chunk(1, "GHG inventory")]
    facts = [_fact(1, 1, "Scope 2: Indirect emissions (market-based)", "456.4", 456.4, "t CO2e", 2023),
             _fact(2, 1, "Scope 1: Direct emissions", "1,772.6", 1772.6, "t CO2e", 2023),
             _fact(3, 1, "3.11 Use of sold products", "183,075.2", 183075.2, "t CO2e", 2023)]
    j = judge_of("What were the direct (Scope 1) GHG emissions in 2023?", years=[2023])
    assert j.best_value(facts, chunks)[0].fact.fact_id == 2
    j = judge_of("How big were Scope 3 emissions from customers using sold products (category 3.11) in 2023?",
                 years=[2023])
    assert j.best_value(facts, chunks)[0].fact.fact_id == 3


def test_another_period_another_company_or_another_kind_of_quantity_never_answers(judge_of):
    chunks = [_chunk(1, "Key figures"), _chunk(2, "Key figures", doc=2, company="other")]
    facts = [_fact(1, 1, "Scope 1 emissions", "1,050", 1050, "t CO2e", 2023),
             _fact(2, 2, "Scope 1 emissions", "990", 990, "t CO2e", 2021, doc=2)]
    j = judge_of("What were Acme's Scope 1 emissions in 2021?", companies=["acme"], years=[2021])
    ranked = j.best_value(facts, chunks)
    assert ranked and not any(j.answers(c) for c in ranked)  # 2023 of Acme, or 2021 of another company
    money = judge_of("How much did Acme spend on Scope 1 offsets in EUR?", companies=["acme"])
    assert not any(money.answers(c) for c in money.best_value(facts[:1], chunks[:1]))  # t CO2e is not currency


def test_a_value_in_running_text_is_a_candidate_with_its_unit_and_year(judge_of):
    chunks = [_chunk(1, "In 2023 the company employed 4,210 people worldwide. Revenue rose by 12% to EUR 3.1 "
                        "billion in 2023, driven by new contracts.")]
    j = judge_of("How many employees did the company have in 2023?", years=[2023])
    best = j.best_value([], chunks)[0]
    assert "4,210 people" in best.label and best.unit_class == "headcount" and j.answers(best)


def test_a_ratio_of_two_quantities_is_its_own_type_and_never_a_total():
    from rag.quantities import compatible
    assert class_of_unit("t CO2e per € million of revenue") == "intensity" == class_of_unit("Emission intensity")
    assert class_of_unit("kWh / employee") == "intensity" and class_of_unit("MWh per year") == "energy"
    assert class_of_unit("EUR per share") == "per_share" and class_of_unit("megawatt hours") == "energy"
    assert compatible("emissions", "intensity") == "mismatch"


def test_numbers_that_name_are_not_quantities_even_in_a_list():
    from rag.quantities import quantities_in
    assert quantities_in("We share Scope 1, 2 and 3 GHG emissions data with customers") == []
    assert quantities_in("Categories 1-15 total 5,000 t CO2e") == [("5,000", "emissions")]


def test_numbers_inside_names_exponents_denominators_and_citation_marks_are_not_quantities():
    from rag.quantities import quantities_in
    # a name's number ("PaSa-7b", "GPT-4o", "COVID-19"), an item mark "(97b)"
    assert quantities_in("Compared to PaSa-GPT-4o, PaSa-7b improves recall by 30.36%.") == [("30.36", "percent")]
    assert quantities_in("COVID-19 cases rose 12% to 3,400") == [("12", "percent"), ("3,400", None)]
    assert quantities_in("(97a) the gender pay gap, defined as (97b) the annual total remuneration") == []
    # a unit's exponent ("cm2V−1s−1"), a rate's denominator, a citation mark
    assert [r for r, _ in quantities_in("a mobility of 1131 cm2V−1s−1 for the NMOS")] == ["1131"]
    assert quantities_in("The accident rate per 1,000 employees was 4.0") == [("4.0", None)]
    assert quantities_in("as in [3] and [12, 14], the corpus holds 81.1M papers") == [("81.1", None)]
    # amounts with a scale letter stay amounts
    assert quantities_in("revenue of $5b") == [("$5", "currency")]


def test_a_temperature_is_a_condition_of_a_sentence_not_its_value(judge_of):
    from rag.quantities import quantities_in
    text = "The low-field mobilities obtained in the relaxed case at 25°C are 1131 cm2V−1s−1 and 191 cm2V−1s−1."
    assert quantities_in(text)[0] == ("25", "temperature")
    j = judge_of("What low-field electron mobility was measured for the NMOS transistor in the relaxed case?")
    best = next(c for c in j.sentences([_chunk(1, text)], with_value=True) if "mobilities" in c.label)
    assert best.value is not None and best.value.value == 1131


def test_the_measure_leaves_out_dates_and_the_words_that_ask():
    assert measure_text("How much energy did Acme's production sites use in 2023? Give MWh.", ["Acme"]) \
        == "energy production sites use"
    assert measure_text("Number of female employees at Acme at 31 Dec 2023?", ["Acme"]) == "Number of female employees"
    assert measure_text("By what percentage did Acme's revenue grow in fiscal 2021 (ended January 30, 2021)?",
                        ["Acme"]) == "revenue grow"


def test_a_table_whose_columns_are_not_periods_gives_one_candidate_per_column(embedder):
    from rag.answer.fit import column_group
    assert column_group("FINE") == "FINE" and column_group("Germany 2023") == "Germany"
    assert column_group("Year Ended December 31, 2023") == "" and column_group("in %") == ""
    cells = [Fact(fact_id=i, document_id=1, chunk_id=1, page=1, label="PubMed", label_path="PubMed", col_header=h,
                  period=None, fiscal_year=None, fiscal_period=None, is_change=False, value=v, raw=str(v), unit=None,
                  scale=1.0, table_title="Inter-annotator standard deviation", row_text="PubMed | 11.8 | 7.3")
             for i, (h, v) in enumerate([("COARSE", 11.8), ("FINE", 7.3)], 1)]
    judge = Judge(embedder, "inter-annotator std dev of FINE annotations on PubMed?", [], [], [], DOCS)
    best = judge.best_value(cells, [_chunk(1, "PubMed | 11.8 | 7.3", year=2023)])[0]
    assert best.fact is not None and best.fact.col_header == "FINE"


def test_a_number_with_a_scale_letter_is_an_amount_and_a_name_is_not():
    from rag.quantities import numbers
    got = numbers("The corpus contains 16.4B tokens from 81.1M papers")
    assert [round(n.value) for n in got] == [16_400_000_000, 81_100_000]
    assert numbers("3M and 5G networks") == [] and numbers("a beam 2.5 m long") == []
    assert class_of_unit("megawatt hours") == "energy" and class_of_unit("MJ") == "energy"


def test_a_row_that_names_its_qualifier_is_judged_by_it_not_by_its_table_title():
    from rag.answer.fit import qualifier_fit, qualifiers
    asked = qualifiers("Scope 2 (market-based) in kt CO2e")
    title = "Total greenhouse gas emissions (Scope 1 and 2 of the GHG Protocol)"
    assert qualifier_fit(asked, f"Direct CO2eq emissions (Scope 1) ({title})") == "inferred"  # the title names both
    assert qualifier_fit(asked, "Direct CO2eq emissions (Scope 1)") == "mismatch"  # the row's own label decides
    # the basis a figure is measured on is a qualifier too: location-based is not the market-based figure asked
    assert qualifier_fit(asked, "Scope 2 (market-based)") == "match"
    assert qualifier_fit(asked, "Location-based Scope 2 GHG emissions") == "mismatch"
    assert qualifier_fit(asked, "Scope 2, indirect (market based and location based)") == "match"


def test_a_qualifier_named_to_exclude_it_is_not_one_and_every_qualifier_asked_counts():
    from rag.answer.fit import qualifier_fit, qualifiers
    scope1 = qualifiers("Scope 1 emissions")
    assert qualifier_fit(scope1, "Fuel- and energy-related emissions, not included in Scope 1 or 2") == "inferred"
    asked = qualifiers("Scope 3 emissions from the use of sold products (category 3.11)")
    assert qualifier_fit(asked, "3.11 Use of sold products") == "match"
    assert qualifier_fit(asked, "Significant Scope 3 total emissions") == "inferred"  # silent on the category
    assert qualifier_fit(asked, "Scope 2: Indirect emissions") == "mismatch"


def test_how_many_counts_the_words_after_it_not_a_unit_named_later(judge_of):
    from rag.quantities import asked_class, printed_class
    q = "How many passenger kilometres did Acme employees travel by rail in 2023?"
    assert printed_class(q) is None and asked_class(q) == "count"  # kilometres, not employees
    assert printed_class("How many people did Acme employ in Romania?") == "headcount"
    assert printed_class("How many tonnes of CO2e did Acme emit?") == "emissions"
    j = judge_of(q, years=[2023])
    text = ("Acme has around 3,320 employees. In 2023, a total of 1,100,714 passenger kilometers (2022: 680,397) "
            "were traveled by rail.")
    best = j.score(j.sentences([_chunk(1, text)], with_value=True))[0]
    assert best.value is not None and best.value.value == 1100714 and best.checks["unit"] == "match"


def test_a_length_of_time_is_a_duration_and_a_question_year_is_no_unit():
    from rag.quantities import asked_class, counted_words, quantities_in
    assert quantities_in("the average length of service was 9.7 years (2022: 9.2 years)") == \
        [("9.7", "duration"), ("9.2", "duration")]
    assert asked_class("What were revenues in fiscal year 2023?") is None
    assert counted_words("How many lost days from workplace accidents did Acme record?") == "lost days"
