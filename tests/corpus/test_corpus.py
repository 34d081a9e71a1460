"""Extended suite on the real corpus in ../shared (skipped without it; CI sets RAG_REQUIRE_CORPUS=1)."""

import json
import resource
import subprocess
import sys

import pymupdf
import pytest
from conftest import corpus_or_skip

from rag.config import Settings
from rag.ingest import figures as figmod
from rag.ingest import layout
from rag.ingest.pipeline import DICT_FLAGS

pytestmark = pytest.mark.corpus


def _page_figures(path, page_no):
    doc = pymupdf.open(path)
    page = doc[page_no - 1]
    rows = layout.reading_order(layout.lines_from_dict(page.get_text("dict", flags=DICT_FLAGS)), page.rect.width, page_no)
    return figmod.extract_figures(page, page_no, rows, set(), Settings().ingest, set(), None)


# Chosen by looking at the rendered pages: (file, page, kind, caption start or None, text found in the figure)
KNOWN_CHARTS = [
    ("financebench/AMD_2022_annualreport.pdf", 3, "vector", None, "$23.6B"),
    ("financebench/AMD_2022_annualreport.pdf", 50, "vector", None, "Cumulative"),
    ("papers/acl2020_s2orc.pdf", 5, "raster", "Figure 2", None),
    ("papers/eacl2023_longeval.pdf", 6, "vector", "Figure 4", "Fraction of units"),
    ("papers/pasa_arxiv.pdf", 9, "vector", "Figure 3", None),
    ("papers/strain_sensor_cmos.pdf", 6, "vector", "Figure 8", "Strain"),
    ("esg/kion_nonfinancial_report_2023.pdf", 13, "raster", "Results of the KION Group materiality", None),
    ("esg/vonovia_sustainability_report_2020.pdf", 23, "vector", None, "Scope 1"),
]


@pytest.mark.parametrize("rel,page,kind,caption,text", KNOWN_CHARTS)
def test_known_chart_found_on_its_page(rel, page, kind, caption, text):
    path = corpus_or_skip(*rel.split("/"))
    figs = [f for f in _page_figures(path, page) if f.kind == kind]
    assert figs, f"no {kind} figure on {rel} p{page}"
    if caption:
        assert any(f.caption.startswith(caption) for f in figs), [f.caption for f in figs]
    if text:
        assert any(text in f.ocr_text for f in figs), [f.ocr_text[:80] for f in figs]


def test_tables_of_a_10k_are_not_figures():
    path = corpus_or_skip("financebench-dev", "3M_2022_10K.pdf")
    assert _page_figures(path, 52) == []  # the cash-flow statement page
    assert _page_figures(path, 50) == []  # the balance sheet


@pytest.fixture(scope="module")
def corpus_store(store, embedder, settings):
    from rag.ingest.pipeline import ingest_file

    with store.transport.connection() as conn:
        conn.execute("truncate documents, store_info, term_stats restart identity cascade")
    results = {}
    for rel in ("papers/acl2020_s2orc.pdf", "esg/kion_nonfinancial_report_2023.pdf",
                "financebench/AMD_2022_annualreport.pdf"):
        path = corpus_or_skip(*rel.split("/"))
        results[path.stem] = ingest_file(path, store, embedder, settings)
    return store, results


def test_real_paper_esg_and_10k_ingest(corpus_store):
    store, results = corpus_store
    assert all(r.ok for r in results.values()), {k: r.error for k, r in results.items()}
    docs = {d.file_name: d for d in store.list_documents()}
    assert docs["acl2020_s2orc.pdf"].doc_type == "research paper"
    assert docs["kion_nonfinancial_report_2023.pdf"].doc_type == "sustainability report"
    assert docs["kion_nonfinancial_report_2023.pdf"].fiscal_year == 2023
    assert docs["AMD_2022_annualreport.pdf"].doc_type == "10-K"
    assert docs["AMD_2022_annualreport.pdf"].fiscal_year == 2022
    with store.transport.connection() as conn:
        secs = dict(conn.execute("""select section_type, count(*) from chunks c join documents d on d.id = c.document_id
                                    where d.file_name = 'acl2020_s2orc.pdf' group by 1""").fetchall())
    assert {"abstract", "introduction", "references"} <= set(secs)


