"""The fact history on hand-built tables: measures by period, each value's source, restatements, and labels merged by
meaning (the real embedding model) but never two rows of one document."""

from __future__ import annotations

import pytest
from hand_built import doc
from tables import column, table

from rag.workpaper.history import build_history, period_label, period_order, same_value, topic_of

INCOME = "Consolidated Statements of Income"


def _filing(year: int, rows: list[tuple], title: str = INCOME, document_id: int | None = None):
    d = doc(document_id or year - 2000, year=year, file_name=f"acme_{year}_10k.pdf")
    cols = [column(str(year), year), column(str(year - 1), year - 1)]
    return d, [table(title, cols, rows, document_id=d.document_id)]


@pytest.fixture(scope="module")
def embed():
    from rag.embed import Embedder

    emb = Embedder().load()
    return emb.encode


def test_values_line_up_by_period_with_their_sources():
    h = build_history("Acme", [
        _filing(2022, [("Net sales", (), ["$12,345", "$11,500"], 40), ("Cost of sales", (), ["7,000", "6,600"], 40)]),
        _filing(2021, [("Net sales", (), ["$11,500", "$10,100"], 38), ("Cost of sales", (), ["6,600", "6,000"], 38)]),
    ])
    assert h.periods == ["FY2020", "FY2021", "FY2022"]
    sales = next(m for m in h.measures if m.label_path == "Net sales")
    assert sales.topic == "income statement" and sales.unit == "USD" and sales.scale == 1e6
    assert {p: c.value.raw for p, c in sales.cells.items()} == {"FY2022": "$12,345", "FY2021": "$11,500",
                                                               "FY2020": "$10,100"}
    fy21 = sales.cells["FY2021"]
    assert fy21.value.source.file_name == "acme_2022_10k.pdf" and fy21.value.source.page == 40  # the later print
    assert [v.source.file_name for v in fy21.others] == ["acme_2021_10k.pdf"] and not fy21.restated
    assert h.restatements() == []


def test_a_later_filing_that_prints_another_value_is_a_restatement_with_both_sources():
    h = build_history("Acme", [
        _filing(2021, [("Cost of sales", (), ["6,600", "6,000"], 38)]),
        _filing(2022, [("Cost of sales", (), ["7,000", "6,650"], 40)]),
    ])
    [(m, cell)] = h.restatements()
    assert m.label_path == "Cost of sales" and cell.period == "FY2021"
    assert (cell.value.raw, cell.value.source.file_name) == ("6,650", "acme_2022_10k.pdf")
    assert [(v.raw, v.source.file_name, v.source.page) for v in cell.restated] == [("6,600", "acme_2021_10k.pdf", 38)]


def test_rounding_and_scale_are_no_restatement():
    a = _filing(2021, [("Net sales", (), ["$11,500", "$10,100"], 38)])
    b = doc(22, year=2022, file_name="acme_2022_10k.pdf")
    # the later filing prints the year before in billions, to one decimal: the same amount, rounded
    billions = table(INCOME, [column("2022", 2022), column("2021", 2021)], [("Net sales", (), ["12.3", "11.5"], 40)],
                     scale=1e9, document_id=22)
    h = build_history("Acme", [a, (b, [billions])])
    assert h.restatements() == []
    sales = h.measures[0]
    assert same_value(sales.cells["FY2021"].value, sales.cells["FY2021"].others[0])


def test_a_misread_scale_beside_the_usual_one_is_no_restatement():
    d21, t21 = _filing(2021, [("Net sales", (), ["$11,500", "$10,100"], 38)])
    d22 = doc(22, year=2022, file_name="acme_2022_10k.pdf")
    units = table(INCOME, [column("2022", 2022), column("2021", 2021)], [("Net sales", (), ["12,345", "11,500"], 40)],
                  scale=1.0, document_id=22)  # its unit line was not read: the same digits in units
    d20, t20 = _filing(2020, [("Net sales", (), ["$10,100", "$9,000"], 36)], document_id=20)
    h = build_history("Acme", [(d20, t20), (d21, t21), (d22, [units])])
    assert h.restatements() == []
    assert h.measures[0].cells["FY2021"].value.scale == 1e6


