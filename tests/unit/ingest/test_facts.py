"""Table facts read from a document's lines (rag/ingest/facts.py): labels with their parents, periods from the
header (one or two levels), signs, units and scales, a table continued in the next chunk, and where prose ends it."""

from rag.ingest.facts import (DocContext, SourceLine, clean_label, extract_facts, is_header_row, plain_header,
                              read_cell, read_tables)

TEN_K = DocContext(2018, "FY", "10-K")


def _facts(text: str, doc: DocContext = TEN_K, chunk_breaks: tuple[int, ...] = ()):
    lines, chunk, page = [], 0, 1
    for i, line in enumerate(text.strip("\n").splitlines()):
        if i in chunk_breaks:
            chunk, page = chunk + 1, page + 1
        lines.append(SourceLine(line.strip(), page, chunk, "Item 8 › Consolidated Statement of Income"))
    return extract_facts(lines, doc)


def _one(facts, label_part: str, period: str):
    got = [f for f in facts if label_part.lower() in f.label_path.lower() and f.period == period]
    assert len(got) == 1, [(f.label_path, f.period) for f in facts]
    return got[0]


def test_cells_read_sign_unit_and_scale():
    assert read_cell("$32,765").value == 32765 and read_cell("$32,765").unit == "USD"
    assert read_cell("(1,577)").value == -1577
    assert read_cell("–5.3 %").value == -5.3 and read_cell("–5.3 %").unit == "%"
    assert read_cell("+2.3 %").value == 2.3
    c = read_cell("€11,433.7 million")
    assert (c.value, c.unit, c.scale) == (11433.7, "EUR", 1e6)
    assert read_cell("2,296,953 GJ").unit == "GJ"
    assert read_cell("75,617 t").unit == "t"
    assert read_cell("0,20").value == 0.2  # a decimal comma
    assert read_cell("—") is None and read_cell("n/a") is None and read_cell("10 years") is None


def test_an_income_statement_with_parents_periods_and_scale():
    facts = _facts("""
        Consolidated Statement of Income
        Years ended December 31
        (Millions, except per share amounts) | 2018 | 2017 | 2016
        Net sales | $32,765 | $31,657 | $30,109
        Operating expenses
        Cost of sales | 16,682 | 16,055 | 15,118
        Gain on sale of businesses | (547) | (586) | (111)
        Total operating expenses | 25,558 | 23,965 | 23,082
        Operating income | 7,207 | 7,692 | 7,027
        Earnings per share attributable to 3M common shareholders — diluted | $8.89 | $7.93 | $8.16
        Weighted average 3M common shares outstanding — diluted | 602.0 | 612.7 | 618.7
    """)
    ns = _one(facts, "Net sales", "FY2018")
    assert (ns.value, ns.unit, ns.scale, ns.fiscal_year, ns.fiscal_period) == (32765, "USD", 1e6, 2018, "FY")
    assert ns.table_title == "Consolidated Statement of Income"
    assert _one(facts, "Cost of sales", "FY2017").label_path == "Operating expenses › Cost of sales"
    assert _one(facts, "Gain on sale", "FY2016").value == -111
    assert _one(facts, "Operating income", "FY2018").label_path == "Operating income"  # a total closed the group
    eps = _one(facts, "Earnings per share", "FY2018")
    assert (eps.value, eps.unit, eps.scale) == (8.89, "USD/share", 1.0)
    shares = _one(facts, "shares outstanding", "FY2018")
    assert (shares.unit, shares.scale) == ("shares", 1e6)


def test_a_two_level_header_of_quarters_and_year_to_date():
    q2 = DocContext(2024, "Q2", "10-Q")
    facts = _facts("""
        ($ in millions) | Three Months Ended | Six Months Ended
        Revenue | July 29, 2023 | July 30, 2022 | July 29, 2023 | July 30, 2022
        Revenue | $9,583 | $10,329 | $19,050 | $20,976
    """, q2)
    # the second line reads as a header row under the first: four columns, each with its span
    assert {f.period for f in facts} == {"Q2 FY2024", "Q2 FY2023", "H1 FY2024", "H1 FY2023"}
    assert _one(facts, "Revenue", "Q2 FY2023").value == 10329
    assert _one(facts, "Revenue", "H1 FY2024").col_header.startswith("Six Months Ended")


