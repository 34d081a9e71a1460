"""Charts drawn as vectors, found, typed, cut and read (issue 35), on pages drawn with PyMuPDF: a donut with its
legend beside a bar chart, a pie, stacked and 100% bars, a line, two charts on one coloured panel, a table with
shaded header cells, all next to prose. Real PDFs, real PyMuPDF, the ingestion code itself."""

from __future__ import annotations

import pymupdf
import pytest

from rag.config import IngestSettings
from rag.ingest import chartread, figures
from rag.ingest.drawn import chart_of
from rag.ingest.refigure import page_rows

PROSE = ("The group reduced its emissions again in the year under review, mainly through the switch to green "
         "electricity at all of its sites and the renewal of the vehicle fleet across the regions.")
COLOURS = [(0.1, 0.3, 0.6), (0.9, 0.5, 0.1), (0.3, 0.7, 0.3), (0.7, 0.2, 0.2)]


def _prose(page: pymupdf.Page, y: float, lines: int = 4) -> None:
    rect = pymupdf.Rect(50, y, 545, y + 14 * lines)
    page.insert_textbox(rect, " ".join([PROSE] * 3), fontsize=10)


def _sectors(page: pymupdf.Page, c: pymupdf.Point, r: float, shares: list[float]) -> None:
    """A pie's sectors, one colour each, from three o'clock."""
    start = pymupdf.Point(c.x + r, c.y)
    for share, colour in zip(shares, COLOURS):
        sh = page.new_shape()
        end = sh.draw_sector(c, start, 360 * share, fullSector=True)
        sh.finish(fill=colour, color=(1, 1, 1), width=0.5)
        sh.commit()
        start = end


def _donut(page: pymupdf.Page, centre: tuple[float, float], r: float, shares: list[float], names: list[str],
           hole: bool = True) -> None:
    c = pymupdf.Point(*centre)
    _sectors(page, c, r, shares)
    if hole:
        sh = page.new_shape()
        sh.draw_circle(c, r * 0.55)
        sh.finish(fill=(1, 1, 1), color=None)
        sh.commit()
    for i, (name, share) in enumerate(zip(names, shares)):  # the legend: a swatch, the name and the share
        y = centre[1] - r + 16 * i
        sh = page.new_shape()
        sh.draw_rect(pymupdf.Rect(c.x + r + 14, y, c.x + r + 22, y + 8))
        sh.finish(fill=COLOURS[i], color=None)
        sh.commit()
        page.insert_text((c.x + r + 26, y + 7), f"{name} {share * 100:.1f}%", fontsize=8)


def _bars(page: pymupdf.Page, x0: float, base: float, heights: list[float], labels: list[str],
          values: list[str], width: float = 18, gap: float = 12) -> None:
    page.draw_line((x0 - 4, base), (x0 + len(heights) * (width + gap), base), color=(0.5, 0.5, 0.5), width=0.5)
    for i, (h, lab, val) in enumerate(zip(heights, labels, values)):
        x = x0 + i * (width + gap)
        page.draw_rect(pymupdf.Rect(x, base - h, x + width, base), color=None, fill=COLOURS[0])
        page.insert_text((x + 1, base - h - 3), val, fontsize=8)
        page.insert_text((x + 1, base + 10), lab, fontsize=8)


def _page() -> tuple[pymupdf.Document, pymupdf.Page]:
    doc = pymupdf.open()
    doc.new_page(width=595, height=842)  # a cover: what is on the first page is read as a cover or a logo
    return doc, doc.new_page(width=595, height=842)


def _saved(doc: pymupdf.Document) -> pymupdf.Page:
    """The drawn page as a reader of the saved PDF sees it."""
    return pymupdf.open(stream=doc.tobytes(), filetype="pdf")[1]


def _figures(page: pymupdf.Page) -> list[figures.Figure]:
    return figures.extract_figures(page, page.number + 1, page_rows(page), set(), IngestSettings(ocr=False), set())


def _prose_lines(page: pymupdf.Page) -> list[pymupdf.Rect]:
    out = []
    for b in page.get_text("dict")["blocks"]:
        for ln in b.get("lines", []):
            text = "".join(s["text"] for s in ln["spans"])
            if len(text.split()) >= 8:
                out.append(pymupdf.Rect(ln["bbox"]))
    return out


def test_a_donut_with_its_legend_beside_a_bar_chart_are_two_charts_cut_apart_from_each_other_and_the_prose():
    doc, page = _page()
    _prose(page, 60)
    page.insert_text((60, 150), "Emissions by scope", fontsize=11)
    _donut(page, (120, 230), 55, [0.08, 0.32, 0.60], ["Scope 1", "Scope 2", "Scope 3"])
    page.insert_text((340, 150), "Energy consumption", fontsize=11)
    _bars(page, 350, 300, [60, 85, 110, 95], ["2020", "2021", "2022", "2023"], ["412", "583", "755", "651"])
    _prose(page, 340)
    page = _saved(doc)
    figs = _figures(page)
    charts = sorted((f for f in figs if f.figure_kind == "chart"), key=lambda f: f.crop[0])
    assert [f.chart_type for f in charts] == ["donut", "bar"], [(f.figure_kind, f.chart_type) for f in figs]
    donut, bar = (pymupdf.Rect(f.crop) for f in charts)
    assert not donut.intersects(bar)
    for crop in (donut, bar):
        assert not [ln for ln in _prose_lines(page) if crop.intersects(ln)]
    assert donut.contains(pymupdf.Point(61, 148)) and bar.contains(pymupdf.Point(341, 148))  # each keeps its title
    said = {v["label"]: v["value"] for v in charts[0].signals["reading"]["values"]}
    assert said.get("Scope 1") == "8.0%" and said.get("Scope 3") == "60.0%", said
    read = {v["label"]: v["value"] for v in charts[1].signals["reading"]["values"]}
    assert read == {"2020": "412", "2021": "583", "2022": "755", "2023": "651"}, read
    assert "2022: 755" in charts[1].ocr_text  # searchable, and what the answer layer reads


def test_a_pie_is_a_pie_and_a_ring_is_a_donut():
    doc, page = _page()
    _donut(page, (150, 200), 60, [0.5, 0.3, 0.2], ["A", "B", "C"], hole=False)
    _donut(page, (400, 200), 60, [0.5, 0.3, 0.2], ["A", "B", "C"], hole=True)
    page = _saved(doc)
    drawings = page.get_drawings()
    left, right = pymupdf.Rect(80, 130, 230, 270), pymupdf.Rect(330, 130, 480, 270)
    assert chart_of([d for d in drawings if left.contains(d["rect"])], left) == (True, "pie")
    assert chart_of([d for d in drawings if right.contains(d["rect"])], right) == (True, "donut")