def test_years_after_the_documents_own_are_a_schedule_not_history():
    d = doc(1, year=2022)
    t = table("Contractual obligations", [column("2023", 2023), column("2024", 2024), column("2022", 2022)],
              [("Operating leases", (), ["100", "90", "110"], 60)])
    h = build_history("Acme", [(d, [t])])
    assert h.periods == ["FY2022"]


def test_labels_that_agree_in_meaning_and_value_are_one_measure(embed):
    h = build_history("Acme", [
        _filing(2021, [("Total net sales", (), ["$11,500", "$10,100"], 38)]),
        _filing(2022, [("Net sales", (), ["$12,345", "$11,500"], 40)]),
    ], embed=embed)
    [m] = h.measures
    assert m.label_path == "Net sales" and set(m.labels) == {"Net sales", "Total net sales"}
    assert sorted(m.cells) == ["FY2020", "FY2021", "FY2022"]


def test_two_rows_of_one_document_stay_two_measures_even_alike(embed):
    # "Net sales" and "Net sales, excluding fuel" share a value in 2021 by construction; the 2022 filing prints both
    h = build_history("Acme", [
        _filing(2021, [("Net sales", (), ["$11,500", "$10,100"], 38)]),
        _filing(2022, [("Net sales", (), ["$12,345", "$11,600"], 40),
                       ("Net sales, excluding fuel", (), ["$12,000", "$11,500"], 40)]),
    ], embed=embed)
    assert len(h.measures) == 2


def test_labels_of_other_meaning_are_not_merged_on_a_shared_value(embed):
    h = build_history("Acme", [
        _filing(2021, [("Cost of sales", (), ["6,600", "6,000"], 38)]),
        _filing(2022, [("Research and development", (), ["7,000", "6,600"], 40)]),
    ], embed=embed)
    assert len(h.measures) == 2


def test_a_note_number_is_not_part_of_the_topic():
    assert topic_of("NOTE 5. Supplemental Balance Sheet Information") == "Supplemental Balance Sheet Information"
    assert topic_of("Consolidated Balance Sheets") == "balance sheet"
    assert period_label(2023, "Q2") == "Q2 FY2023" and period_label(2023, None) == "FY2023"
    assert sorted(["FY2023", "Q2 FY2023", "FY2022"], key=period_order) == ["FY2022", "Q2 FY2023", "FY2023"]


def test_select_filters_by_topic_words_and_restatement():
    d1, t1 = _filing(2021, [("Cost of sales", (), ["6,600", "6,000"], 38)])
    d2, t2 = _filing(2022, [("Cost of sales", (), ["7,000", "6,650"], 40), ("Net sales", (), ["9,000", "8,000"], 40)])
    note = table("Note 3. Revenue by region", [column("2022", 2022)], [("Europe", (), ["4,000"], 70)],
                 document_id=d2.document_id)
    h = build_history("Acme", [(d1, t1), (d2, t2 + [note])])
    assert [m.label_path for m in h.select("statements")] == ["Cost of sales", "Net sales"]
    assert [m.label_path for m in h.select("Revenue by region")] == ["Europe"]
    assert [m.label_path for m in h.select(None, "cost")] == ["Cost of sales"]
    assert [m.label_path for m in h.select(None, restated_only=True)] == ["Cost of sales"]
    assert h.topics() == ["income statement", "Revenue by region"]


def test_a_value_only_the_usual_scale_makes_plausible_is_in_that_scale():
    # the statement's third year, read as a table of its own, lost its "(in millions)": 30,871 dollars of net
    # sales beside 31,821 million is 30,871 million
    d15 = doc(15, year=2015, file_name="acme_2015_10k.pdf")
    summary = table(INCOME, [column("2013", 2013)], [("Net sales", (), ["30,871"], 50)], scale=1.0, document_id=15)
    statement = table(INCOME, [column("2015", 2015), column("2014", 2014)],
                      [("Net sales", (), ["$30,274", "$31,821"], 50)], document_id=15)
    h = build_history("Acme", [(d15, [summary, statement])])
    sales = next(m for m in h.measures if m.topic == "income statement")
    assert sales.cells["FY2013"].value.scaled == 30_871e6