def test_balance_sheet_dates_read_as_fiscal_years_of_a_january_year_end():
    bby = DocContext(2023, "FY", "10-K")
    facts = _facts("""
        Consolidated Balance Sheets
        ($ in millions) | January 28, 2023 | January 29, 2022
        Merchandise inventories | 5,140 | 5,965
        Total current liabilities | 8,979 | 10,674
    """, bby)
    assert _one(facts, "inventories", "FY2023").value == 5140
    assert _one(facts, "inventories", "FY2022").col_header == "January 29, 2022"


def test_change_and_percent_of_sales_columns():
    facts = _facts("""
        in GJ | 2023 | 2022 | Change
        Total energy use within the organization (direct and indirect) | 2,296,953 | 2,246,257 | +2.3 %
        Cooling | 877 | – | –
    """, DocContext(2023, "FY", "sustainability report"))
    energy = _one(facts, "Total energy use", "FY2023")
    assert (energy.value, energy.unit) == (2296953, "GJ")
    change = [f for f in facts if f.is_change]
    assert change and change[0].unit == "%" and change[0].value == 2.3
    assert [f.period for f in facts if f.label == "Cooling"] == ["FY2023"]

    facts = _facts("""
        ($ in millions) | Fiscal 2023 | % of Revenue | Fiscal 2022 | % of Revenue
        Gross profit | 10,144 | 21.4 % | 11,640 | 22.5 %
    """, DocContext(2023, "FY", "10-K"))
    share = [f for f in facts if f.unit == "%" and f.fiscal_year == 2022]
    assert share and share[0].value == 22.5 and not share[0].is_change


def test_a_table_continued_in_the_next_chunk_keeps_its_header_unit_and_parent():
    facts = _facts("""
        Consolidated Statement of Cash Flows
        (Millions) | 2018 | 2017 | 2016
        Cash Flows from Investing Activities
        Purchases of property, plant and equipment (PP&E) | (1,577) | (1,373) | (1,420)
        Proceeds from sale of PP&E and other assets | 262 | 49 | 58
        Acquisitions, net of cash acquired | 13 | (2,023) | (16)
    """, chunk_breaks=(4,))
    capex = _one(facts, "Purchases of property", "FY2018")
    assert (capex.value, capex.scale, capex.page, capex.chunk_index) == (-1577, 1e6, 1, 0)
    acq = _one(facts, "Acquisitions", "FY2017")
    assert acq.page == 2 and acq.chunk_index == 1 and acq.scale == 1e6
    assert acq.label_path == "Cash Flows from Investing Activities › Acquisitions, net of cash acquired"

    # the header repeated at the top of the next page keeps the group it was in
    facts = _facts("""
        (In millions) | 2022 | 2021
        Net revenue:
        Data Center . . . . . . . . . . . | $ 6,043 | $ 3,694
        (In millions) | 2022 | 2021
        Gaming . . . . . . . . . . . . . . | 6,805 | 5,607
    """, DocContext(2022, "FY", "annual report"), chunk_breaks=(3,))
    assert _one(facts, "Gaming", "FY2022").label_path == "Net revenue › Gaming"


def test_prose_ends_a_table_and_sentences_are_not_rows():
    facts = _facts("""
        (Millions) | 2018 | 2017
        Net sales | 100 | 90
        Net sales grew in every segment because demand for widgets rose in all regions, as described in the notes to the financial statements below.
        Revenue rose 12 percent to 112 million in 2019 and 9 percent in 2020 .
        Other | 5 | 4
    """)
    assert {f.label for f in facts} == {"Net sales", "Other"}
    assert all(f.period is None for f in facts if f.label == "Other")  # the header ended with the prose


def test_esg_tables_unit_columns_wrapped_labels_and_bracketed_alternatives():
    facts = _facts("""
        Key Figures Unit 2018 2019 1) 2020 2) Germany 2) Austria Sweden
        Scope 1 (direct carbon emissions)
        Combustion processes at
        stationary plants | t CO2e | 522,421 | 571,744 | 466,848 | 438,907 | 27,462 | 478
        in t CO2e | 2023 | 2022 | Change
        Direct (Scope 1) | 110,769 | 107,782 | +2.8 %
        (Indirect Scope 2, market-based) | (35,338) | (35,318) | +0.1 %
    """, DocContext(2020, "FY", "sustainability report"))
    s1 = _one(facts, "Combustion processes", "FY2020")
    assert (s1.value, s1.unit) == (466848, "t CO2e")
    assert s1.label_path == "Scope 1 (direct carbon emissions) › Combustion processes at stationary plants"
    germany = [f for f in facts if f.col_header == "Germany"]
    assert germany and germany[0].value == 438907 and germany[0].period is None  # a breakdown, not a period
    assert _one(facts, "Direct (Scope 1)", "FY2023").unit == "t CO2e"
    assert _one(facts, "market-based", "FY2023").value == 35338  # brackets: the market-based figure, not negative


