"""Footing checks on hand-built tables: sums to totals (subtotals, deductions, a net line under its parts), the
balance-sheet identity across two tables, Scope sums, printed changes; and why a check that fails most likely
failed."""

from __future__ import annotations

from hand_built import doc
from tables import column, table

from rag.workpaper.footing import balance_checks, change_checks, check_document, scope_checks, sum_checks

YEARS = [column("2022", 2022), column("2021", 2021)]


def _assets(cash: str = "1,798") -> list[tuple]:
    return [("Cash and cash equivalents", ("Current assets",), [cash, "1,897"], 52),
            ("Accounts receivable", ("Current assets",), ["4,154", "4,238"], 52),
            ("Total current assets", ("Current assets",), ["5,952", "6,135"], 52),
            ("Property, plant and equipment", (), ["24,000", "23,000"], 52),
            ("Less: accumulated depreciation", (), ["15,485", "14,511"], 52),
            ("Property, plant and equipment — net", (), ["8,515", "8,489"], 52),
            ("Total assets", (), ["14,467", "14,624"], 52)]


def test_totals_foot_through_subtotals_deductions_and_a_net_line():
    checks = sum_checks(table("Consolidated Balance Sheet", YEARS, _assets()))
    assert [(c.total.label, c.column, c.ok) for c in checks] == [
        ("Current assets › Total current assets", "2022", True), ("Total assets", "2022", True),
        ("Current assets › Total current assets", "2021", True), ("Total assets", "2021", True)]
    total = next(c for c in checks if c.total.label == "Total assets")
    assert [p.label for p in total.parts] == ["Current assets › Total current assets",
                                              "Property, plant and equipment — net"]


def test_a_gap_within_the_rounding_of_the_printed_values_fails_as_printed():
    t = table("Segments", [column("2022", 2022)], [("A", (), ["10.4"], 3), ("B", (), ["10.4"], 3),
                                                   ("C", (), ["10.4"], 3), ("Total", (), ["30.9"], 3)])
    [c] = sum_checks(t)
    assert not c.ok and c.verdict == "as printed" and "rounding" in c.reason


def test_a_gap_one_row_explains_is_likely_misread_and_names_the_row():
    t = table("Segments", [column("2022", 2022)], [("A", (), ["100"], 3), ("B", (), ["250"], 3),
                                                   ("C", (), ["40"], 3), ("Total", (), ["410"], 3)])
    [c] = sum_checks(t)
    assert not c.ok and c.verdict == "likely misread"
    assert c.pages == [3] and [p.raw for p in c.parts] == ["100", "250", "40"]
    # 410 − 390 = 20: no row is 20, so nothing found explains it
    assert "no row, sign or scale" in c.reason
    t2 = table("Segments", [column("2022", 2022)], [("A", (), ["100"], 3), ("B", (), ["(250)"], 3),
                                                    ("C", (), ["40"], 3), ("Total", (), ["390"], 3)])
    [c2] = sum_checks(t2)
    assert not c2.ok and "sign of 'B'" in c2.reason


def test_parts_read_in_another_scale_are_a_misread_of_ours():
    t = table("Intangibles", [column("2022", 2022)], [("Customer related", (), ["1,973"], 67),
                                                      ("Total", (), ["2,589"], 67)])
    patents = table("x", [column("2022", 2022)], [("Patents", (), ["616"], 67)], scale=1.0)
    rows = (t.rows[0], patents.rows[0], t.rows[1])
    mixed = type(t)(t.title, t.unit, t.scale, "", t.columns, rows)
    [c] = sum_checks(mixed)
    assert not c.ok and c.verdict == "likely misread" and "different scales" in c.reason


def test_the_balance_sheet_identity_across_its_two_tables():
    d = doc(1)
    assets = table("Consolidated Balance Sheet", YEARS, _assets())
    claims = table("Consolidated Balance Sheet (continued)", YEARS, [
        ("Total liabilities", (), ["9,000", "9,100"], 53), ("Total stockholders' equity", (), ["5,467", "5,500"], 53)])
    checks = balance_checks([assets, claims], d)
    assert [(c.column, c.ok) for c in checks] == [("2022", True), ("2021", False)]
    bad = checks[1]
    assert bad.pages == [52, 53] and bad.gap == (14_624 - 14_600) * 1e6
    assert [p.label for p in bad.parts] == ["Total liabilities", "Total stockholders' equity"]