def test_a_quarters_report_dates_its_balances_by_quarter_and_the_last_year_end_by_year():
    d = doc(30, year=2023, doc_type="earnings release", fiscal_period="Q2", file_name="acme_q2_2023.pdf")
    # the month and day of each column were read into the title, the year into the header
    t = table("July 29, January 28, July 30,", [column("2023", 2023), column("2023", 2023), column("2022", 2022)],
              [("Property and equipment, net", (), ["1,073,144", "1,059,000", "990,000"], 7)], scale=1e3,
              document_id=30)
    h = build_history("Acme", [(d, [t])])
    assert sorted(h.measures[0].cells) == ["FY2022", "Q2 FY2022", "Q2 FY2023"]
    assert h.measures[0].cells["FY2022"].value.raw == "1,059,000"


def test_a_money_table_that_states_no_scale_takes_the_one_the_document_states():
    d = doc(40, year=2022)
    stated = [table(f"Note {i}", [column("2022", 2022)], [(f"Item {i}", (), ["1,000"], 50 + i)], document_id=40)
              for i in range(3)]
    bare = table("Deferred taxes", [column("2022", 2022)], [("Deferred tax liabilities", (), ["(9,430)"], 85),
                                                            ("Net income per common share › Basic", (), ["$6.73"], 85)],
                 scale=1.0, document_id=40)
    h = build_history("Acme", [(d, [*stated, bare])])
    by = {m.label_path: m.cells["FY2022"].value for m in h.measures}
    assert by["Deferred tax liabilities"].scaled == -9_430e6
    assert (by["Net income per common share › Basic"].unit, by["Net income per common share › Basic"].scale) == \
        ("USD/share", 1.0)


def test_a_roll_forward_read_under_columns_of_years_gives_no_cell():
    """Rows that date themselves to two years ("Balance at December 31, 2020", "… 2021") under columns of years: its
    periods are in its rows and its columns are components whose header was not read; no cell has its column's
    period. A row that dates itself under columns of two years gives none either."""
    h = build_history("Acme", [_filing(2022, [
        ("Balance at December 31, 2020", (), ["$2,091", "$10,806"], 70),
        ("Acquisitions", (), ["17", "3"], 70),
        ("Balance at December 31, 2021", (), ["2,090", "10,813"], 70),
    ], title="Goodwill")])
    assert h.measures == []
    h = build_history("Acme", [_filing(2022, [
        ("U.S. agency securities", ("June 30, 2021",), ["1,809", "0"], 72),
        ("Net sales", (), ["$12,345", "$11,500"], 40)])])
    assert [m.label_path for m in h.measures] == ["Net sales"]


def test_the_adjustments_between_two_per_share_lines_are_per_share():
    h = build_history("Acme", [_filing(2022, [
        ("Diluted EPS", (), ["$6.29", "$9.84"], 28),
        ("Income tax impact of non-GAAP adjustments", (), ["(0.24)", "(0.04)"], 28),
        ("Non-GAAP diluted EPS", (), ["$7.08", "$10.01"], 28),
        ("Net sales", (), ["$12,345", "$11,500"], 28)], title="Non-GAAP reconciliation")])
    units = {m.label_path: m.cells["FY2022"].value.unit for m in h.measures}
    assert units == {"Diluted EPS": "USD/share", "Income tax impact of non-GAAP adjustments": "USD/share",
                     "Non-GAAP diluted EPS": "USD/share", "Net sales": "USD"}


def test_columns_that_share_a_period_are_measures_of_their_own_and_a_row_named_by_a_year_is_none():
    d = doc(40, year=2015, file_name="acme_2015_10k.pdf")
    cols = [column("Level 1 2015", 2015), column("Level 1 2014", 2014), column("Total 2015", 2015),
            column("Total 2014", 2014)]
    t = table("Plan assets", cols, [("Foreign government", (), ["10", "45", "206", "715"], 90),
                                    ("Fiscal 2016", (), ["7", "8", "9", "10"], 90)], document_id=40)
    h = build_history("Acme", [(d, [t])])
    got = {(m.label_path, p): c.value.raw for m in h.measures for p, c in m.cells.items()}
    assert got == {("Foreign government (Level 1)", "FY2015"): "10", ("Foreign government (Level 1)", "FY2014"): "45",
                   ("Foreign government (Total)", "FY2015"): "206", ("Foreign government (Total)", "FY2014"): "715"}