def test_header_rows_and_labels():
    assert is_header_row("(Millions) | 2018 | 2017 | 2016")
    assert is_header_row("in GJ | 2023 | 2022 | Change")
    assert not is_header_row("Net sales | $32,765 | $31,657")
    assert plain_header("Key Figures Unit 2018 2019 1) 2020 2) Germany 2) Austria Sweden") == \
        "Key Figures Unit | 2018 | 2019 | 2020 | Germany | Austria | Sweden"
    assert plain_header("Revenue rose from 2018 to 2019 by 12%") is None
    assert clean_label("Number of employees6, *") == "Number of employees"
    assert clean_label("Greenhouse gas emissions (Scope 3)5") == "Greenhouse gas emissions (Scope 3)"
    assert clean_label("Data Center . . . . . .") == "Data Center"


def test_a_release_header_of_periods_a_group_with_its_unit_and_values_with_their_share():
    """An earnings release prints "Q2 FY24 | Q2 FY23" with no stub cell, and "Revenue ($ in millions)" as the group
    of the rows below it; an MD&A table prints each value beside its share of sales."""
    q2 = DocContext(2024, "Q2", "10-Q")
    facts = _facts("""
        Q2 FY24 | Q2 FY23
        Revenue ($ in millions)
        Enterprise | $9,583 | $10,329
        Domestic segment | $8,890 | $9,569
    """, q2)
    ent = _one(facts, "Enterprise", "Q2 FY2024")
    assert (ent.label_path, ent.value, ent.unit, ent.scale) == ("Revenue › Enterprise", 9583, "USD", 1e6)
    assert _one(facts, "Enterprise", "Q2 FY2023").value == 10329
    facts = _facts("""
        Three Months Ended December 31, | Six Months Ended December 31,
        ($ in millions) | 2022 | 2021 | 2022 | 2021
        Net sales | $3,642 | 100.0 % | $3,507 | 100.0 % | $7,354 | 100.0 % | $6,927 | 100.0 %
        Gross profit | 662 | 18.2 % | 645 | 18.4 % | 1,330 | 18.1 % | 1,295 | 18.7 %
    """, q2)
    got = {(f.label, f.col_header): f.value for f in facts}
    assert got[("Net sales", "Three Months Ended December 31, 2022")] == 3642
    assert got[("Net sales", "Six Months Ended December 31, 2022")] == 7354
    assert got[("Gross profit", "Six Months Ended December 31, 2021")] == 1295


def test_a_kpi_section_line_with_reporting_codes_is_the_rows_group():
    """"Fresh Water Consumption in the Portfolio 303–5" names the rows below it, without its GRI codes."""
    facts = _facts("""
        Key Figures | Unit | 2018 | 2019 | 2020
        Fresh Water Consumption in the Portfolio 303–5
        Water consumption | million m³ | 43.8 | 45.2 | 53.2
        Total Emissions in the Portfolio 3) 305–1, 305–2, 305-5
        Emissions in the portfolio | t CO2e | 1,049,766 | 1,176,496 | 1,021,319
    """, DocContext(2020, "FY", "sustainability report"))
    water = _one(facts, "Water consumption", "FY2020")
    assert water.label_path == "Fresh Water Consumption in the Portfolio › Water consumption"
    assert (water.value, water.unit) == (53.2, "m3")
    assert _one(facts, "Emissions in the portfolio", "FY2020").label_path.startswith("Total Emissions in the Portfolio ›")


def test_a_results_table_header_of_measure_names_with_or_without_column_gaps():
    """A paper's results table: the header names its measures ("Method Precision Recall F1"), printed without
    column gaps above rows that have them; each value is read under its measure's name."""
    facts = _facts("""
        Table 3: Results of the selector
        Method Precision Recall F1
        GPT-4o | 0.96 | 0.69 | 0.80
        PaSa-7b-Selector | 0.95 | 0.78 | 0.85
    """, DocContext(2025, None, "paper"))
    got = {(f.label, f.col_header): f.value for f in facts}
    assert got[("PaSa-7b-Selector", "F1")] == 0.85
    assert got[("GPT-4o", "Recall")] == 0.69
    assert got[("GPT-4o", "Precision")] == 0.96
    gapped = _facts("""
        Model | EM | F1
        BERT-base | 80.8 | 88.5
    """, DocContext(2019, None, "paper"))
    assert {(f.label, f.col_header): f.value for f in gapped}[("BERT-base", "EM")] == 80.8