@pytest.mark.parametrize("question,doc,pages", [
    ("How many tokens of text were used to pretrain SciBERT on S2ORC?", "acl2020_s2orc.pdf", {6, 7}),
    ("How much energy did the KION Group consume in 2023?", "kion_nonfinancial_report_2023.pdf", {5, 31}),
    ("What was AMD's Data Center segment revenue in 2022?", "AMD_2022_annualreport.pdf", {3, 51, 57}),
    ("Comparison of five-year cumulative total return AMD S&P 500", "AMD_2022_annualreport.pdf", {50}),
])
def test_search_finds_the_evidence_page(corpus_store, embedder, question, doc, pages):
    from rag.retrieve.search import hybrid_search

    store, _ = corpus_store
    out = hybrid_search(store, embedder, question, k=5)
    hits = [(r.file_name, set(r.pages)) for r in out.results]
    assert any(f == doc and p & pages for f, p in hits), hits


@pytest.mark.parametrize("question,doc,pages,number", [
    ("How much revenue did AMD's Data Center segment generate in 2022?", "AMD_2022_annualreport.pdf", {3, 51, 56, 57, 77},
     "$6,043 million"),
    ("How much energy did the KION Group consume in 2023?", "kion_nonfinancial_report_2023.pdf", {5, 30, 31},
     "2,296,953"),
])
def test_extractive_answer_cites_the_page_and_verifies_numbers(corpus_store, embedder, question, doc, pages, number):
    from rag.assistant import answer

    store, _ = corpus_store
    a = answer(store, embedder, question)
    assert a.mode == "extractive" and not a.insufficient, a.answer
    assert number in a.paragraphs[0].split(" [")[0], a.answer  # the first sentence gives the figure
    assert any(e.file_name == doc and set(e.pages) & pages and number.split()[0].strip("$") in e.quote
               for e in a.evidence), [(e.file_name, e.pages, e.quote[:60]) for e in a.evidence]
    assert a.numbers_total and a.numbers_verified == a.numbers_total
    assert all(e.verified for e in a.evidence)


@pytest.mark.parametrize("question", ["What were AMD's Scope 1 greenhouse gas emissions in 2022?",
                                      "What score does XYLayoutLM achieve on DocVQA?"])
def test_extractive_answer_refuses_unanswerable_questions(corpus_store, embedder, question):
    from rag.assistant import answer

    store, _ = corpus_store
    a = answer(store, embedder, question)
    assert a.confidence == "insufficient_data" and a.answer.startswith("Insufficient data:"), a.answer


# (file, expected: "ok" or a phrase of the error, password)
BAD = [
    ("zero_byte.pdf", "empty file", None),
    ("corrupt_unreadable_metadata.pdf", "malformed", None),
    ("corrupt_malformed_issue932.pdf", "ok", None),
    ("corrupt_int_metadata_issue297.pdf", "no text", None),
    ("corrupt_pdfminer_invalid_structure.pdf", "ok", None),
    ("derived_truncated_40pct_s2orc.pdf", "ok", None),
    ("encrypted_user_pw__password.pdf", "password required", None),
    ("encrypted_user_pw__password.pdf", "ok", "password"),
    ("encrypted_user_pw__openpassword.pdf", "ok", "openpassword"),
    ("encrypted_user_pw__test.pdf", "ok", "test"),
    ("encrypted_aes_empty_userpw_copyprotected.pdf", "ok", None),
    ("blank_page.pdf", "no text", None),
    ("paper_with_empty_pages.pdf", "ok", None),
    ("scanned_tableformer_page.pdf", "ok", None),
    ("scanned_typewriter_thesis.pdf", "ok", None),
    ("scanned_rotated_90.pdf", "ok", None),
    ("scanned_tax_form_2p.pdf", "ok", None),
    ("scanned_brochure_color.pdf", "ok", None),
    ("odd_1349_inline_images_page.pdf", "ok", None),
]


@pytest.mark.parametrize("name,expected,password", BAD)
def test_bad_corpus_file(clean_store, ingest, name, expected, password):
    path = corpus_or_skip("bad", name)
    res = ingest(path, password=password)
    if expected == "ok":
        assert res.ok, res.error
        assert res.chunks > 0
        if name.startswith("scanned"):
            assert res.ocr_pages >= 1
        if name.startswith("odd_1349"):
            assert res.figures <= 6 and res.seconds < 30
    else:
        assert not res.ok and expected in res.error and "\n" not in res.error
        with clean_store.transport.connection() as conn:
            assert conn.execute("select count(*) from documents").fetchone()[0] == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["huge_619_pages.pdf", "huge_400_pages_images.pdf"])