def test_scope_totals_against_either_scope_2_method():
    t = table("GHG emissions (t CO2e)", [column("2023", 2023), column("2022", 2022)], [
        ("Scope 1", (), ["1,050", "1,100"], 12), ("Scope 2 (location-based)", (), ["4,000", "4,200"], 12),
        ("Scope 2 (market-based)", (), ["2,000", "2,500"], 12), ("Scope 3 category 1", (), ["9,000", "9,500"], 12),
        ("Total Scope 1 and 2 (market-based)", (), ["3,050", "3,500"], 12)], unit="t CO2e", scale=1.0)
    checks = scope_checks(t, doc(1))
    assert [(c.column, c.ok) for c in checks] == [("2023", True), ("2022", False)]
    assert [p.label for p in checks[0].parts] == ["Scope 1", "Scope 2 (market-based)"]


def test_printed_changes_against_the_recomputed_ones():
    cols = [column("2022", 2022), column("2021", 2021), column("% change", change=True)]
    t = table("Net sales by segment", cols, [("Industrial", (), ["$2,389", "$2,500", "(4.4)%"], 19),
                                             ("Consumer", (), ["1,100", "1,000", "12.0%"], 19)])
    checks = change_checks(t, doc(1))
    assert [(c.total.label, c.ok) for c in checks] == [("Industrial", True), ("Consumer", False)]
    assert round(checks[1].computed, 1) == 10.0 and checks[1].verdict == "likely misread"


def test_a_document_runs_every_check():
    d = doc(1)
    t = table("Consolidated Balance Sheet", YEARS, _assets() + [("Total liabilities and equity", (),
                                                                   ["14,467", "14,624"], 53)])
    kinds = {c.kind for c in check_document(d, [t])}
    assert kinds == {"sum", "balance"}


def test_a_row_the_reading_did_not_line_up_counts_by_position_when_it_has_a_cell_per_column():
    t = table("Short-term debt", YEARS, [("Commercial paper", (), ["361.6", "300.0"], 73),
                                         ("Bank loans", (), ["397.9", "400.0"], 73),
                                         ("Total short-term debt", (), ["759.5", "700.0"], 73)])
    unaligned = t.rows[0].__class__(t.rows[0].label, (), tuple(c.__class__(c.raw, c.value, c.unit, c.scale, None,
                                                                           c.position) for c in t.rows[0].cells),
                                    73, 0, t.rows[0].text)
    t2 = type(t)(t.title, t.unit, t.scale, "", t.columns, (unaligned, *t.rows[1:]))
    assert [c.ok for c in sum_checks(t2)] == [True, True]


def test_a_five_year_summarys_lines_are_not_checked_as_parts_of_a_total():
    cols = [column(str(y), y) for y in (2019, 2018, 2017, 2016, 2015)]
    t = table("Five-Year Summary", cols, [("Total debt", (), ["100"] * 5, 25),
                                          ("Operating cash flow", (), ["50"] * 5, 25),
                                          ("Total backlog", (), ["900"] * 5, 25)])
    assert sum_checks(t) == []


def test_columns_under_each_period_foot_among_themselves():
    """"Previously Reported | Adjustment | As Revised" under each date: each column's rows are summed with that
    column's rows only."""
    from rag.records import Table, TableCell, TableColumn, TableRow
    cols = (TableColumn("2015", "FY2015", 2015, "FY", False), TableColumn("2014", "FY2014", 2014, "FY", False))

    def row(label, sub, a, b):
        cells = tuple(TableCell(str(v), float(v), "USD", 1e6, i, i) for i, v in enumerate((a, b)))
        return TableRow(f"{label} ({sub})", (), cells, 60, 0, "", sub)
    rows = []
    for sub, k in (("Previously Reported", 1), ("Adjustment", 0), ("As Revised", 1)):
        rows.append(row("Other liabilities", sub, 1580 * k + 444 * (1 - k), 1555 * k + 444 * (1 - k)))
    for sub, k in (("Previously Reported", 1), ("Adjustment", 0), ("As Revised", 1)):
        rows.append(row("Long-term debt", sub, 100 * k, 90 * k))
    for sub, (a, b) in (("Previously Reported", (1680, 1645)), ("Adjustment", (444, 444)), ("As Revised", (1680, 1645))):
        rows.append(row("Total liabilities", sub, a, b))
    t = Table("Revisions", "USD", 1e6, "", cols, tuple(rows))
    checks = check_document(doc(1), [t])
    assert checks and all(c.ok for c in checks if c.kind == "sum")