def test_stacked_bars_and_a_single_100_percent_bar_are_stacked_bars_read_by_their_legend():
    doc, page = _page()
    for i, (a, b) in enumerate([(40, 30), (55, 25), (35, 50)]):
        x = 80 + i * 40
        page.draw_rect(pymupdf.Rect(x, 300 - a, x + 20, 300), color=None, fill=COLOURS[0])
        page.draw_rect(pymupdf.Rect(x, 300 - a - b, x + 20, 300 - a), color=None, fill=COLOURS[1])
    page.insert_text((60, 120), "Gender distribution", fontsize=11)
    page.draw_rect(pymupdf.Rect(300, 140, 440, 160), color=None, fill=COLOURS[2])
    page.draw_rect(pymupdf.Rect(440, 140, 540, 160), color=None, fill=COLOURS[3])
    page.insert_text((350, 153), "58.3%", fontsize=8, color=(1, 1, 1))
    page.insert_text((470, 153), "41.7%", fontsize=8, color=(1, 1, 1))
    for j, (name, colour) in enumerate([("female", COLOURS[2]), ("male", COLOURS[3])]):
        page.draw_rect(pymupdf.Rect(300 + 90 * j, 170, 308 + 90 * j, 178), color=None, fill=colour)
        page.insert_text((312 + 90 * j, 177), name, fontsize=8)
    page = _saved(doc)
    drawings = page.get_drawings()
    stack, single = pymupdf.Rect(70, 180, 200, 305), pymupdf.Rect(295, 135, 545, 165)
    assert chart_of([d for d in drawings if stack.contains(d["rect"])], stack) == (True, "stacked_bar")
    assert chart_of([d for d in drawings if single.contains(d["rect"])], single) == (True, "stacked_bar")
    bar = next(f for f in _figures(page) if f.crop[0] > 250)
    said = {v["label"]: v["value"] for v in bar.signals["reading"]["values"]}
    assert said == {"female": "58.3%", "male": "41.7%"}, said


def test_a_line_is_a_line_and_two_charts_on_one_coloured_panel_stay_two():
    doc, page = _page()
    page.draw_rect(pymupdf.Rect(40, 100, 560, 330), color=None, fill=(0.85, 0.9, 0.97))  # the panel
    page.insert_text((60, 125), "Water withdrawal", fontsize=11)
    pts = [pymupdf.Point(70 + 40 * i, 280 - v) for i, v in enumerate([20, 45, 40, 80, 95, 120])]
    page.draw_polyline(pts, color=COLOURS[0], width=1.5)
    for p, v in zip(pts, [20, 45, 40, 80, 95, 120]):
        page.insert_text((p.x - 4, p.y - 5), str(v), fontsize=7)
    page.draw_line((65, 285), (290, 285), color=(0.4, 0.4, 0.4), width=0.5)
    page.insert_text((330, 125), "Waste by type", fontsize=11)
    _bars(page, 340, 290, [40, 90, 65], ["Paper", "Metal", "Plastic"], ["1,204", "2,830", "1,950"])
    _prose(page, 360)
    figs = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert sorted(f.chart_type for f in figs) == ["bar", "line"], [(f.figure_kind, f.chart_type, f.crop) for f in figs]
    a, b = (pymupdf.Rect(f.crop) for f in figs)
    assert not a.intersects(b)


def test_bars_set_wide_apart_are_one_chart_rounded_or_thin():
    """Four rounded columns a bar's width apart, and a waterfall of thin floating bars five widths apart: each is
    one chart, cut whole, though its bars are further apart than neighbouring shapes are joined."""
    doc, page = _page()
    page.insert_text((60, 90), "Greenhouse gas emissions, Scope 1 and 2", fontsize=11)
    for i, h in enumerate([200, 180, 160, 130]):
        x = 60 + 52 * i
        page.draw_rect(pymupdf.Rect(x, 320 - h, x + 30, 320), color=None, fill=COLOURS[0], radius=0.1)
        page.insert_text((x + 2, 320 - h + 12), f"{2152 - 200 * i:,}", fontsize=8, color=(1, 1, 1))
        page.insert_text((x + 2, 334), str(2020 + i), fontsize=8)
    _prose(page, 360)
    page.insert_text((60, 450), "Reconciliation of EBITDA to profit", fontsize=11)
    level = 620.0
    for i, step in enumerate([-120, 60, -20, -40, 30, -25, 90]):
        x = 70 + 45 * i
        top, bottom = (level + step, level) if step < 0 else (level, level + step)
        page.draw_rect(pymupdf.Rect(x, min(top, bottom), x + 8, max(top, bottom)), color=None,
                       fill=COLOURS[i % 2])
        page.insert_text((x - 4, min(top, bottom) - 3), f"{-step:+}", fontsize=7)
        level += step
    _prose(page, 700, 3)
    charts = sorted((f for f in _figures(_saved(doc)) if f.figure_kind == "chart"), key=lambda f: f.crop[1])
    assert [f.chart_type for f in charts] == ["bar", "waterfall"], [(f.chart_type, f.crop) for f in charts]
    columns, waterfall = (pymupdf.Rect(f.crop) for f in charts)
    assert columns.contains(pymupdf.Rect(60, 120, 246, 320)) and waterfall.contains(pymupdf.Rect(70, 500, 348, 620))


def test_two_bars_a_bar_apart_are_one_chart_and_the_table_band_under_them_is_not_part_of_it():
    """Two horizontal stacked bars (2023 over 2022) further apart than neighbours are joined: rows of one chart;
    the shaded header band of a table under the chart is not part of it."""
    doc, page = _page()
    page.insert_text((60, 90), "Employees by gender", fontsize=11)
    for y, split in ((110, 0.7), (134, 0.68)):
        page.draw_rect(pymupdf.Rect(90, y, 90 + 300 * split, y + 9), color=None, fill=COLOURS[0])
        page.draw_rect(pymupdf.Rect(90 + 300 * split, y, 390, y + 9), color=None, fill=COLOURS[1])
        page.insert_text((60, y + 8), "2023" if y == 110 else "2022", fontsize=8)
        page.insert_text((95, y + 18), f"{split:.0%}", fontsize=7)
    page.draw_rect(pymupdf.Rect(90, 200, 390, 230), color=None, fill=COLOURS[3])
    page.insert_text((95, 218), "Working time by entity and gender, headcount at year end", fontsize=8,
                     color=(1, 1, 1))
    for r in range(5):
        page.insert_text((95, 250 + 16 * r), f"Entity {r + 1}   {100 + 37 * r}   {40 + 11 * r}   {60 + 26 * r}",
                         fontsize=8)
    charts = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert len(charts) == 1 and charts[0].chart_type == "stacked_bar", [(f.chart_type, f.crop) for f in charts]
    crop = pymupdf.Rect(charts[0].crop)
    assert crop.contains(pymupdf.Rect(90, 110, 390, 143)) and crop.y1 < 200, crop


def test_two_charts_under_one_title_are_cut_apart():
    """A title over two charts side by side ("Balance sheet structure": assets, and equity and liabilities) is
    theirs together: neither crop takes it, so neither reaches over the other chart."""
    doc, page = _page()
    page.insert_text((60, 170), "BALANCE SHEET STRUCTURE OF THE GROUP IN PERCENT OF TOTAL", fontsize=12)
    _bars(page, 80, 300, [90, 110, 100], ["2021", "2022", "2023"], ["43.7", "44.4", "45.6"])
    _bars(page, 330, 300, [80, 95, 105], ["2021", "2022", "2023"], ["25.2", "31.4", "38.0"])
    _prose(page, 360)
    charts = sorted((f for f in _figures(_saved(doc)) if f.figure_kind == "chart"), key=lambda f: f.crop[0])
    assert len(charts) == 2, [(f.chart_type, f.crop) for f in charts]
    left, right = (pymupdf.Rect(f.crop) for f in charts)
    assert not left.intersects(right) and left.x1 < 330 and right.x0 > 170