def test_huge_files_ingest_in_bounded_memory(tmp_path, name):
    path = corpus_or_skip("bad", name)
    out = subprocess.run([sys.executable, "-m", "rag", "--data-dir", str(tmp_path / "s"), "ingest", "--json", str(path)],
                         capture_output=True, text=True, timeout=900)
    res = json.loads(out.stdout.splitlines()[-1])
    assert res["error"] is None and res["pages"] in (619, 400) and res["chunks"] > 100
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert peak_mb < 3000, f"peak RSS {peak_mb:.0f} MB"


def test_metadata_of_every_filing_and_the_name_variants():
    """Issue 12: company, fiscal year and type of every financebench-dev filing, read from the content (the file
    names stay hidden from the detector), and every name variant of tests/fixtures/name_variants.tsv."""
    from pathlib import Path

    folder = corpus_or_skip("financebench-dev")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import bench_metadata as bm

    files = sorted(Path(folder).glob("*.pdf"))
    extra = [f for d in ("financebench", "esg") for f in sorted(Path(corpus_or_skip(d)).glob("*.pdf"))]
    summary, rows = bm.score(files + extra)
    assert summary["files"] == 55
    assert summary["company+year+type"] >= 0.97, [r["file"] for r in rows if r["ok"] and not r["ok"]["company+year+type"]]
    assert summary["without label errors"]["all four"] == 1.0
    rate, variants = bm.name_variants(bm.issuers_from(rows))
    assert rate == 1.0, [v for v in variants if not v["ok"]]


@pytest.mark.parametrize("rel", ["esg/sbo_annual_report_2023.pdf", "esg/polytec_annual_report_2023.pdf"])
def test_a_cover_that_names_an_annual_financial_report(rel):
    """Issue 36: a cover reading "ANNUAL FINANCIAL REPORT 2023" above or below a slogan ("ENERGY."), in a PDF
    whose metadata title is "Berichte", is an annual report with that title."""
    from pathlib import Path

    path = Path(corpus_or_skip(*rel.split("/")))
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import bench_doc_metadata as bdm

    got = bdm.read(path, None)["now"]
    assert (got["doc_type"], got["title"]) == ("annual report", "Annual Financial Report 2023")


def _facts_of(rel: str, fiscal_year: int, period: str, doc_type: str):
    """The table facts ingestion reads from a real filing (no OCR: the tables are text)."""
    from rag.ingest.facts import DocContext, extract_facts, lines_of_units
    from rag.ingest.pipeline import parse_pdf

    s = Settings()
    s.ingest.ocr = False
    with pymupdf.open(corpus_or_skip(*rel.split("/"))) as doc:
        chunks, _, _, _ = parse_pdf(doc, s)
    return extract_facts(lines_of_units(chunks), DocContext(fiscal_year, period, doc_type))


def _one(facts, label: str, period: str, page: int | None = None):
    got = [f for f in facts if f.label == label and f.period == period and (page is None or f.page == page)]
    assert got, sorted({(f.label, f.period, f.page) for f in facts if label.split()[0] in f.label})[:20]
    return got[0]


def test_table_facts_of_a_real_10k():
    facts = _facts_of("financebench-dev/3M_2018_10K.pdf", 2018, "FY", "10-K")
    sales = _one(facts, "Net sales", "FY2018", 56)  # the income statement: "(Millions, …) | 2018 | 2017 | 2016"
    assert (sales.value, sales.unit, sales.scale) == (32765, "USD", 1e6)
    eps = _one(facts, "Earnings per share attributable to 3M common shareholders — diluted", "FY2018", 56)
    assert (eps.value, eps.unit, eps.scale) == (8.89, "USD/share", 1.0)
    # the balance sheet's two-level header ("December 31, | December 31," over "(Dollars in millions …) | 2018 | 2017")
    assets = _one(facts, "Total assets", "FY2018", 58)
    assert (assets.value, assets.scale, assets.col_header) == (36500, 1e6, "December 31, 2018")
    inv = _one(facts, "Finished goods", "FY2017", 58)
    assert inv.label_path == "Inventories › Finished goods" and inv.value == 1915
    # the cash-flow statement runs on in the next chunk: its rows there keep the header's periods and unit
    capex = _one(facts, "Purchases of property, plant and equipment (PP&E)", "FY2018", 60)
    assert (capex.value, capex.scale) == (-1577, 1e6)
    fin = _one(facts, "Net cash provided by (used in) financing activities", "FY2018", 60)
    assert (fin.value, fin.scale) == (-6701, 1e6) and fin.table_title.startswith("Consolidated Statement of Cash")
    cash_end = _one(facts, "Cash and cash equivalents at end of period", "FY2016", 60)
    assert cash_end.value == 2398 and cash_end.chunk_index != capex.chunk_index


