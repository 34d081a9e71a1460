"""Issue 38 on real filings: two of Lockheed Martin's 10-Ks in a fresh store. The restatement the 2022 filing makes
of 2021's "Other current liabilities" (1,996 → 2,002, checked on both pages by hand) is marked, and the exported
workbook opens and its formulas, evaluated by an Excel formula engine, give the app's values."""

from __future__ import annotations

import openpyxl
import pytest
from conftest import corpus_or_skip

from rag.workpaper import load_workpaper
from rag.workpaper.workbook import write_workbook


@pytest.fixture(scope="module")
def lockheed(store, embedder, settings):
    from rag.ingest.pipeline import ingest_file

    with store.transport.connection() as conn:
        conn.execute("truncate documents, store_info, term_stats, feedback, query_log restart identity cascade")
    for year in (2021, 2022):
        path = corpus_or_skip("financebench-more", f"LOCKHEEDMARTIN_{year}_10K.pdf")
        assert ingest_file(path, store, embedder, settings).ok
    return load_workpaper(store, embedder.encode, company="Lockheed Martin")


def test_a_restatement_between_two_real_filings_is_marked_with_both_pages(lockheed):
    found = [(m, c) for m, c in lockheed.history.restatements()
             if m.topic == "balance sheet" and m.label_path.endswith("Other current liabilities")]
    assert found, [m.label_path for m, _ in lockheed.history.restatements()][:20]
    m, cell = found[0]
    assert cell.period == "FY2021" and cell.value.raw.endswith("2,002")
    assert cell.value.source.file_name == "LOCKHEEDMARTIN_2022_10K.pdf" and cell.value.source.page == 65
    assert [(v.raw, v.source.file_name, v.source.page) for v in cell.restated] == [
        ("1,996", "LOCKHEEDMARTIN_2021_10K.pdf", 68)]


def test_the_exported_workbooks_formulas_give_the_apps_values(lockheed, tmp_path):
    formulas = pytest.importorskip("formulas", reason="the formula engine is in requirements-dev.txt")
    path = tmp_path / "lmt.xlsx"
    write_workbook(lockheed.history, lockheed.checks, lockheed.computed, str(path))
    names = {c.metric.name for c in lockheed.computed}
    assert {"gross margin", "operating margin", "net margin", "revenue growth"} <= names
    ws = openpyxl.load_workbook(path)["Metrics"]
    model = formulas.ExcelModel().loads(str(path)).finish()
    solved = {k.upper().split("!")[-1]: v for k, v in model.calculate().items() if "METRICS'!" in k.upper()}
    years = [c.value for c in ws[3]][3:]
    rows = {r[0].value: r for r in ws.iter_rows(min_row=4)}
    for c in lockheed.computed:
        cell = rows[c.metric.name][3 + years.index(f"FY{c.year}")]
        assert str(cell.value).startswith("=")
        assert float(solved[cell.coordinate].value[0, 0]) == pytest.approx(c.value, rel=1e-9), (c.metric.name, c.year)
    net = next(c for c in lockheed.computed if c.metric.name == "net margin" and c.year == 2022)
    assert 5 < net.value < 15  # Lockheed's 2022 net earnings / net sales: 5,732 / 65,984 = 8.7%