def test_a_table_with_shaded_header_cells_is_no_chart():
    doc, page = _page()
    heads = ["Gender", "Total", "Female", "Male", "Other"]
    for i, h in enumerate(heads):
        page.draw_rect(pymupdf.Rect(50 + 100 * i, 100, 150 + 100 * i, 130), color=None,
                       fill=COLOURS[i % 2] if i else (0.9, 0.3, 0.3))
        page.insert_text((55 + 100 * i, 118), f"{h} headcount", fontsize=8, color=(1, 1, 1))
    for r in range(4):
        for i in range(5):
            page.insert_text((55 + 100 * i, 150 + 18 * r), "Addiko Bank" if i == 0 else f"{(r * 37 + i * 53) % 97 + 3}",
                             fontsize=8)
    assert not [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]


@pytest.mark.parametrize("words, label, value", [
    (["Scope", "1", "1,050", "t", "(8.0%)"], "Scope 1", "1,050 t (8.0%)"),
    (["474", "Sweden"], "Sweden", "474"),
    (["2022", "$23.6B"], "2022", "$23.6B"),
    (["Revenue"], "Revenue", ""),
    # a class's bounds name it: its count or share is printed apart; a bound with its unit alone is a value
    (["<", "30", "years"], "< 30 years", ""),
    (["30", "–", "50", "years"], "30 – 50 years", ""),
    ([">", "50", "years"], "> 50 years", ""),
    (["Other", "<1%"], "Other <1%", ""),
    (["Other", "<", "1%"], "Other <", "1%"),
    (["2022", "30", "–", "50"], "2022", "30 – 50"),
])
def test_a_phrase_is_split_into_its_label_and_its_value(words, label, value):
    assert chartread._split(chartread.Phrase(pymupdf.Rect(0, 0, 10, 10), words)) == (label, value)


def test_a_value_over_a_tall_bar_belongs_to_the_category_under_it_not_to_a_label_above():
    """The value printed over a tall bar is far above its category on the axis row; a label of a table row above
    the chart is nearer. The axis row wins; a year the title also names is still a category."""
    words = [(70, 164, 120, 173, "GROUP"), (150, 164, 175, 173, "3,840"),          # a table's row above
             (88, 209, 110, 218, "189,015"), (141, 240, 164, 249, "180,303"),      # values over the bars
             (92, 307, 106, 315, "2021"), (145, 307, 161, 315, "2022")]            # the axis row
    reading = chartread.read_chart(words, [], title="Energy use 2021 and 2022")
    pairs = {(v["label"], v["value"]) for v in reading["values"]}
    assert {("2021", "189,015"), ("2022", "180,303"), ("GROUP", "3,840")} <= pairs, pairs


def test_ocr_reads_two_labels_run_together_as_two():
    from rag.ingest.figkind import _ocr_tokens
    assert _ocr_tokens("FY 20222023 24.324.7 1.234.567 12.5") == ["FY", "2022", "2023", "24.3", "24.7", "1.234.567",
                                                                  "12.5"]


def test_a_table_of_figures_in_shaded_cells_is_a_table_not_a_stacked_bar():
    """A table drawn as a grid of shaded cells, its rows mostly figures (few words of three letters): the column
    edges repeat from row to row, so it is a table. A stacked bar chart's segments do not repeat their edges."""
    doc, page = _page()
    page.insert_text((305, 80), "CO2 emissions", fontsize=10, fontname="hebo")
    rows = [["in t", "2023", "Share", "2022", "2021"], ["Scope 1", "15,673", "64.7%", "15,850", "17,955"],
            ["Scope 2", "8,549", "35.3%", "7,672", "7,828"], ["Total", "24,222", "100%", "23,522", "25,783"]]
    edges = [305, 380, 417, 454, 490, 527]
    for r, cells in enumerate(rows):
        y = 92 + 14 * r
        for i, cell in enumerate(cells):
            fill = (0.89, 0.9, 0.91) if i == 1 else (1, 1, 1)
            page.draw_rect(pymupdf.Rect(edges[i], y, edges[i + 1], y + 13.5), color=None, fill=fill)
            page.insert_text((edges[i] + 3, y + 10), cell, fontsize=8)
    kinds = [(f.figure_kind, f.chart_type) for f in _figures(_saved(doc))]
    assert ("chart", "stacked_bar") not in kinds and all(k != "chart" for k, _ in kinds)


def test_two_bars_with_a_small_image_at_their_foot_are_a_chart_titled_over_its_units_line():
    """Two bars (last year and this year) with a small image laid over their foot (a shadow, an icon): the image
    does not make the chart an image's frame. Its title is the larger line over its units line."""
    doc, page = _page()
    page.insert_text((309, 226), "Adjusted EBIT", fontsize=9.5)
    page.insert_text((309, 237), "IN MEUR | IN % OF SALES", fontsize=7)
    _bars(page, 342, 471, [145, 174], ["2022", "2023"], ["90.9", "109.2"], width=55, gap=55)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 20), False)
    pix.set_rect(pix.irect, (200, 200, 200))
    page.insert_image(pymupdf.Rect(336, 451, 456, 471), pixmap=pix)
    charts = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert len(charts) == 1 and charts[0].chart_type == "bar"
    assert charts[0].caption == "Adjusted EBIT IN MEUR | IN % OF SALES"


def test_a_chart_on_a_panel_keeps_its_two_line_title_set_right_over_the_panel():
    doc, page = _page()
    page.insert_text((68, 76), "SALES REVENUES AND", fontsize=11, fontname="hebo")
    page.insert_text((68, 89), "EBITDA MARGIN DEVELOPMENT", fontsize=11, fontname="hebo")
    page.draw_rect(pymupdf.Rect(68, 100, 291, 245), color=None, fill=(0.95, 0.95, 0.93))
    _bars(page, 98, 210, [70, 80, 88], ["2021", "2022", "2023"], ["555.9", "601.4", "636.0"], width=20, gap=30)
    _prose(page, 300, 8)
    charts = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert len(charts) == 1 and charts[0].caption == "SALES REVENUES AND EBITDA MARGIN DEVELOPMENT"
    saved = _saved(doc)
    assert "SALES REVENUES AND" in saved.get_textbox(pymupdf.Rect(charts[0].crop))
    for line in _prose_lines(saved):
        assert not pymupdf.Rect(charts[0].crop).intersects(line)


def test_a_paragraph_ending_right_over_a_panel_is_not_the_chart_s_title():
    """"… the shareholder structure had the following form:" ends a paragraph of body text right over a chart's
    panel: it is prose at the body's size, not the chart's title, and stays out of its crop."""
    doc, page = _page()
    _prose(page, 230, 8)
    page.insert_text((68, 352), "the shareholder structure had the following form:", fontsize=10)
    page.draw_rect(pymupdf.Rect(68, 362, 291, 505), color=None, fill=(0.95, 0.95, 0.93))
    _bars(page, 98, 470, [70, 80, 88], ["2021", "2022", "2023"], ["555.9", "601.4", "636.0"], width=20, gap=30)
    saved = _saved(doc)
    charts = [f for f in _figures(saved) if f.figure_kind == "chart"]
    assert len(charts) == 1 and "following form" not in saved.get_textbox(pymupdf.Rect(charts[0].crop))


