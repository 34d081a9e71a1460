"""rag/answer/answerable.py: what "Insufficient data" says when the documents do not give the asked figure."""

from rag.answer import answerable
from rag.records import DocumentMeta
from rag.retrieve.facts import FactBook
from rag.retrieve.measure import asked
from rag.retrieve.query import understand

KNOWN = {"acme widgets": "Acme Widgets Corp"}
DOCS = [DocumentMeta(1, "a.pdf", company="Acme Widgets Corp", company_key="acme widgets", fiscal_year=2021),
        DocumentMeta(2, "b.pdf", company="Acme Widgets Corp", company_key="acme widgets", fiscal_year=2022)]


def _ask(question: str):
    return asked(understand(question, KNOWN))


def test_a_period_no_document_covers_is_named_with_the_years_the_library_has():
    ask = _ask("What was Acme Widgets' capital expenditure in FY2019?")
    assert answerable.uncovered_period(ask, DOCS, FactBook(uncovered=[2019])) == \
        "no document of Acme Widgets Corp covers FY2019 (the library has FY2021–FY2022)"
    assert answerable.uncovered_period(ask, DOCS, FactBook()) is None  # every asked year is covered


def test_a_measure_not_reported_is_said_in_the_questions_own_words():
    q = "What was Acme Widgets' capital expenditure in FY2019?"
    ask = _ask(q)
    assert answerable.measure_words(ask, q) == "capital expenditure"
    assert answerable.not_reported(ask, q, "Acme Widgets Corp") == \
        "the documents of Acme Widgets Corp do not report capital expenditure for FY2019"


def test_the_parts_asked_are_not_the_measures_words():
    q = "What were Acme Widgets' Japanese plant sales in 2022?"
    assert answerable.part_stems(q, ["Japanese"]) == {"japanese", "plant"}
    assert answerable.part_stems(q, []) == set()


def test_a_part_is_covered_in_any_of_its_forms():
    assert answerable.covers("Sales of our Japanese plants", "Japan")
    assert answerable.covers("Net sales in Japan rose", "Japan")
    assert not answerable.covers("Net sales in Europe", "Japan")
    assert answerable.periods_named("revenue in Q2 FY2023 and FY2022") == ["FY2023Q2", "FY2022"]