def test_a_group_label_above_a_row_is_not_a_header_of_measures():
    facts = _facts("""
        Consolidated Statement of Income
        (in millions) | 2018 | 2017
        Operating expenses
        Research and development | 1,200 | 1,100
    """)
    assert _one(facts, "Research and development", "FY2018").label_path == \
        "Operating expenses › Research and development"


def test_a_line_above_two_lower_case_rows_is_their_group_not_a_wrapped_label():
    facts = _facts("""
EMISSIONS DETAILS
CO2e IN TONS | 2023 | 2022
Scope 1, direct | 4,040.9 | 4,180.2
Scope 2, indirect
market based | 9,610.2 | 9,462.5
location based | 11,979.6 | 11,646.9
Scope 3, indirect | 102,828.4 | 89,246.1
""", DocContext(2023, "FY", "sustainability report"))
    assert _one(facts, "location based", "FY2023").label_path == "Scope 2, indirect › location based"
    assert "Scope 2" in _one(facts, "market based", "FY2023").label_path
    assert _one(facts, "Scope 3", "FY2023").label_path == "Scope 3, indirect"  # the group ends with its rows


def test_rows_without_column_gaps_keep_naming_numbers_and_empty_cells():
    # a GHG inventory printed without column gaps: "Scope 1" and "3.1" name a row, "k.A." (no value) holds a column
    facts = _facts("""
GHG Inventory in t CO2e
2023 | 2022 | 2021
Scope 1: Direct emissions 1,772.6 t 1,293.5 t 1,107.3 t
Scope 2: Indirect emissions (location-based) 2,046.4 t k.A. k.A.
3.1 Purchased goods and services 665,687.8 t n/a –
In 2023 we opened 5 sites and closed 3 - 4
""", DocContext(2023, "FY", "other"))
    assert (_one(facts, "Scope 1: Direct", "FY2022").value, _one(facts, "Scope 1: Direct", "FY2022").unit) == \
        (1293.5, "t")
    assert [f.period for f in facts if "location-based" in f.label] == ["FY2023"]
    assert _one(facts, "3.1 Purchased goods", "FY2023").value == 665687.8
    assert not [f for f in facts if "opened" in f.label]


def test_a_table_is_a_record_and_its_facts_are_its_cells():
    from rag.ingest.facts import facts_of_table, read_tables

    lines = [SourceLine(t, 3, 0, "") for t in (
        "Key figures | 2023 | 2022", "Workforce", "Employees (headcount) | 1,234 | 1,100", "Women in % | 35.1 % | 34.0 %")]
    (table,) = read_tables(lines, DocContext(2023, "FY", "other"))
    assert [c.period for c in table.columns] == ["FY2023", "FY2022"] and table.stub == "Key figures"
    women = table.rows[1]
    assert women.groups == ("Workforce",) and women.label_path == "Workforce › Women in %"
    assert [(c.value, c.unit, c.column) for c in women.cells] == [(35.1, "%", 0), (34.0, "%", 1)]
    assert [(f.label_path, f.period, f.value) for f in facts_of_table(table)] == [
        ("Workforce › Employees (headcount)", "FY2023", 1234), ("Workforce › Employees (headcount)", "FY2022", 1100),
        ("Workforce › Women in %", "FY2023", 35.1), ("Workforce › Women in %", "FY2022", 34.0)]
    head, grid = table.grid()
    assert head == ["Key figures", "2023", "2022"] and grid[1] == ["Workforce › Women in %", "35.1 %", "34.0 %"]


def test_an_upper_header_of_column_names_over_dated_columns():
    facts = _facts("""
Other financial assets
 | Total | Total | Non-current | Non-current
in € million | Dec. 31, 2023 | Dec. 31, 2022 | Dec. 31, 2023 | Dec. 31, 2022
Loans to third parties | 52 | 60 | 40 | 45
""", DocContext(2023, "FY", "other"))
    got = {f.col_header: f.value for f in facts}
    assert got == {"Total Dec. 31, 2023": 52, "Total Dec. 31, 2022": 60, "Non-current Dec. 31, 2023": 40,
                   "Non-current Dec. 31, 2022": 45}
    assert {f.period for f in facts} == {"FY2023", "FY2022"} and facts[0].scale == 1e6