def test_labels_touching_in_the_text_layer_are_read_as_the_values_they_are():
    """Values over a group of bars set so close that the text layer runs them into one word ("24.324.725.7"): one
    value a bar, each with as many decimals as the last; a number grouped by points stays one."""
    from rag.ingest.figkind import glued_numbers
    assert glued_numbers("24.324.725.7") == ["24.3", "24.7", "25.7"]
    assert glued_numbers("4.03.8") == ["4.0", "3.8"]
    assert glued_numbers("1.234.567") == ["1.234.567"]
    assert glued_numbers("1.2.3") == ["1.2.3"]  # a section number
    words = [(100, 100, 160, 108, "24.324.725.7"), (100, 120, 108, 128, "D"), (200, 100, 240, 108, "19.819.3"),
             (205, 120, 213, 128, "C")]
    values = [(v["label"], v["value"]) for v in chartread.read_chart(words, [])["values"]]
    assert values == [("D", "24.3"), ("D", "24.7"), ("D", "25.7"), ("C", "19.8"), ("C", "19.3")], values


def test_a_donut_s_labels_over_two_lines_and_a_value_over_its_name_are_read_whole():
    """A donut's callouts: a name set over two lines with its value on the second ("Passenger" / "Cars & LCV
    74.0%"), a name over its value ("Smart Plastic" / "8.8%"), a value set larger over its name ("4.90%" /
    "BlackRock1", the next value right under); a footnote mark glued to a name is no part of it."""
    words = [(60, 100, 100, 108, "Passenger"), (60, 110, 80, 118, "Cars"), (82, 110, 110, 118, "LCV"),
             (112, 110, 135, 118, "74.0%"),
             (300, 100, 330, 108, "Smart"), (332, 100, 365, 108, "Plastic"), (300, 110, 318, 118, "8.8%"),
             (300, 200, 325, 210, "4.90%"), (300, 210, 345, 217, "BlackRock1"),
             (300, 218, 325, 228, "3.53%"), (300, 228, 320, 235, "J.P."), (322, 228, 350, 235, "Morgan1")]
    reading = chartread.read_chart(words, [], chart_type="donut")
    pairs = {(v["label"], v["value"]) for v in reading["values"]}
    assert pairs == {("Passenger Cars LCV", "74.0%"), ("Smart Plastic", "8.8%"), ("BlackRock", "4.90%"),
                     ("J.P. Morgan", "3.53%")}, pairs


def test_a_donut_s_crop_reaches_along_its_leader_lines_to_its_labels():
    """Callouts set far out on leader lines, right of a donut: the crop follows the lines to them, and the line of
    a label ending in its value is not taken for the chart's title."""
    doc, page = _page()
    _prose(page, 60)
    page.insert_text((60, 160), "Shareholder structure", fontsize=11, fontname="hebo")
    c = pymupdf.Point(200, 260)
    _sectors(page, c, 60, [0.6, 0.33, 0.07])
    sh = page.new_shape()
    sh.draw_circle(c, 33)
    sh.finish(fill=(1, 1, 1), color=None)
    sh.commit()
    page.draw_line((250, 230), (520, 230), color=(0.4, 0.4, 0.4), width=0.5)
    page.insert_text((400, 226), "Shareholder of long standing 60.12 %", fontsize=8)
    page.draw_line((150, 300), (70, 300), color=(0.4, 0.4, 0.4), width=0.5)
    page.insert_text((70, 296), "Freefloat 33.46 %", fontsize=8)
    _prose(page, 360)
    page = _saved(doc)
    [fig] = [f for f in _figures(page) if f.figure_kind == "chart"]
    assert fig.crop[2] >= 520 and fig.crop[0] <= 70, fig.crop
    pairs = {(v["label"], v["value"]) for v in fig.signals["reading"]["values"]}
    assert ("Shareholder of long standing", "60.12 %") in pairs and ("Freefloat", "33.46 %") in pairs, pairs
    assert not any(ln.intersects(pymupdf.Rect(fig.crop)) for ln in _prose_lines(page))


def test_bars_with_a_line_on_a_white_panel_take_the_series_of_their_own_legend_key():
    """Revenue bars with a margin line over them, on a white panel, the line's points drawn as white discs: each
    value takes the series of the shape it belongs to (the bar it stands on, the point beside it), never the
    panel's white, which is also the colour of the line's legend key; a key drawn as a short bar is a key."""
    red, white, ink = (0.62, 0.05, 0.15), (1.0, 1.0, 1.0), (0.2, 0.25, 0.28)
    panel = {"rect": pymupdf.Rect(68, 101, 291, 245), "fill": white}
    bars = [{"rect": pymupdf.Rect(x, top, x + 28, 210), "fill": red} for x, top in ((98, 120), (152, 117), (189, 114))]
    points = [{"rect": pymupdf.Rect(x, y, x + 10, y + 10), "fill": white, "color": ink}
              for x, y in ((98, 165), (152, 178), (206, 184))]
    keys = [{"rect": pymupdf.Rect(77, 231, 81, 239), "fill": red},
            {"rect": pymupdf.Rect(173, 231, 181, 239), "fill": white, "color": ink}]
    words = [(95, 107, 112, 116, "555.9"), (149, 104, 165, 113, "601.4"), (112, 161, 124, 169, "8.1%"),
             (165, 172, 180, 181, "5.5%"), (96, 215, 111, 223, "2021"), (149, 215, 165, 223, "2022"),
             (83, 232, 100, 241, "Sales"), (102, 232, 131, 241, "revenues"), (185, 232, 209, 241, "EBITDA"),
             (211, 232, 234, 241, "margin")]
    reading = chartread.read_chart(words, [panel, *bars, *points, *keys], region=pymupdf.Rect(64, 95, 295, 245))
    pairs = {(v["label"], v["value"]) for v in reading["values"]}
    assert pairs == {("Sales revenues, 2021", "555.9"), ("Sales revenues, 2022", "601.4"),
                     ("EBITDA margin, 2021", "8.1%"), ("EBITDA margin, 2022", "5.5%")}, pairs


def test_a_line_charts_legend_of_short_strokes_is_read_and_named_in_its_reading():
    """A share price chart's legend: each series a short thin bar or a short stroke of its colour, its name beside
    it ("▬ freenet ▬ MDAX ▬ TecDAX"). The names are its legend, and the reading line names them, since no value
    printed on the chart does. A rule drawn in pieces under the legend, and an underline, are no keys; nor, in a pie,
    a short stroke before a label (its leader line)."""
    green, navy, grey = (0.52, 0.74, 0.2), (0.03, 0.13, 0.26), (0.53, 0.53, 0.53)
    keys = [{"rect": pymupdf.Rect(74, 273, 88, 274.4), "fill": green},
            {"rect": pymupdf.Rect(119, 273.7, 133, 273.7), "color": navy},
            {"rect": pymupdf.Rect(163, 273, 177, 274.4), "fill": grey}]
    rule = [{"rect": pymupdf.Rect(x, 280, x + 18, 280), "color": navy} for x in (70, 88, 106)]
    underline = [{"rect": pymupdf.Rect(200, 278.5, 222, 279), "color": navy}]
    words = [(89, 268, 119, 279, "freenet"), (134, 268, 159, 279, "MDAX"), (178, 268, 199, 279, "TecDAX"),
             (224, 268, 250, 279, "Peers"), (78, 172, 86, 181, "130"), (78, 206, 86, 215, "110"),
             (97, 249, 121, 258, "January"), (451, 249, 490, 258, "December")]
    reading = chartread.read_chart(words, [*keys, *rule, *underline], region=pymupdf.Rect(70, 150, 520, 282),
                                   chart_type="line")
    assert reading["legend"] == ["freenet", "MDAX", "TecDAX"], reading["legend"]
    assert chartread.reading_text(reading).endswith("series: freenet, MDAX, TecDAX")
    # in a pie or a donut, a short stroke before a label is the leader line from its wedge, not a key
    assert chartread.read_chart(words, [*keys, *rule, *underline], region=pymupdf.Rect(70, 150, 520, 282),
                                chart_type="donut")["legend"] == []
    # a legend whose names the values carry is not repeated
    assert chartread.reading_text({"values": [{"label": "MDAX, 2023", "value": "5%"}], "legend": ["MDAX"]}) \
        == "MDAX, 2023: 5%"


