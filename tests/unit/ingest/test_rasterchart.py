"""A chart image's type from its pixels (rag/ingest/rasterchart.py): charts drawn with PyMuPDF, rendered to an
image as a report's exporter would, then typed from the image alone; and charts that are images in real reports
(a 10-K's stock-performance graph, an annual report's bars and donut on a picture panel)."""

from __future__ import annotations

import pymupdf
import pytest

from rag.config import IngestSettings
from rag.ingest import figures
from rag.ingest.pipeline import _figure_ocr
from rag.ingest.rasterchart import raster_chart_type, solid_shapes
from rag.ingest.refigure import page_rows
from conftest import corpus_or_skip
from test_charts_drawn import COLOURS, _bars, _donut, _timeline


def _image_of(draw) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=220)
    draw(page)
    return page.get_pixmap(dpi=110).tobytes("png")


def _stacked(page: pymupdf.Page) -> None:
    for i, (low, high) in enumerate([(60, 30), (80, 20), (70, 40)]):
        x = 40 + i * 60
        page.draw_rect(pymupdf.Rect(x, 180 - low, x + 30, 180), color=None, fill=COLOURS[0])
        page.draw_rect(pymupdf.Rect(x, 180 - low - high, x + 30, 180 - low), color=None, fill=COLOURS[1])
        page.insert_text((x + 2, 195), str(2021 + i), fontsize=8)


def _line(page: pymupdf.Page) -> None:
    for y in (50, 90, 130, 170):  # grid lines are not a series
        page.draw_line((30, y), (280, y), color=(0.8, 0.8, 0.8), width=0.5)
    pts = [pymupdf.Point(30 + 25 * i, 170 - (i * 37 % 110)) for i in range(11)]
    page.draw_polyline(pts, color=COLOURS[0], width=1.5)


@pytest.mark.parametrize("draw, expected", [
    (lambda p: _donut(p, (110, 110), 70, [0.5, 0.3, 0.2], ["A", "B", "C"]), "donut"),
    (lambda p: _donut(p, (110, 110), 70, [0.5, 0.3, 0.2], ["A", "B", "C"], hole=False), "pie"),
    (lambda p: _bars(p, 40, 180, [60, 110, 90, 140], ["2020", "2021", "2022", "2023"], ["6", "11", "9", "14"],
                     width=24, gap=20), "bar"),
    (_stacked, "stacked_bar"),
    (_line, "line"),
])
def test_a_chart_image_is_typed_by_its_shapes(draw, expected):
    assert raster_chart_type(_image_of(draw))[0] == expected


def test_an_image_without_a_chart_has_no_type():
    def text_only(page):
        page.insert_textbox(pymupdf.Rect(20, 20, 280, 200), "Our values: integrity, care and courage. " * 8,
                            fontsize=10)
    assert raster_chart_type(_image_of(text_only))[0] is None
    assert raster_chart_type(b"not an image")[0] is None


def _page_figures(path, page_no: int) -> list[figures.Figure]:
    """A page's figures as ingestion reads them, OCR of images included (the real RapidOCR)."""
    doc = pymupdf.open(path)
    page = doc[page_no - 1]
    cfg = IngestSettings()
    return figures.extract_figures(page, page_no, page_rows(page), figures.repeated_image_digests(doc), cfg, set(),
                                   _figure_ocr(cfg))


def test_a_stock_performance_graph_that_is_an_image_is_a_line_chart():
    figs = _page_figures(corpus_or_skip("financebench-more", "COCACOLA_2017_10K.pdf"), 29)
    raster = [f for f in figs if f.kind == "raster"]
    assert raster and raster[0].chart_type == "line"


def test_bars_and_donuts_on_picture_panels_are_charts_of_their_type():
    path = corpus_or_skip("esg", "polytec_annual_report_2023.pdf")
    bars = [f for f in _page_figures(path, 71) if f.kind == "raster"]
    assert bars and all(f.figure_kind == "chart" and f.chart_type == "bar" for f in bars)
    donuts = [f for f in _page_figures(path, 74) if f.kind == "raster"]
    assert donuts and all(f.chart_type == "donut" for f in donuts if f.figure_kind == "chart")


def test_an_image_of_stacked_bars_whose_value_labels_line_up_in_rows_is_a_chart_not_a_table():
    """Polytec p. 72: emissions by scope and waste by type are images of stacked bars, their values set in rows
    over the segments (rows of numbers, like a table's); their pixels show bars and their words are values."""
    figs = _page_figures(corpus_or_skip("esg", "polytec_annual_report_2023.pdf"), 72)
    raster = [f for f in figs if f.kind == "raster"]
    assert len(raster) == 3 and all(f.figure_kind == "chart" for f in raster), \
        [(f.figure_kind, f.chart_type, f.kind_why) for f in raster]
    assert sorted(f.chart_type for f in raster) == ["bar", "stacked_bar", "stacked_bar"]


