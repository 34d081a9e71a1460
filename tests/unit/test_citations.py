"""Following a citation (rag/crops.py): the quote is found on its page — across line breaks, a word hyphenated at
the end of a line, table rows written as 'label | 2022 | 2021', a second page of the chunk — and the crop always
holds every word found. Real PDFs built with pymupdf; the 10-K fixture's balance sheet has two rows that start
with 'Total', so a quote from one must not be placed on the other."""

from pathlib import Path

import pymupdf

from rag.crops import locate, page_png, quote_tokens, region_png
from make_pdfs import make_10k


def _prose_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    lines = ["Our results this year were driven by strong demand for the new",
             "products, while the group also reduced its operating expen-",
             "ses by eleven percent compared with the previous year, and",
             "invested in research across all three divisions."]
    y = 100
    for ln in lines:
        page.insert_text((72, y), ln, fontsize=10)
        y += 13
    page.insert_text((72, 400), "An unrelated paragraph about the weather in the region.", fontsize=10)
    doc.new_page().insert_text((72, 100), "The second page says the dividend rose to 2.10 per share.", fontsize=10)
    data = doc.tobytes()
    doc.close()
    return data


def test_quote_tokens_join_hyphenation_and_drop_table_bars():
    assert quote_tokens("operating expen- ses fell") == ["operating", "expenses", "fell"]
    assert quote_tokens("Inventories | 4,366 | (4,034)") == ["inventories", "4366", "4034"]
    assert quote_tokens("U.S. sales rose 3.5%.") == ["us", "sales", "rose", "3.5%"]


def test_a_quote_across_lines_and_a_hyphenated_word_is_found_and_boxed_per_line():
    pdf = _prose_pdf()
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        loc = locate(doc, [1], "the group also reduced its operating expenses by eleven percent compared with "
                               "the previous year")
        assert loc.found and loc.page == 1 and loc.coverage > 0.95
        assert len(loc.boxes) == 2  # the two lines it spans, one box each
        text = " ".join(doc[0].get_textbox(b + (-1, -1, 1, 1)) for b in loc.boxes)
        assert "reduced" in text and "previous year" in text and "weather" not in text


def test_a_quote_on_the_chunks_second_page_is_found_there():
    pdf = _prose_pdf()
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        loc = locate(doc, [1, 2], "the dividend rose to 2.10 per share")
        assert loc.found and loc.page == 2


def test_a_quote_not_on_the_page_is_not_found():
    with pymupdf.open(stream=_prose_pdf(), filetype="pdf") as doc:
        assert not locate(doc, [1], "Revenue from cloud subscriptions doubled in Asia").found


def test_a_table_row_is_found_on_its_own_row_and_the_crop_holds_it(tmp_path):
    pdf = make_10k(tmp_path / "acme.pdf").read_bytes()
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        loc = locate(doc, [4], "Total current liabilities | 7,244 | 7,687")
        assert loc.found and len(loc.boxes) == 1
        row = doc[3].get_textbox(loc.boxes[0] + (-1, -1, 1, 1))
        assert "Total current liabilities" in row and "Total assets" not in row
    png = region_png(pdf, 4, "Total current liabilities | 7,244 | 7,687")
    assert pymupdf.Pixmap(png).height < 842 * 110 / 72 * 0.6  # the table, not the page


def test_the_crop_always_holds_a_long_quote(tmp_path):
    """A quote of many lines: the crop is the band around all of them, not around its first line."""
    doc = pymupdf.open()
    page = doc.new_page()
    words = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
             "upsilon").split()
    for i in range(30):
        page.insert_text((72, 60 + i * 24), " ".join(words[(i + k) % 20] + str(i) for k in range(8)), fontsize=10)
    pdf = doc.tobytes()
    quote = " ".join(" ".join(words[(i + k) % 20] + str(i) for k in range(8)) for i in range(5, 25))
    with pymupdf.open(stream=pdf, filetype="pdf") as d:
        loc = locate(d, [1], quote)
        assert loc.found and len(loc.boxes) == 20
    png = region_png(pdf, 1, quote, dpi=72)
    assert pymupdf.Pixmap(png).height >= (25 - 5) * 24  # every line of the quote is inside the crop


def test_the_page_view_renders_the_whole_page_with_the_quote_marked():
    pdf = _prose_pdf()
    png, loc = page_png(pdf, [1], "invested in research across all three divisions", dpi=72)
    assert loc.found
    assert abs(pymupdf.Pixmap(png).height - 842) < 2  # the whole page
    plain = pymupdf.open(stream=pdf, filetype="pdf")[0].get_pixmap(dpi=72)
    marked = pymupdf.Pixmap(png)
    b = loc.boxes[0]
    x, y = int((b.x0 + b.x1) / 2), int(b.y0 + 1)
    assert marked.pixel(x, y) != plain.pixel(x, y)  # the highlight is drawn over the quote


def test_the_viewer_bundles_a_pdfjs_that_runs_no_document_code():
    """The cited-document viewer (streamlit-pdf-viewer) draws pages with the pdf.js it bundles, offline: its
    canvas and text layer only, no annotation layer (no clickable links) and no scripting. pdf.js before 4.2.67
    ran code a crafted font could carry (CVE-2024-4367); the bundled one must be later. The browser test opens a
    PDF with scripts in the viewer and sees none run."""
    import json
    import re
    from importlib.util import find_spec

    spec = find_spec("streamlit_pdf_viewer")
    assert spec and spec.origin, "streamlit-pdf-viewer is in requirements.txt"
    dist = Path(spec.origin).parent / "frontend" / "dist" / "js"
    vendors = "".join(p.read_text(errors="ignore") for p in dist.glob("chunk-vendors.*.js.map"))
    version = re.search(r'pdfjsVersion = \\"([0-9.]+)\\"', vendors)
    assert version, "the bundled pdf.js names its version"
    assert tuple(int(x) for x in version.group(1).split(".")) >= (4, 2, 67), version.group(1)
    maps = [json.loads(p.read_text()) for p in dist.glob("app.*.js.map")]
    app = "".join(c or "" for m in maps for s, c in zip(m["sources"], m["sourcesContent"]) if "node_modules" not in s)
    assert "getDocument" in app and "AnnotationLayer" not in app and "enableScripting" not in app