def test_a_date_in_a_charts_units_line_is_no_value():
    """"(indexed as of 31 December 2022)" over a share price chart: 31 is the date's day, next to its month, not a
    value labelled "(indexed as of"; a value after a word that only starts like a month ("Market 12") is one."""
    words = [(300, 160, 330, 169, "(indexed"), (332, 160, 340, 169, "as"), (342, 160, 350, 169, "of"),
             (352, 160, 362, 169, "31"), (364, 160, 400, 169, "December"), (402, 160, 425, 169, "2022)"),
             (100, 200, 130, 209, "Market"), (132, 200, 142, 209, "12")]
    values = [(v["label"], v["value"]) for v in chartread.read_chart(words, [])["values"]]
    assert values == [("Market", "12")], values


def test_a_numbered_caption_over_a_units_line_is_the_chart_s_caption_and_in_its_crop():
    """"Figure 13: Number of employees by gender" / "as of 31.12." set over a small units line, over the bars: the
    caption is the chart's, though its first line is far from the drawing, and the crop holds it."""
    doc, page = _page()
    _prose(page, 60)
    page.insert_text((74, 425), "Figure 13: Number of employees by gender", fontsize=8.5)
    page.insert_text((74, 436), "as of 31.12.", fontsize=8.5)
    page.insert_text((74, 461), "Unit as specified", fontsize=6)
    _bars(page, 100, 560, [60, 45, 52], ["2021", "2022", "2023"], ["3,601", "3,660", "3,690"])
    charts = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert len(charts) == 1
    assert charts[0].caption.startswith("Figure 13: Number of employees by gender as of 31.12."), charts[0].caption
    crop = pymupdf.Rect(charts[0].crop)
    assert crop.y0 < 418 and crop.y1 < 600, crop


def test_a_legend_set_apart_under_a_bar_with_names_over_two_lines_is_the_chart_s():
    """A 100% bar of three age groups, its legend a row of swatches set well under it, each name over two lines
    ("under 30" / "years old"): the crop holds the legend, and each share is read with its group's whole name."""
    doc, page = _page()
    _prose(page, 60)
    page.insert_text((150, 290), "Age distribution – group total", fontsize=12)
    x = 40.0
    for share, colour, value in zip((0.149, 0.685, 0.166), COLOURS[:3], ("14,9%", "68,5%", "16,6%"), strict=True):
        w = 500 * share
        page.draw_rect(pymupdf.Rect(x, 316, x + w, 346), color=None, fill=colour)
        page.insert_text((x + w / 2 - 12, 334), value, fontsize=10, color=(1, 1, 1))
        x += w
    for left, colour, (top, bottom) in zip((40, 250, 440), COLOURS[:3],
                                           (("under 30", "years old"), ("30 - 50", "years old"),
                                            ("over", "50 years old")), strict=True):
        page.draw_rect(pymupdf.Rect(left, 370, left + 15, 385), color=None, fill=colour)
        page.insert_text((left + 24, 376), top, fontsize=10)
        page.insert_text((left + 24, 387), bottom, fontsize=10)
    _prose(page, 430)
    charts = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert len(charts) == 1
    assert pymupdf.Rect(charts[0].crop).y1 >= 387, charts[0].crop
    pairs = {(v["label"], v["value"]) for v in charts[0].signals["reading"]["values"]}
    assert pairs == {("under 30 years old", "14,9%"), ("30 - 50 years old", "68,5%"),
                     ("over 50 years old", "16,6%")}, pairs


def _rating(page: pymupdf.Page, top: float, title: str, values: list[str | None]) -> None:
    """A small rating chart in a margin column, as reports set them beside the text on each rating: a title (printed
    twice over itself, a bold effect), bars for the years that have a value ("–" for one that has none), an arrow
    between two years that have one, and the years under them."""
    page.insert_text((428, top + 8), title, fontsize=8)
    page.insert_text((428, top + 8), title, fontsize=8)
    base = top + 75
    for i, (year, value) in enumerate(zip(("2018", "2019", "2020"), values)):
        x = 432 + 31 * i
        if value is None:
            page.insert_text((x + 4, base - 3), "–", fontsize=8)
        else:
            h = 20 + 10 * i
            page.draw_rect(pymupdf.Rect(x + 3, base - h, x + 12, base), color=None, fill=COLOURS[i % 2])
            page.insert_text((x + 1, base - h - 3), value, fontsize=8)
        if i and values[i - 1] is not None and value is not None:  # an arrow from the year before, if it had one
            page.draw_line((x - 16, base - 30), (x - 6, base - 40), color=(0, 0.3, 0.5), width=0.5)
        page.insert_text((x, base + 10), year, fontsize=8)


def test_a_small_rating_chart_whose_first_year_has_no_bar_is_found_with_its_title_beside_the_text():
    """Four ratings stacked in a margin column, each beside its paragraph: the text layer runs each title and year
    row on into the line of prose beside it. The second chart's bars span less than its years; it is a chart of
    its own all the same, titled by its own line, and the first chart's crop does not take its title or value."""
    doc, page = _page()
    for i, (title, values) in enumerate([("ESG Company Rating", ["52", "58", "83"]),
                                         ("ESG Risk Rating", [None, "19.2", "7.7"]),
                                         ("Climate Score", [None, "23", "57"]),
                                         ("Governance Grade", ["40", "45", "61"])]):
        top = 60 + 105 * i
        page.insert_textbox(pymupdf.Rect(180, top, 410, top + 100), PROSE + " " + PROSE, fontsize=9)
        _rating(page, top, title, values)
    figs = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert len(figs) == 4, [(f.caption, f.bbox) for f in figs]
    risk = next(f for f in figs if 160 < f.bbox[1] < 200)
    assert risk.caption == "ESG Risk Rating"
    assert "19.2" in risk.ocr_text and "7.7" in risk.ocr_text
    first = next(f for f in figs if f.bbox[1] < 100)
    assert first.crop[3] < 165 + 5, first.crop  # not down to the next chart's title
    assert "19.2" not in first.ocr_text