def test_a_header_printed_as_stacked_lines_keeps_every_column():
    """'2023 | 2023' over 'Merck thereof' over 'GWh | 2020 | 2021 | 2022 | Group | Merck KGaA': one two-level header;
    the words between are the upper level's, not the group of the first row."""
    facts = _facts("""
Energy consumption
2023 | 2023
Lakeside thereof
GWh | 2020 | 2021 | 2022 | Group | Parent AG
Total energy consumption | 812 | 798 | 765 | 731 | 102
Direct energy consumption | 402 | 391 | 377 | 360 | 51
""", DocContext(2023, "FY", "annual report"))
    total = [f for f in facts if f.label_path == "Total energy consumption"]
    assert [(f.raw, f.period) for f in total] == [("812", "FY2020"), ("798", "FY2021"), ("765", "FY2022"),
                                                  ("731", "FY2023"), ("102", "FY2023")]
    assert total[3].col_header == "2023 Group" and total[4].col_header == "2023 Parent AG"
    assert {f.unit for f in total} == {"GWh"}


def test_a_repeated_header_under_a_header_is_not_a_lower_level():
    facts = _facts("""
(In millions) | 2018 | 2017
Revenue | 100 | 90
(In millions) | 2018 | 2017
Cost of sales | 60 | 50
""")
    assert [f.period for f in facts if f.label_path.endswith("Cost of sales")] == ["FY2018", "FY2017"]


def test_units_spelled_out_are_their_type():
    lines = [SourceLine(t, 4, 0, "") for t in ("Energy use at production sites in megawatt hours", "2023 | 2022",
                                               "Total production sites | 79,587 | 78,717")]
    assert {f.unit for f in extract_facts(lines, DocContext(2023, "FY", "annual report"))} == {"MWh"}


def test_an_amount_paid_to_the_counted_is_an_amount_not_a_count():
    facts = _facts("""
CONSOLIDATED STATEMENTS OF CASH FLOWS (Amounts in millions)
(Amounts in millions) | 2019 | 2018
Proceeds from issuance of common stock to employees | $ 105 | $ 99
Worldwide employees | 22,634 | 21,357
""")
    assert {f.unit for f in facts if "Proceeds" in f.label_path} == {"USD"}
    assert {f.unit for f in facts if "Worldwide" in f.label_path} == {"employees"}


def test_a_unit_line_between_rows_is_the_unit_of_the_rows_below():
    lines = [SourceLine(t, 5, 0, "") for t in (
        "Energy consumption", "GWh | 2022 | 2023", "Total energy consumption | 2,432 | 2,337",
        "In TJ", "Total energy consumption | 8,755 | 8,413")]
    tables = read_tables(lines, DocContext(2023, "FY", "annual report"))
    assert [(t.unit, [c.raw for c in t.rows[0].cells]) for t in tables] == [("GWh", ["2,432", "2,337"]),
                                                                           ("TJ", ["8,755", "8,413"])]
    assert [c.unit for t in tables for c in t.rows[0].cells] == ["GWh", "GWh", "TJ", "TJ"]


def test_a_row_with_an_empty_cell_before_its_values_shows_as_a_grid():
    """A row that does not line up, whose first printed cell was empty: its values keep their places (a display
    error here broke `rag tables` and the citation's table dialog)."""
    from rag.records import Table, TableCell, TableRow
    row = TableRow("Year Ending June 30", (), (TableCell("2024", 2024.0, None, 1.0, None, 2),
                                              TableCell("$2,363", 2363.0, "USD", 1.0, None, 3)), 80, 0, "")
    head, lines = Table("Debt", "USD", 1.0, "", (), (row,)).grid()
    assert len(head) == 5 and lines == [["Year Ending June 30", "", "", "2024", "$2,363"]]


