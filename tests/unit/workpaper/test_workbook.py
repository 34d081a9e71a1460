"""The workbook, opened with openpyxl: the history with each value's source as its comment and restated values
marked, the sources, restatements and footing sheets, and the metrics as live formulas whose values — evaluated
by the `formulas` package, an Excel formula engine — are the app's (rag.metrics.compute through computed_metrics)."""

from __future__ import annotations

import openpyxl
import pytest
from hand_built import doc
from tables import column, table

from rag.workpaper.computed import computed_metrics
from rag.workpaper.footing import check_document
from rag.workpaper.history import build_history
from rag.workpaper.workbook import write_workbook

INCOME = "Consolidated Statements of Operations"


def _filing(year: int, sales: tuple[str, str], cost: tuple[str, str], op: tuple[str, str], odd: str = "Other"):
    d = doc(year - 2000, year=year, file_name=f"acme_{year}_10k.pdf")
    net = [f"{year - 1100:,}", f"{year - 1101:,}"]
    rows = [("Net sales", (), list(sales), 40), ("Cost of sales", (), list(cost), 40),
            ("Operating income", (), list(op), 40), ("Net income", (), net, 40), (odd, (), ["12", "11"], 40),
            *_segments(year)]
    return d, [table(INCOME, [column(str(year), year), column(str(year - 1), year - 1)], rows,
                     document_id=d.document_id)]


def _segments(year: int) -> list[tuple]:
    """A segment total that does not foot in FY2021, as both filings print it."""
    a, b, total = {2021: (["20", "15"], ["10", "5"], ["35", "20"]),
                   2022: (["30", "20"], ["12", "10"], ["42", "35"])}[year]
    return [("Segment A", (), a, 41), ("Segment B", (), b, 41), ("Total segments", (), total, 41)]


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    docs = [_filing(2021, ("$11,500", "$10,100"), ("6,600", "6,000"), ("2,000", "1,800")),
            _filing(2022, ("$12,345", "$11,500"), ("7,000", "6,650"), ("2,300", "2,000"), "=HYPERLINK(\"x\")")]
    h = build_history("Acme Widgets", docs)
    checks = [c for d, ts in docs for c in check_document(d, ts)]
    comp = computed_metrics(h)
    path = tmp_path_factory.mktemp("xlsx") / "acme.xlsx"
    write_workbook(h, checks, comp, str(path))
    return h, checks, comp, path


def test_the_sheets_and_each_values_source(book):
    h, _, _, path = book
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == ["History", "Metrics", "Sources", "Restatements", "Footing"]
    ws = wb["History"]
    heads = [c.value for c in ws[5]]
    assert heads[:4] == ["Topic", "Measure", "Unit", "Scale"] and heads[4:] == ["FY2020", "FY2021", "FY2022"]
    row = next(r for r in ws.iter_rows(min_row=6) if r[1].value == "Cost of sales")
    assert row[2].value == "USD millions" and row[6].value == 7000
    assert "acme_2022_10k.pdf, p. 40" in row[6].comment.text and "printed: 7,000" in row[6].comment.text
    restated = row[5]  # FY2021: 6,600 in the 2021 filing, 6,650 in the 2022 one
    assert restated.value == 6650 and restated.comment.text.startswith("RESTATED")
    assert "6,600 in acme_2021_10k.pdf, p. 40" in restated.comment.text
    assert restated.fill.fgColor.rgb.endswith("FCE4D6")
    rs = list(wb["Restatements"].iter_rows(min_row=2, values_only=True))
    assert [(r[1], r[2], r[3], r[6]) for r in rs] == [("Cost of sales", "FY2021", "6,650", "6,600")]
    sources = list(wb["Sources"].iter_rows(min_row=2, values_only=True))
    assert len(sources) == sum(1 + len(c.others) for m in h.measures for c in m.cells.values())


def test_document_text_is_never_a_formula(book):
    _, _, _, path = book
    ws = openpyxl.load_workbook(path)["History"]
    cell = next(r[1] for r in ws.iter_rows(min_row=6) if str(r[1].value).startswith("=HYPERLINK"))
    assert cell.data_type == "s"


def test_footing_results_are_listed_with_their_cells(book):
    _, checks, _, path = book
    rows = list(openpyxl.load_workbook(path)["Footing"].iter_rows(min_row=2, values_only=True))
    assert len(rows) == len(checks) and rows
    assert {r[1] for r in rows} == {"foots", "fails"} and all("(p. 41)" in r[12] for r in rows)


def test_metric_formulas_evaluate_to_the_apps_values(book):
    formulas = pytest.importorskip("formulas", reason="the formula engine is in requirements-dev.txt")
    _, _, comp, path = book
    assert {c.metric.name for c in comp} >= {"gross margin", "operating margin", "net margin", "revenue growth"}
    ws = openpyxl.load_workbook(path)["Metrics"]
    cached = openpyxl.load_workbook(path, data_only=True)["Metrics"]
    model = formulas.ExcelModel().loads(str(path)).finish()
    solved = {k.upper().split("!")[-1]: v for k, v in model.calculate().items() if "METRICS" in k.upper()}
    years = [c.value for c in ws[3]][3:]
    checked = 0
    for r in ws.iter_rows(min_row=4):
        for c in comp:
            if c.metric.name != r[0].value:
                continue
            cell = r[3 + years.index(f"FY{c.year}")]
            assert isinstance(cell.value, str) and cell.value.startswith("=") and "History!" in cell.value
            assert float(solved[cell.coordinate].value[0, 0]) == pytest.approx(c.value, rel=1e-9)
            assert cached[cell.coordinate].value == pytest.approx(c.value, rel=1e-9)
            checked += 1
    assert checked == len(comp)
    gm = next(c for c in comp if c.metric.name == "gross margin" and c.year == 2022)
    assert gm.value == pytest.approx((12345 - 7000) / 12345 * 100)