def test_a_page_of_small_multiples_keeps_every_panel():
    """Nine small bar charts in a grid, one per region: each is found, none dropped for the page's count."""
    doc, page = _page()
    for i in range(9):
        x, y = 60 + 170 * (i % 3), 120 + 200 * (i // 3)
        page.insert_text((x, y + 8), f"Region {i + 1} sales", fontsize=9)
        _bars(page, x, y + 100, [30 + 7 * i, 50, 70 - 4 * i], ["2021", "2022", "2023"], ["3.0", "5.0", "7.0"])
    figs = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert sorted(f.caption for f in figs) == sorted(f"Region {i + 1} sales" for i in range(9))


def test_a_running_header_is_no_chart_s_caption():
    """A report's running header, set over every page, sits right over an untitled chart at the top of one: it is
    page furniture (layout.repeated_margin_texts, as ingestion passes it), not the chart's title."""
    from rag.ingest import layout
    from rag.ingest.refigure import document_furniture

    doc = pymupdf.open()
    for n in range(5):
        p = doc.new_page(width=595, height=842)
        p.insert_text((50, 30), "Acme Group Sustainability Report 2023", fontsize=8)
        p.insert_text((540, 820), str(n + 1), fontsize=8)
        if n == 2:
            _bars(p, 60, 160, [60, 80, 100], ["2021", "2022", "2023"], ["6.0", "8.0", "10.0"])
        _prose(p, 400)
    saved = pymupdf.open(stream=doc.tobytes(), filetype="pdf")
    furniture = document_furniture(saved)
    assert layout._norm_repeat("Acme Group Sustainability Report 2023") in furniture
    page = saved[2]
    plain = [f for f in _figures(page) if f.figure_kind == "chart"]
    assert plain and "2023" in plain[0].caption  # the header's words, read as the chart's title, without furniture
    figs = figures.extract_figures(page, 3, page_rows(page), set(), IngestSettings(ocr=False), set(),
                                   furniture=furniture)
    chart = next(f for f in figs if f.figure_kind == "chart")
    assert "Acme" not in chart.caption and "Acme" not in chart.context


def test_a_chart_in_one_column_of_two_is_about_its_own_column_s_text():
    """Two columns, each a division's paragraph over its chart: a chart's context (what its stored vector and
    the answer's figure choice read) is its own column's paragraph first, not the one level with it beside it."""
    doc, page = _page()
    left = "The Machines division raised its sales again and hired in every region. " * 4
    right = "The Services division held its margin steady while its order intake fell. " * 4
    page.insert_textbox(pymupdf.Rect(50, 60, 285, 200), left, fontsize=9)
    page.insert_textbox(pymupdf.Rect(310, 60, 545, 200), right, fontsize=9)
    _bars(page, 70, 330, [60, 80, 100], ["2021", "2022", "2023"], ["6.0", "8.0", "10.0"])
    _bars(page, 330, 330, [90, 70, 50], ["2021", "2022", "2023"], ["9.0", "7.0", "5.0"])
    figs = sorted((f for f in _figures(_saved(doc)) if f.figure_kind == "chart"), key=lambda f: f.bbox[0])
    assert len(figs) == 2
    assert figs[0].context.startswith("The Machines division") or "Machines" in figs[0].context[:200]
    assert "Services" not in figs[0].context[:300]
    assert "Services" in figs[1].context[:200] and "Machines" not in figs[1].context[:300]


def test_a_rating_chart_s_grades_are_its_values_by_year():
    """An ESG rating shown as three bars with the grade over each ("BBB", "A", "A-"): the grades are the chart's
    values, each tied to its year; a run-on row's grade is not the chart's title."""
    doc, page = _page()
    page.insert_textbox(pymupdf.Rect(180, 60, 410, 200), "The rating agency assesses the company every year. " * 5,
                        fontsize=9)
    base = 160
    for i, (year, grade) in enumerate(zip(("2018", "2019", "2020"), ("BBB", "A", "A-"))):
        x = 432 + 31 * i
        page.draw_rect(pymupdf.Rect(x + 3, base - 40 - 8 * i, x + 12, base), color=None, fill=COLOURS[0])
        page.insert_text((x + 1, base - 43 - 8 * i), grade, fontsize=8)
        page.insert_text((x, base + 10), year, fontsize=8)
        if i:
            page.draw_line((x - 16, base - 30), (x - 6, base - 40), color=(0, 0.3, 0.5), width=0.5)
    chart = next(f for f in _figures(_saved(doc)) if f.figure_kind == "chart")
    read = {v["label"]: v["value"] for v in chart.signals["reading"]["values"]}
    assert read == {"2018": "BBB", "2019": "A", "2020": "A-"}, read
    assert chart.caption not in ("A", "A-", "BBB")


def _donut_labelled_left(page: pymupdf.Page, top: float) -> None:
    """A donut whose segments are named in a column of labels at its top left, the first level with its top, each
    on a leader line to its segment."""
    _sectors(page, pymupdf.Point(330, top + 80), 70, [0.5, 0.3, 0.2])
    for i, (name, value) in enumerate([("Purchased goods", "1,210 kt"), ("Upstream transport", "236 kt"),
                                       ("Other categories", "249 kt")]):
        page.insert_text((70, top + 12 + 34 * i), name, fontsize=10)
        page.insert_text((70, top + 25 + 34 * i), value, fontsize=10, fontname="hebo")
        page.draw_line((152, top + 8 + 34 * i), (275, top + 40 + 20 * i), color=(0.4, 0.4, 0.4), width=0.5)


def test_a_chart_titled_over_its_segment_labels_is_named_by_its_title_not_its_first_label():
    """A small title over a donut whose first segment label sits level with the drawing's top: the title names
    the chart, not the label (the label is inside the chart's region, the title over it, in its crop)."""
    doc, page = _page()
    _prose(page, 60)
    page.insert_text((60, 178), "Greenhouse gas emissions 2023 in metric kilotons, Scope 3", fontsize=8)
    _donut_labelled_left(page, 200)
    _prose(page, 400)
    [fig] = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert fig.caption.startswith("Greenhouse gas emissions 2023"), fig.caption


def test_text_no_reader_sees_is_never_a_chart_s_title():
    """A line printed white on the white page (a template's leftover, over a rule) is not the chart's title: the
    title a reader sees is."""
    doc, page = _page()
    _prose(page, 60)
    page.insert_text((60, 170), "Sales contribution by segment 2023", fontsize=10)
    page.draw_line((60, 186), (300, 186), color=(0.6, 0.6, 0.6), width=0.5)
    page.insert_text((90, 194), "Relativer Umsatzanteil der Segmente 2023", fontsize=9, color=(1, 1, 1))
    _donut_labelled_left(page, 205)
    _prose(page, 400)
    page = _saved(doc)
    [fig] = [f for f in _figures(page) if f.figure_kind == "chart"]
    assert "Relativer" not in fig.caption and "Relativer" not in fig.context, fig.caption


def _outlined(page: pymupdf.Page, texts: list[tuple[tuple[float, float], str]], size: float = 18) -> None:
    """Text set on the page as outlines (paths, no text layer), as a designer's tool exports big figures."""
    src = pymupdf.open()
    p = src.new_page(width=page.rect.width, height=page.rect.height)
    for at, text in texts:
        p.insert_text(at, text, fontsize=size, fontname="hebo")
    svg = pymupdf.open(stream=p.get_svg_image(text_as_path=True).encode(), filetype="svg")
    page.show_pdf_page(page.rect, pymupdf.open("pdf", svg.convert_to_pdf()), 0)


def test_a_chart_whose_values_are_drawn_as_outlines_is_read_by_ocr():
    """A progress bar whose title and years are text but whose figures ("23%", "30%") are outlines: OCR reads the
    figures in the chart's region, and the chart's text holds them with the years."""
    from rag.ingest.pipeline import _figure_ocr

    doc, page = _page()
    _prose(page, 60)
    page.insert_text((60, 160), "Share of women in leadership positions", fontsize=10)
    page.draw_rect(pymupdf.Rect(60, 178, 385, 206), color=None, fill=(0.2, 0.7, 0.8))
    page.draw_rect(pymupdf.Rect(385, 178, 470, 206), color=None, fill=(0.4, 0.2, 0.6))
    _outlined(page, [((395, 200), "23%"), ((480, 200), "30%")])
    page.insert_text((395, 218), "2023", fontsize=8)
    page.insert_text((480, 218), "by 2030", fontsize=8)
    _prose(page, 300)
    page = _saved(doc)
    cfg = IngestSettings()
    figs = figures.extract_figures(page, page.number + 1, page_rows(page), set(), cfg, set(), _figure_ocr(cfg))
    [fig] = [f for f in figs if f.crop and pymupdf.Rect(f.crop).contains(pymupdf.Point(400, 195))]
    assert "23%" in fig.ocr_text and "2023" in fig.ocr_text, fig.ocr_text
    # the same outlines in a drawing of many words (a diagram's boxes, not a chart missing its figures): no OCR
    rect = pymupdf.Rect(fig.bbox)
    drawings = figures.drawings_in(figures.page_drawings(page), rect)
    assert figures.needs_ocr("vector", None, drawings, rect, page.rect, "2023")
    assert not figures.needs_ocr("vector", None, drawings, rect, page.rect, "Our stakeholders and partners " * 7)


def test_an_image_of_a_chart_without_a_caption_is_named_by_the_title_in_its_pixels():
    """A chart pasted as an image, its title inside the image and no caption on the page: OCR's top line that is
    a phrase names it."""
    from rag.ingest.pipeline import _figure_ocr

    src, drawn = _page()
    drawn.insert_text((70, 120), "Comparison of Cumulative Total Return", fontsize=14)
    _bars(drawn, 90, 300, [60, 90, 120, 150], ["2020", "2021", "2022", "2023"], ["$100", "$140", "$180", "$230"])
    pix = drawn.get_pixmap(clip=pymupdf.Rect(50, 95, 360, 320), dpi=150)
    doc, page = _page()
    _prose(page, 60)
    page.insert_image(pymupdf.Rect(60, 150, 370, 375), pixmap=pix)
    _prose(page, 420)
    page = _saved(doc)
    cfg = IngestSettings()
    figs = figures.extract_figures(page, page.number + 1, page_rows(page), set(), cfg, set(), _figure_ocr(cfg))
    [fig] = [f for f in figs if f.kind == "raster"]
    assert fig.caption == "Comparison of Cumulative Total Return", (fig.caption, fig.ocr_text)


def test_a_chart_labelled_in_glyph_shapes_is_read_by_ocr_and_an_icon_of_ticks_is_not():
    """A bar chart whose labels a plotting library set as paths (small filled shapes in runs along a line, like
    the letters of words) is OCR'd; a dial icon whose ticks are as small and as curved, but stand each alone
    round a circle, is no chart's lettering."""
    doc, page = _page()
    for i, h in enumerate((40, 70, 55)):
        page.draw_rect(pymupdf.Rect(100 + 50 * i, 250 - h, 130 + 50 * i, 250), color=None, fill=COLOURS[i])
    _outlined(page, [((100, 265), "2021"), ((150, 265), "2022"), ((200, 265), "2023"), ((100, 170), "Revenue")],
              size=9)
    page = _saved(doc)
    rect = pymupdf.Rect(95, 150, 240, 270)
    drawings = figures.drawings_in(figures.page_drawings(page), rect)
    assert figures.glyphs_drawn("bar", drawings)
    assert figures.needs_ocr("vector", "bar", drawings, rect, page.rect, "")

    doc, page = _page()
    c = pymupdf.Point(300, 300)
    page.draw_circle(c, 30, color=(0.2, 0.4, 0.6), width=2)
    for k in range(12):  # twelve ticks round the dial, each a small filled shape of curves
        sh = page.new_shape()
        at = c + pymupdf.Point(26, 0) * pymupdf.Matrix(30 * k)
        sh.draw_circle(at, 2.2)
        sh.draw_circle(at + (0.5, 0.5), 1.6)
        sh.finish(fill=(0.2, 0.4, 0.6), color=None)
        sh.commit()
    page = _saved(doc)
    rect = pymupdf.Rect(265, 265, 335, 335)
    drawings = figures.drawings_in(figures.page_drawings(page), rect)
    assert len([d for d in drawings if d.get("fill") is not None and len(d["items"]) >= 6]) >= 8
    assert not figures.glyphs_drawn("line", drawings)
    assert not figures.needs_ocr("vector", "line", drawings, rect, page.rect, "Perfo Asses")


def _timeline(page: pymupdf.Page, top: float, rows: list[tuple[str, int, int]], cell: float = 32,
              shade: tuple = (0.87, 0.87, 0.87)) -> None:
    """A timeline drawn as a framed grid of shaded cells (a spreadsheet's Gantt chart): each row's label at the
    left, its start year before its bar and its end year after it; the bar a run of touching cells of one grey."""
    page.insert_text((20, top + 12), "Go-ahead and initial delivery", fontsize=8)
    for i, (label, start, end) in enumerate(rows):
        y = top + 24 + 20 * i
        page.insert_text((20, y + 10), label, fontsize=8)
        page.insert_text((90 + (start - 2010) * cell, y + 10), str(start), fontsize=8)
        for year in range(start, end):
            x = 120 + (year - 2010) * cell
            page.draw_rect(pymupdf.Rect(x, y, x + cell, y + 13), color=None, fill=shade)
        page.insert_text((124 + (end - 2010) * cell, y + 10), str(end), fontsize=8)
    page.draw_rect(pymupdf.Rect(18, top, 440, top + 30 + 20 * len(rows)), color=(0, 0, 0), width=0.5)


def test_a_timeline_drawn_as_runs_of_shaded_cells_is_a_chart_read_row_by_row():
    """A bar drawn in pieces is one bar: rows of shaded cells that start and end at different columns are the
    range bars of a timeline, a chart; each row reads as its label, its start and its end."""
    doc, page = _page()
    _prose(page, 60)
    _timeline(page, 150, [("Model A", 2011, 2017), ("Model B", 2011, 2018), ("Model C", 2013, 2016),
                          ("Model D", 2012, 2019)])
    _prose(page, 300)
    figs = [f for f in _figures(_saved(doc)) if f.figure_kind == "chart"]
    assert [f.chart_type for f in figs] == ["other"], [(f.figure_kind, f.bbox) for f in _figures(_saved(doc))]
    rows = "Model A: 2011 – 2017; Model B: 2011 – 2018; Model C: 2013 – 2016; Model D: 2012 – 2019"
    assert chartread.reading_line(figs[0].ocr_text).startswith(rows), figs[0].ocr_text


def test_a_table_whose_rows_are_shaded_across_its_width_has_no_range_bars():
    """Shaded rows of a table span its width, one start and one end: no timeline."""
    doc, page = _page()
    for r in range(5):
        y = 150 + 20 * r
        for c in range(6):
            page.draw_rect(pymupdf.Rect(60 + 70 * c, y, 130 + 70 * c, y + 13), color=None,
                           fill=(0.87, 0.87, 0.87) if r % 2 else (0.7, 0.8, 0.9))
    page = _saved(doc)
    ok, chart_type = chart_of(page.get_drawings(), pymupdf.Rect(50, 140, 500, 260))
    assert chart_type != "range_bar", chart_type


def test_a_short_wide_image_at_a_page_s_head_is_a_letterhead_logo_and_below_it_is_not_a_figure():
    """A company's wordmark over a letter or a release is short (a third of an inch high) and wide: it is found,
    as a logo. The same strip lower down a page is below the figure size, as before."""
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 400, 48), False)
    pix.set_rect(pix.irect, (255, 255, 255))
    pix.set_rect(pymupdf.IRect(10, 8, 390, 40), (200, 20, 30))
    doc, page = _page()
    page.insert_image(pymupdf.Rect(190, 30, 400, 55), pixmap=pix)
    page.insert_image(pymupdf.Rect(190, 500, 400, 525), pixmap=pix)
    _prose(page, 80)
    figs = _figures(_saved(doc))
    assert [(f.figure_kind, round(f.bbox[1])) for f in figs] == [("logo", 30)], [(f.figure_kind, f.bbox) for f in figs]