def _two_bars(page: pymupdf.Page) -> None:
    """A year against the year before: two bars of one width on one baseline, and the legend's two swatches."""
    for i, (h, colour) in enumerate([(110, COLOURS[0]), (140, COLOURS[1])]):
        x = 80 + i * 70
        page.draw_rect(pymupdf.Rect(x, 180 - h, x + 50, 180), color=None, fill=colour)
        page.insert_text((x + 12, 180 - h - 4), ("501.2", "585.9")[i], fontsize=9)
        page.draw_rect(pymupdf.Rect(90 + 60 * i, 200, 96 + 60 * i, 206), color=None, fill=colour)
        page.insert_text((100 + 60 * i, 206), ("2022", "2023")[i], fontsize=8)


def test_two_bars_alone_are_a_bar_chart_and_two_swatches_are_not():
    assert raster_chart_type(_image_of(_two_bars))[0] == "bar"

    def swatches(page):
        for i in range(2):
            page.draw_rect(pymupdf.Rect(90 + 60 * i, 200, 96 + 60 * i, 206), color=None, fill=COLOURS[i])
    assert raster_chart_type(_image_of(swatches))[0] is None


def test_an_image_of_bars_under_a_table_is_read_from_its_own_pixels_not_from_the_tables_words():
    """An image without a text layer set under a table of text: its values are read by OCR and tied to the years
    under its bars; the table's words in the crop do not stand in for the image's."""
    chart = pymupdf.open()
    cp = chart.new_page(width=300, height=220)
    _bars(cp, 60, 180, [60, 110, 90], ["2021", "2022", "2023"], ["189,015", "180,303", "184,740"], width=40, gap=30)
    png = cp.get_pixmap(dpi=150).tobytes("png")
    doc = pymupdf.open()
    doc.new_page(width=595, height=842)
    page = doc.new_page(width=595, height=842)
    for i, row in enumerate(["Others 3,840 2.1% 3,524 3,266", "GROUP 184,740 100% 180,303 189,015"]):
        page.insert_text((60, 100 + 14 * i), row, fontsize=9)
    page.insert_image(pymupdf.Rect(60, 122, 360, 342), stream=png)
    page = pymupdf.open(stream=doc.tobytes(), filetype="pdf")[1]
    cfg = IngestSettings()
    figs = figures.extract_figures(page, 2, page_rows(page), set(), cfg, set(), _figure_ocr(cfg))
    charts = [f for f in figs if f.kind == "raster" and f.figure_kind == "chart"]
    assert charts, [(f.figure_kind, f.kind_why) for f in figs]
    pairs = {(v["label"], v["value"].replace(" ", "")) for v in charts[0].signals["reading"]["values"]}
    assert {("2021", "189,015"), ("2022", "180,303"), ("2023", "184,740")} <= pairs, pairs


def _hundred_percent(page: pymupdf.Page) -> None:
    """One bar laid flat in three segments of different colours, end to end, with their shares."""
    x = 30
    for share, colour in zip([0.15, 0.68, 0.17], COLOURS):
        w = 240 * share
        page.draw_rect(pymupdf.Rect(x, 80, x + w, 110), color=None, fill=colour)
        page.insert_text((x + 3, 125), f"{share * 100:.1f}%", fontsize=8)
        x += w


def test_a_bar_laid_flat_in_segments_is_a_stacked_bar():
    assert raster_chart_type(_image_of(_hundred_percent))[0] == "stacked_bar"


def test_an_image_of_two_bars_names_each_value_by_its_legend_colour():
    """The values over the bars of an image are named by the legend entry whose swatch has the bar's colour."""
    doc = pymupdf.open()
    doc.new_page(width=595, height=842)
    page = doc.new_page(width=595, height=842)
    page.insert_image(pymupdf.Rect(100, 200, 400, 420), stream=_image_of(_two_bars))
    page = pymupdf.open(stream=doc.tobytes(), filetype="pdf")[1]
    cfg = IngestSettings()
    charts = [f for f in figures.extract_figures(page, 2, page_rows(page), set(), cfg, set(), _figure_ocr(cfg))
              if f.figure_kind == "chart"]
    assert charts
    pairs = {(v["label"], v["value"]) for v in charts[0].signals["reading"]["values"]}
    assert {("2022", "501.2"), ("2023", "585.9")} <= pairs, pairs