def test_table_facts_of_an_esg_report_and_a_quarterly_filing():
    kion = _facts_of("esg/kion_nonfinancial_report_2023.pdf", 2023, "FY", "sustainability report")
    energy = _one(kion, "Total energy use within the organization (direct and indirect)", "FY2023")
    assert (energy.value, energy.unit, energy.page) == (2296953, "GJ", 31)
    scope1 = _one(kion, "Direct (Scope 1)", "FY2023")
    assert (scope1.value, scope1.unit) == (110769, "t CO2e")
    market = _one(kion, "(Indirect Scope 2, market-based)", "FY2023")
    assert market.value == 35338  # in brackets: the market-based figure, not a negative one
    change = [f for f in kion if f.label == "Direct (Scope 1)" and f.is_change]
    assert change and change[0].unit == "%" and change[0].value == 2.8
    # a 10-Q of an issuer whose fiscal year ends in June: "Three Months Ended December 31, | 2022 | 2021" is the
    # second quarter of fiscal 2023 (and 2022)
    amcor = _facts_of("financebench-dev/AMCOR_2023Q2_10Q.pdf", 2023, "Q2", "10-Q")
    q2 = [f for f in amcor if f.label == "Net sales" and f.period == "Q2 FY2023" and f.value == 3642]
    assert q2 and q2[0].scale == 1e6
    assert [f for f in amcor if f.label == "Net sales" and f.period == "Q2 FY2022" and f.value == 3507]


def test_named_rows_of_a_papers_results_table_are_compared(clean_store, ingest, embedder):
    """A paper's results table whose header names its measures ("Method Precision Recall F1") without column gaps:
    the question compares two of its rows, and the answer's first sentence gives both rows' cells by name."""
    from rag.assistant import answer

    assert ingest(corpus_or_skip("papers", "pasa_arxiv.pdf")).ok
    a = answer(clean_store, embedder, "How does PaSa's Selector compare with GPT-4o at judging whether a paper "
                                      "satisfies a query?")
    lead = a.paragraphs[0]
    assert "PaSa-7b-Selector: Precision 0.95, Recall 0.78, F1 0.85" in lead, a.answer
    assert "GPT-4o: Precision 0.96, Recall 0.69, F1 0.80" in lead and "p. 9" in lead, a.answer
    assert any(9 in e.pages for e in a.evidence)


def test_a_results_table_the_layout_breaks_apart_is_read_from_its_grid():
    # PaSa p.8: two results tables set as column blocks; the layout gives labels, then rows of values without labels
    from rag.ingest import gridless
    from rag.ingest.facts import DocContext, lines_of_units, read_tables
    from rag.ingest.pipeline import parse_pdf

    with pymupdf.open(corpus_or_skip("papers", "pasa_arxiv.pdf")) as doc:
        page = doc[7]
        rows = layout.reading_order(layout.lines_from_dict(page.get_text("dict", flags=DICT_FLAGS)), page.rect.width, 8)
        assert len(gridless.orphan_rows(rows)) >= gridless.ORPHANS
        texts = [r.text for r in gridless.with_grid_tables(page, rows, 8)]
        assert "PaSa-7b | 0.7071 | 0.5146 | 0.6111 | 0.6929 | 0.6563 | 0.5798" in texts
        assert "Method | Crawler Recall | Precision | Recall | Recall@100 | Recall@50 | Recall@20" in texts
        s = Settings()
        s.ingest.ocr = False
        chunks, _, _, _ = parse_pdf(doc, s)
    tables = [t for t in read_tables(lines_of_units(chunks), DocContext(None, None, "research paper"))
              if t.page_start == 8]
    real = next(t for t in tables if t.title.startswith("Table 6"))  # its caption, set below it
    row = next(r for r in real.rows if r.label == "PaSa-7b")
    assert {real.columns[c.column].header: c.raw for c in row.cells}["Recall@20"] == "0.5798"
    # a page whose table the layout kept whole is not searched, and keeps its rows
    with pymupdf.open(corpus_or_skip("financebench-dev", "3M_2018_10K.pdf")) as doc:
        page = doc[55]
        rows = layout.reading_order(layout.lines_from_dict(page.get_text("dict", flags=DICT_FLAGS)), page.rect.width, 56)
        assert gridless.with_grid_tables(page, rows, 56) is rows