def test_arrowheads_are_small_filled_triangles_not_cells_or_bars():
    """A diagram's connectors end in arrowheads: small filled triangles. A table's cells, bars and a legend's
    swatches are not."""
    doc, page = _page()
    for i in range(4):
        x = 80 + 120 * i
        page.draw_rect(pymupdf.Rect(x, 120, x + 100, 144), color=None, fill=(0.85, 0.9, 0.95))
        page.draw_line((x + 50, 144), (x + 50, 166), color=(0, 0, 0), width=0.5)
        page.draw_polyline([(x + 47, 165), (x + 53, 165), (x + 50, 170), (x + 47, 165)], color=None, fill=(0, 0, 0),
                           closePath=True)
        page.draw_rect(pymupdf.Rect(x, 200, x + 6, 206), color=None, fill=COLOURS[i])  # a legend's swatch
    from rag.ingest.drawn import arrowheads

    assert arrowheads(_saved(doc).get_drawings()) == 4


def test_a_legend_of_age_classes_names_its_series_whole():
    """Stacked bars whose legend names classes by their bounds ("< 30 years", "30 – 50 years", "> 50 years"): each
    is a series' name, not a label "years" with a value "30 – 50"; the shares printed on the segments take them,
    and so do those printed under the segments of a bar, whose row label is level with the bar, not with them."""
    doc, page = _page()
    page.insert_text((60, 95), "Employees by age", fontsize=10)
    x = 90.0
    for share, colour in zip((0.25, 0.45, 0.30), COLOURS):
        page.draw_rect(pymupdf.Rect(x, 120, x + 300 * share, 134), color=None, fill=colour)
        x += 300 * share
    page.insert_text((60, 131), "2023", fontsize=8)
    for x, text in ((100, "657 (25.3 %)"), (180, "1,158 (44.7 %)"), (320, "777 (30.0 %)")):
        page.insert_text((x, 131), text, fontsize=7, color=(1, 1, 1))
    x = 90.0  # 2022: the values printed under the segments, lower than the row's label
    for share, colour in zip((0.25, 0.45, 0.30), COLOURS):
        page.draw_rect(pymupdf.Rect(x, 140, x + 300 * share, 150), color=None, fill=colour)
        x += 300 * share
    page.insert_text((60, 150), "2022", fontsize=8)
    for x, text in ((100, "637 (24.7 %)"), (180, "1,183 (45.9 %)"), (320, "755 (29.3 %)")):
        page.insert_text((x, 158), text, fontsize=7)
    for i, name in enumerate(("< 30 years", "30 - 50 years", "> 50 years")):  # the base font has no en dash
        page.draw_rect(pymupdf.Rect(90 + 90 * i, 175, 97 + 90 * i, 182), color=None, fill=COLOURS[i])
        page.insert_text((101 + 90 * i, 181), name, fontsize=7)
    page = _saved(doc)
    words = [w[:5] for w in page.get_text("words")]
    reading = chartread.read_chart(words, page.get_drawings(), chart_type="stacked_bar")
    assert reading["legend"] == ["< 30 years", "30 - 50 years", "> 50 years"], reading["legend"]
    pairs = {(v["label"], v["value"]) for v in reading["values"]}
    assert {("30 - 50 years, 2023", "1,158 (44.7 %)"), ("30 - 50 years, 2022", "1,183 (45.9 %)"),
            ("> 50 years, 2022", "755 (29.3 %)")} <= pairs, pairs
    assert not [v for v in reading["values"] if v["label"] in ("years", "<", ">")], reading["values"]