def test_a_wide_chart_image_keeps_its_small_legend_swatches_among_its_solid_shapes():
    """A wide chart image is scaled down to be read; its legend's swatches (9 pt squares beside "2019", "2020") then
    shrink to five pixels a side, and are kept, in the colours of the bars they name."""
    def wide(page: pymupdf.Page) -> None:
        for i in range(8):
            for j, colour in enumerate(COLOURS[:2]):
                x = 40 + i * 100 + j * 30
                page.draw_rect(pymupdf.Rect(x, 180 - 10 * (i + j + 2), x + 26, 180), color=None, fill=colour)
        for j, (colour, year) in enumerate(zip(COLOURS[:2], ("2019", "2020"))):
            page.draw_rect(pymupdf.Rect(700 + 60 * j, 198, 709 + 60 * j, 207), color=None, fill=colour)
            page.insert_text((711 + 60 * j, 207), year, fontsize=8)
    doc = pymupdf.open()
    page = doc.new_page(width=860, height=220)
    wide(page)
    png = page.get_pixmap(dpi=150).tobytes("png")
    small = [s for s in solid_shapes(png) if s[2] - s[0] < 20 and s[3] - s[1] < 20]
    assert len(small) == 2, small
    bars = {s[4] for s in solid_shapes(png) if s[3] - s[1] > 30}
    assert {s[4] for s in small} == bars, (small, bars)


def test_an_image_of_a_timeline_is_a_chart_of_range_bars_read_row_by_row():
    """A timeline pasted as an image (Boeing's "Go-ahead and Initial Delivery"): its bars, drawn in cells, start and
    end at different places, one to a row, so it is a range bar chart (type "other"), and each row reads as its
    label, its start and its end, from the image's shapes and its OCR'd words."""
    src = pymupdf.open()
    pg = src.new_page(width=460, height=150)
    _timeline(pg, 10, [("Model A", 2011, 2017), ("Model B", 2011, 2018), ("Model C", 2013, 2016),
                       ("Model D", 2012, 2019)])
    png = pg.get_pixmap(dpi=150, clip=pymupdf.Rect(15, 5, 445, 120)).tobytes("png")
    doc = pymupdf.open()
    doc.new_page(width=595, height=842)
    page = doc.new_page(width=595, height=842)
    page.insert_image(pymupdf.Rect(60, 200, 490, 315), stream=png)
    page = pymupdf.open(stream=doc.tobytes(), filetype="pdf")[1]
    cfg = IngestSettings()
    charts = [f for f in figures.extract_figures(page, 2, page_rows(page), set(), cfg, set(), _figure_ocr(cfg))
              if f.figure_kind == "chart"]
    assert [f.chart_type for f in charts] == ["other"], [(f.figure_kind, f.chart_type) for f in charts]
    pairs = {(v["label"], v["value"]) for v in charts[0].signals["reading"]["values"]}
    assert {("Model A", "2011 – 2017"), ("Model D", "2012 – 2019")} <= pairs, pairs


def _diverging(page: pymupdf.Page) -> None:
    """Horizontal bars of changes, to the right of an axis for a rise and to its left for a fall."""
    for i, change in enumerate([40, -30, 60, -45, 30]):
        y = 30 + 30 * i
        rect = pymupdf.Rect(150, y, 150 + change, y + 8) if change > 0 else pymupdf.Rect(150 + change, y, 150, y + 8)
        page.draw_rect(rect, color=None, fill=COLOURS[0] if change > 0 else COLOURS[1])


def _two_panels(page: pymupdf.Page) -> None:
    """Two panels of diverging bars side by side, each about its own zero, their rows offset."""
    for i, change in enumerate([30, -20, 45, -35]):
        for x0, dy in ((70, 0), (210, 15)):
            y = 30 + 30 * i + dy
            rect = pymupdf.Rect(x0, y, x0 + change, y + 8) if change > 0 else pymupdf.Rect(x0 + change, y, x0, y + 8)
            page.draw_rect(rect, color=None, fill=COLOURS[0] if change > 0 else COLOURS[1])


@pytest.mark.parametrize("draw", [_diverging, _two_panels])
def test_a_diverging_bar_chart_is_bars_not_a_timeline(draw):
    """Bars that start and end at different places, one to a row, but each touching the zero of its panel, are a
    diverging bar chart (of one panel or several), not a timeline's range bars."""
    assert raster_chart_type(_image_of(draw))[0] != "range_bar"


def test_figure_ocr_reads_a_set_number_of_images_a_document_on_any_machine():
    """Figure OCR's budget is a count of images a document (ocr_max_figures), not only seconds: a loaded machine
    reads the same figures as an idle one (a time budget alone left a busy machine's charts unread, then called
    logos). Past the count, an image is not read."""
    png = _image_of(lambda p: p.insert_text((30, 100), "Scope 1 emissions 1,050 t", fontsize=16))
    ocr = _figure_ocr(IngestSettings(ocr_max_figures=1))
    assert any("1,050" in ln.text for ln in ocr(png))
    assert ocr(png) == []