def test_periods_that_span_columns_give_each_column_its_period_and_its_name():
    """A two-level header ("January 31, 2018 | January 31, 2017" over "Carrying Value Fair Value" twice): each
    period spans as many cells as the row holds per period, and each column's row is labelled with its name."""
    facts = _facts("""
        January 31, 2018 | January 31, 2017
        (Amounts in millions) Carrying Value Fair Value Carrying Value Fair Value
        Long-term debt, including amounts due within one year | $33,783 | $38,766 | $38,271 | $44,602
    """)
    got = {(f.label_path, f.period): (f.value, f.unit, f.scale) for f in facts}
    assert got == {
        ("Long-term debt, including amounts due within one year (Carrying Value)", "FY2018"): (33783, "USD", 1e6),
        ("Long-term debt, including amounts due within one year (Fair Value)", "FY2018"): (38766, "USD", 1e6),
        ("Long-term debt, including amounts due within one year (Carrying Value)", "FY2017"): (38271, "USD", 1e6),
        ("Long-term debt, including amounts due within one year (Fair Value)", "FY2017"): (44602, "USD", 1e6)}


def test_a_stacked_header_glued_by_the_layout_names_columns_by_its_last_line_and_a_leading_range_is_no_value():
    facts = _facts("""
        Other intangibles were as follows:
        (in thousands) | 2019 | 2018
        Accumulated Accumulated Cost Amortization Net Cost Amortization Net
        Customer contracts | 9 - 20 | $ 1,219,029 | $ (436,545) | $782,484 | $ 1,329,432 | $ (416,176) | $913,256
    """, DocContext(2019, "FY", "10-K"))
    got = {(f.label_path, f.period): f.value for f in facts}
    assert got[("Customer contracts (Net)", "FY2019")] == 782484
    assert got[("Customer contracts (Amortization)", "FY2018")] == -416176
    assert len(got) == 6


def test_interleaved_names_are_numbered_and_a_change_is_not_a_block():
    from rag.ingest.facts import sub_column_names
    assert sub_column_names(["Remaining Net Remaining Net Impairments Carrying Value (1) Impairments Carrying"],
                            2, 2) == ["column 1 of 2", "column 2 of 2"]
    facts = _facts("""
        (in millions) | 2022 | 2021
        Net sales | 100 | 90 | 10 | 11 %
    """)
    assert {f.period for f in facts} <= {"FY2022", "FY2021", None}
    assert not any("column" in f.label_path for f in facts)


def test_change_columns_that_span_an_amount_and_a_percentage():
    facts = _facts("""
        As of/ Year Ended December 31, Change
        2015 | 2014 | 2013 | 2015 vs. 2014 | 2014 vs. 2013
        (in thousands, except revenue per membership and percentages)
        Revenues | $4,180,339 | $3,431,434 | $2,751,375 | $748,905 | 22 % | $680,059 | 25 %
        Average monthly revenue per paying membership | $8.50 | $8.14 | $7.97 | $0.36 | 4 % | $0.17 | 2 %
    """, DocContext(2015, "FY", "10-K"))
    rev = _one(facts, "Revenues", "FY2013")
    assert (rev.value, rev.scale) == (2751375, 1e3)
    arpu = _one(facts, "revenue per paying", "FY2015")
    assert (arpu.value, arpu.unit, arpu.scale) == (8.5, "USD", 1.0)  # the scale line leaves it out by name
    assert {f.raw for f in facts if f.is_change and "Revenues" in f.label_path} == {"$748,905", "22 %", "$680,059",
                                                                                    "25 %"}


def test_units_a_label_or_a_scale_line_names():
    facts = _facts("""
        (Amounts in millions, except per share and unit count data) | 2020 | 2019
        Total revenues | $523,964 | $514,405
        Unit counts
        Walmart U.S. segment | 4,756 | 4,769
    """)
    units = _one(facts, "Walmart U.S.", "FY2020")
    assert (units.unit, units.scale) == (None, 1.0)
    assert _one(facts, "Total revenues", "FY2020").scale == 1e6
    facts = _facts("""
        Valuation Assumptions | (1) | 2015 | 2014 | 2013
        Expected life of stock options (in years) | (4) | 6.0 | 5.9 | 5.9
    """)
    life = _one(facts, "Expected life", "FY2015")
    assert (life.value, life.unit, life.scale) == (6.0, "years", 1.0)
    facts = _facts("""
        (Shares in millions)
        Years ended December 31, | 2022 | 2021 | 2020
        Performance-based restricted stock units | 0.4 | 0.8 | 1.3
    """)
    rsu = _one(facts, "restricted stock units", "FY2021")
    assert (rsu.value, rsu.unit, rsu.scale) == (0.8, "shares", 1e6)