def test_the_value_in_a_donut_s_hole_is_its_total_and_a_share_there_is_not():
    """A donut drawn as a pie with a white disc over its centre: the count printed in the hole is the whole
    ("10,622 employees" is the total); a share printed there (a ring of progress) is not named a total."""
    for centre_text, label in (("10,622 employees", "total employees"), ("48.8%", "")):
        doc, page = _page()
        _donut(page, (200, 300), 60, [0.7, 0.2, 0.1], ["Germany", "Sweden", "Austria"])
        page.insert_text((172, 303), centre_text, fontsize=8)
        page = _saved(doc)
        words = [w[:5] for w in page.get_text("words")]
        reading = chartread.read_chart(words, page.get_drawings(), region=pymupdf.Rect(130, 230, 400, 370),
                                       chart_type="donut")
        value = centre_text.split()[0]
        got = [v["label"] for v in reading["values"] if v["value"] == value]
        assert got and got[0].startswith("total") == bool(label), reading["values"]


def test_a_glyph_drawn_in_a_symbol_font_over_a_chart_is_no_word_of_it():
    """A text layer may hold a ring drawn as one glyph of a symbol font: a "word" of no Latin letter or digit whose
    box covers the chart. It is left out, so each label keeps its own value."""
    words = [(543, 339, 559, 346, "Others"), (580, 339, 589, 346, "13%"), (543, 363, 559, 371, "France"),
             (583, 363, 589, 371, "7%"), (674, 403, 681, 410, "UK"), (718, 403, 728, 410, "31%"),
             (569, 294, 710, 455, "ɗǍၙǍ୰Ǎ̞Ǎ")]
    reading = chartread.read_chart(words, [], chart_type="donut")
    assert {(v["label"], v["value"]) for v in reading["values"]} == {("Others", "13%"), ("France", "7%"),
                                                                     ("UK", "31%")}, reading["values"]


def test_letters_along_a_bar_charts_axis_are_its_categories_not_grades():
    """Energy classes "A", "B" … "H" under the bars of a bar chart are categories that name the values over the
    bars, even where a letter looks like a rating's grade; a grade over a bar stays a value (see the rating chart
    above)."""
    words = []
    for i, cls in enumerate(("A", "B", "C", "D", "E", "F")):
        x = 60 + 40 * i
        words += [(x, 200, x + 8, 208, cls), (x, 150 - 10 * i, x + 16, 158 - 10 * i, f"{5 + 3 * i}.{i}")]
    reading = chartread.read_chart(words, [], chart_type="bar")
    pairs = {(v["label"], v["value"]) for v in reading["values"]}
    assert pairs == {(c, f"{5 + 3 * i}.{i}") for i, c in enumerate("ABCDEF")}, pairs


def test_a_bar_chart_s_units_line_over_its_values_is_no_category():
    """A units line set over a bar chart ("in kg CO2e/m2" "of rentable area") lies right over the first bar's value;
    the bars' categories are on the axis under them, and the values take those."""
    words = [(54, 76, 100, 87, "in kg CO2e/m2"), (102, 76, 151, 86, "of rentable area"),
             (105, 93, 119, 105, "47.2"), (141, 100, 155, 113, "43.1"), (217, 107, 232, 119, "39.5"),
             (255, 117, 269, 129, "35.1"), (121, 209, 137, 219, "2019"), (235, 209, 251, 219, "2020")]
    reading = chartread.read_chart(words, [], chart_type="bar")
    pairs = {(v["label"], v["value"]) for v in reading["values"]}
    assert pairs == {("2019", "47.2"), ("2019", "43.1"), ("2020", "39.5"), ("2020", "35.1")}, pairs