def test_a_scale_the_sentence_before_the_tables_states_holds_for_them_until_prose():
    facts = _facts("""
        The tables below list our revenue and property and equipment, net, by geographic area for fiscal 2017, 2016 and 2015 (in thousands). With the exception of property and equipment, we do not identify or allocate our assets.
        Revenue | 2017 | 2016 | 2015
        United States | $3,830,845 | $3,087,764 | $2,548,024
        Property and Equipment | 2017 | 2016 | 2015
        United States | $753,393 | $642,823 | $621,122
        Amortization expense was $402.3 million in fiscal 2017, and we expect it to fall in the years to come as assets age.
        Backlog | 2017 | 2016
        United States | 1,200 | 1,100
    """, DocContext(2017, "FY", "10-K"))
    assert {f.scale for f in facts if f.raw.startswith("$")} == {1e3}
    assert {f.scale for f in facts if f.raw in ("1,200", "1,100")} == {1.0}


def test_a_row_cut_from_a_column_under_each_period_keeps_the_column_it_came_from():
    lines = [SourceLine(t, 60, 0, "") for t in (
        "December 31, 2015 | December 31, 2014",
        "(Millions) Previously Reported Adjustment As Revised Previously Reported Adjustment As Revised",
        "Total liabilities | 20,971 | 444 | 21,415 | 18,067 | 444 | 18,511")]
    [t] = read_tables(lines, DocContext(2015, "FY", "10-K"))
    assert [(r.sub, [c.raw for c in r.cells]) for r in t.rows] == [
        ("column 1 of 3", ["20,971", "18,067"]), ("column 2 of 3", ["444", "444"]), ("column 3 of 3", ["21,415", "18,511"])]
    assert t.rows[0].to_json()["sub"] == "column 1 of 3" and "sub" not in t.rows[0].__class__(
        "x", (), (), 1, 0, "").to_json()


def test_signs_printed_on_a_groups_first_row_and_total_only_hold_for_the_rows_between():
    facts = _facts("""
        2016 | 2015 | 2014
        Sales (millions) | $4,826 | $5,253 | $5,608
        Sales change analysis:
        Organic local currency | (7.5)% | (1.5)% | 5.2 %
        Translation | (0.6) | (4.0) | (1.3)
        Total sales change | (8.1)% | (6.3)% | 3.9 %
        Operating income (millions) | $1,075 | $1,109 | $1,122
    """, DocContext(2016, "FY", "10-K"))
    tr = _one(facts, "Translation", "FY2015")
    assert (tr.value, tr.unit, tr.scale) == (-4.0, "%", 1.0)
    assert _one(facts, "Operating income", "FY2015").unit == "USD"


def test_a_statement_title_with_its_scale_above_the_dates_and_a_glued_pair_of_years():
    tables = read_tables([SourceLine(x, 7, 9, "") for x in (
        "Ulta Beauty, Inc. Consolidated Statements of Cash Flows (In thousands)", "13 Weeks Ended",
        "April 29, April 30,", "2023 | 2022", "Net income | $347,051 | $331,395",
        "Financing activities", "Purchase of treasury shares | (21,659) | (5,172)",
        "Number of stores", "Total | 1,159 | 1,231")], DocContext(2023, "Q1", "earnings release"))
    [t] = tables
    # the scale on the statement's title line holds; the title stays the columns' month-days, which the workpaper
    # reads the columns' dates from (a header set on two lines)
    assert t.scale == 1e3 and t.title == "April 29, April 30,"
    units = {r.label_path: {(c.unit, c.scale) for c in r.cells} for r in t.rows}
    assert units["Financing activities › Purchase of treasury shares"] == {("USD", 1e3)}  # shares bought: money
    assert units["Number of stores › Total"] == {(None, 1.0)}  # a count, by its parent
    [t] = read_tables([SourceLine(x, 90, 0, "") for x in (
        "Asset Class | 2015 | 2014 | 2015 | 2014 | 2015    2014 | 2015 | 2014",
        "Foreign government | — | 45 | 206 | 670 | — | — | 206 | 715")], DocContext(2015, "FY", "10-K"))
    assert len(t.columns) == 8 and [(c.raw, t.columns[c.column].header) for c in t.rows[0].cells][:2] == [
        ("45", "2014"), ("206", "2015")]


def test_gallons_are_a_unit():
    from rag.quantities import unit_of
    assert unit_of("Billed water services volumes (in millions of gallons)") == "gallons"
