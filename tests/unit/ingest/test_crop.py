"""Crops (rag/ingest/crop.py) on a real PDF page built with pymupdf: two vector charts side by side, each with its
title set above as page text, values over the bars, year labels, a legend and a caption, between paragraphs of
prose. A crop holds its chart, labels, title and caption, and never slices prose or takes part of its neighbour.
A cited table row shows its whole table in the citation view (rag/crops.py)."""

import pymupdf

from rag.crops import region_png, table_around
from rag.ingest import crop as cropmod
from rag.ingest import figures as figmod
from make_pdfs import make_10k

PROSE = ("The group reduced its emissions again this year, mainly through the switch to green electricity at "
         "its plants and the renewal of the vehicle fleet, as the following charts show for each scope.")


def _paragraph(page, y: float, lines: int = 3) -> float:
    words = PROSE.split()
    for i in range(lines):
        page.insert_text((50, y), " ".join(words[i * 10 % len(words):][:11]), fontsize=9)
        y += 11
    return y


def _chart(page, x0: float, y0: float, title: str, values: list[float]) -> pymupdf.Rect:
    """A bar chart: title above as page text, bars with values on top, year labels, legend, caption."""
    page.insert_text((x0, y0), title, fontsize=11, fontname="hebo")
    base, w = y0 + 110, 34
    for i, v in enumerate(values):
        bx = x0 + 10 + i * (w + 16)
        page.draw_rect(pymupdf.Rect(bx, base - v, bx + w, base), color=None, fill=(0.2, 0.5, 0.3))
        page.insert_text((bx + 6, base - v - 4), f"{v:.0f}", fontsize=8)
        page.insert_text((bx + 4, base + 11), str(2021 + i), fontsize=8)
    page.draw_line((x0 + 5, base), (x0 + 10 + 3 * (w + 16), base), color=(0, 0, 0))
    page.insert_text((x0 + 10, base + 25), "Scope 1", fontsize=8)
    page.insert_text((x0 + 10, base + 40), "Source: company data.", fontsize=7)
    return pymupdf.Rect(x0 + 5, base - max(values), x0 + 10 + 3 * (w + 16), base)


def _page():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = _paragraph(page, 80, 4)
    left = _chart(page, 50, y + 24, "Scope 1 emissions (t)", [60, 75, 90])
    right = _chart(page, 230, y + 24, "Scope 2 emissions (t)", [80, 50, 40])
    _paragraph(page, left.y1 + 70, 4)
    return doc, page, left, right


def _prose_lines(lines):
    return [ln for ln in lines if ln.prose]


def test_a_chart_crop_holds_title_labels_legend_and_caption_but_no_prose_and_no_neighbour():
    doc, page, left, right = _page()
    lines = cropmod.text_lines(page)
    assert len(_prose_lines(lines)) >= 6
    drawings = figmod.page_drawings(page)
    for mine, other, title in ((left, right, "Scope 1 emissions"), (right, left, "Scope 2 emissions")):
        graphic = cropmod.graphic_of(mine + (-2, -2, 2, 2), False, drawings)
        crop = cropmod.tight_crop(page, graphic, lines, False, [other])
        text = page.get_textbox(crop)
        assert title in text and "2021" in text and "2023" in text and "Scope 1" in text and "Source" in text
        assert "emissions again" not in text and "following charts" not in text
        assert not crop.intersects(other)
        for ln in _prose_lines(lines):
            assert not crop.intersects(ln.rect), ln.text
    doc.close()


def test_a_line_of_prose_is_told_from_a_long_title():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 60), "Share of New Buildings Completed in Germany With Efficiency Class A", fontsize=12,
                     fontname="hebo")
    _paragraph(page, 100, 3)
    lines = cropmod.text_lines(page)
    title = [ln for ln in lines if ln.text.startswith("Share")][0]
    assert not title.prose
    assert sum(ln.prose for ln in lines) == 3
    doc.close()


def test_a_cited_table_row_shows_its_whole_table_with_title_and_header(tmp_path):
    pdf = make_10k(tmp_path / "acme.pdf")
    with pymupdf.open(pdf) as doc:
        page = doc[3]
        row = page.search_for("Inventories")[0]
        box, room = table_around(page, row)
        text = page.get_textbox(box)
        assert "Consolidated Balance Sheet" in text and "(Millions)" in text
        assert "Cash and cash equivalents" in text and "Total equity" in text
        assert "pensions" not in text  # the paragraph after the table
        assert room.contains(box)
        prose = page.search_for("Amounts recognized")[0]
        assert not (box + (-8, -8, 8, 8) & room).intersects(prose)
        assert table_around(page, prose) is None
    png = region_png(pdf.read_bytes(), 4, "Inventories | 4,366 | 4,034")
    with pymupdf.open(stream=png, filetype="png") as img:
        assert img[0].rect.height < 842 * 110 / 72 * 0.6  # the table, not the page


def test_charts_side_by_side_each_take_their_own_title_not_the_row_that_runs_across_both():
    """The two charts' titles sit on one baseline, so the page's reading-order row runs across both ("Scope 1
    emissions (t) Scope 2 emissions (t)"): each chart is named by its own share of the row, as its crop holds it."""
    from rag.config import Settings
    from rag.ingest.refigure import page_rows

    doc, page, left, right = _page()
    figs = figmod.extract_figures(page, 1, page_rows(page), set(), Settings().ingest, set())
    assert sorted(f.caption for f in figs) == ["Scope 1 emissions (t)", "Scope 2 emissions (t)"]
    doc.close()


def test_a_chart_captioned_below_does_not_take_the_caption_of_the_chart_above_it():
    """Papers caption each figure under it: "Fig. 9." under the lower chart; "Fig. 8." ends the chart above it.
    The lower chart's crop holds its own caption, never the one above."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for top, n in ((100, 8), (260, 9)):
        for i, h in enumerate((40, 60, 80)):
            page.draw_rect(pymupdf.Rect(100 + 60 * i, top + 90 - h, 140 + 60 * i, top + 90), color=None,
                           fill=(0.2, 0.4, 0.7))
            page.insert_text((110 + 60 * i, top + 102), str(2021 + i), fontsize=8)
        page.insert_text((80, top + 125), f"Fig. {n}. Readers' answers with and without the tool", fontsize=9)
    from rag.config import Settings
    from rag.ingest.refigure import page_rows

    figs = figmod.extract_figures(page, 1, page_rows(page), set(), Settings().ingest, set())
    lower = next(f for f in figs if f.bbox[1] > 250)
    text = page.get_textbox(pymupdf.Rect(lower.crop))
    assert "Fig. 9." in text and "Fig. 8." not in text
    doc.close()


def test_an_image_close_under_another_figure_s_caption_takes_only_its_own_caption_below_it():
    """Two images stacked close, each captioned below: the upper's caption ends 26 pt over the lower image, whose own
    caption starts 20 pt under it. Both are in a caption's reach, but a figure has one numbered caption: the nearer."""
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 300, 150), False)
    pix.set_rect(pix.irect, (240, 240, 250))
    pix.set_rect(pymupdf.IRect(20, 40, 80, 140), (30, 80, 160))
    pix.set_rect(pymupdf.IRect(120, 70, 180, 140), (200, 90, 30))
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_image(pymupdf.Rect(80, 100, 500, 160), pixmap=pix)
    page.insert_text((80, 184), "Fig. 6. Number of readers who used each feature for each minute of reading.",
                     fontsize=8)
    page.insert_text((80, 194), "Readers had access to all features.", fontsize=8)
    page.insert_image(pymupdf.Rect(120, 220, 430, 372), pixmap=pix)
    page.insert_text((80, 396), "Fig. 7. Number of readers who used each feature across the variants of the tool.",
                     fontsize=8)
    from rag.config import Settings
    from rag.ingest.refigure import page_rows

    figs = figmod.extract_figures(page, 2, page_rows(page), set(), Settings().ingest, set())
    lower = next(f for f in figs if f.bbox[1] > 200)
    text = page.get_textbox(pymupdf.Rect(lower.crop))
    assert "Fig. 7." in text and "Fig. 6." not in text and "access to all" not in text, text
    doc.close()


def test_thin_stacked_bars_take_their_wide_legend_and_their_numbered_title_over_a_units_line():
    """Two thin stacked bars (8 pt wide) of five colours: their legend, two columns of keys of those five colours,
    is centred under the figure, wider than the bars and farther off than a legend set under a bar; over them a
    units line ("In %") and, over that, the numbered title. The crop holds the legend and the title."""
    colours = [(0.85, 0.85, 0.85), (0.03, 0.13, 0.26), (0.52, 0.74, 0.2), (0.34, 0.34, 0.34), (0.53, 0.53, 0.53)]
    names = ["Terrestrial", "Cable", "Satellite", "IPTV (managed)", "Connected TV only"]
    doc = pymupdf.open()
    doc.new_page(width=595, height=842)  # a cover: what is on the first page is read as a cover or a logo
    page = doc.new_page(width=595, height=842)
    page.insert_text((74, 390), "Figure 9: Distribution of broadcasting channels", fontsize=8.5)
    page.insert_text((74, 401), "for linear television", fontsize=8.5)
    page.draw_line((74, 411), (289, 411), color=(0.03, 0.13, 0.26), width=0.5)
    page.insert_text((77, 430), "In %", fontsize=7.5)
    page.draw_line((74, 433), (289, 433), color=(0.03, 0.13, 0.26), width=0.5)
    for x, shares in ((139, (3, 40, 40, 11, 6)), (216, (3, 37, 40, 12, 8))):
        y = 454.0
        for share, colour in zip(shares, colours):
            page.draw_rect(pymupdf.Rect(x, y, x + 8, y + 1.7 * share), color=None, fill=colour)
            if share >= 6:
                page.insert_text((x - 18 if x < 200 else x + 14, y + 1.7 * share / 2 + 3), str(share), fontsize=7.5)
            y += 1.7 * share
        page.insert_text((x - 4, y + 14), "2022" if x < 200 else "2023", fontsize=7.5)
    sh = page.new_shape()  # the two brackets of "IP-based" (the two lower segments of each bar), one path
    for a, b in (((151, 594), (151, 624)), ((149, 594), (153, 594)), ((149, 624), (153, 624)),
                 ((213, 594), (213, 624)), ((211, 594), (215, 594)), ((211, 624), (215, 624))):
        sh.draw_line(a, b)
    sh.finish(color=(0, 0, 0), width=0.5)
    sh.commit()
    page.insert_text((167, 612), "IP-based", fontsize=7.5)
    for i, (name, colour) in enumerate(zip(names, colours)):
        x, y = (186, 666 + 14 * i) if i < 2 else (90, 666 + 14 * (i - 2))
        page.draw_rect(pymupdf.Rect(x, y, x + 5.7, y + 5.7), color=None, fill=colour)
        page.insert_text((x + 10, y + 6), name, fontsize=7.5)
    page.draw_line((74, 723), (289, 723), color=(0.03, 0.13, 0.26), width=0.5)
    for i in range(12):
        page.insert_text((306, 380 + 11 * i), PROSE[i * 7 % 60:][:50], fontsize=8.5)
    from rag.config import Settings
    from rag.ingest.refigure import page_rows

    figs = [f for f in figmod.extract_figures(page, 2, page_rows(page), set(), Settings().ingest, set())
            if f.figure_kind == "chart"]
    assert len(figs) == 1, [(f.figure_kind, f.bbox) for f in figs]
    text = page.get_textbox(pymupdf.Rect(figs[0].crop))
    assert all(n in text for n in names) and "Figure 9" in text and "In %" in text, text
    doc.close()


def test_an_image_padded_with_white_to_the_page_edge_is_cropped_to_what_it_shows():
    """A chart exported as an image with wide white margins, placed from the page's left edge to the column's: its
    crop starts where the image shows something (its bars, the values set over it), not at the page's edge; the
    sides within the page keep the image's own layout, and an image with no margin keeps its box."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 300, 160), False)
    pix.set_rect(pix.irect, (255, 255, 255))
    for i, top in enumerate((40, 60, 50)):
        pix.set_rect(pymupdf.IRect(90 + 50 * i, top, 120 + 50 * i, 140), (150, 20, 40))
    page.insert_image(pymupdf.Rect(0, 200, 300, 360), pixmap=pix)
    page.insert_text((92, 236), "189,015", fontsize=7)
    saved = pymupdf.open(stream=doc.tobytes(), filetype="pdf")[0]
    shown = cropmod.content_of(saved, pymupdf.Rect(0, 200, 300, 360))
    assert 84 <= shown.x0 <= 92 and (shown.y0, shown.x1, shown.y1) == (200, 300, 360), shown
    pix.set_rect(pix.irect, (20, 60, 120))
    full = pymupdf.Rect(300, 400, 500, 500)
    page.insert_image(full, pixmap=pix)
    assert cropmod.content_of(pymupdf.open(stream=doc.tobytes(), filetype="pdf")[0], full) == full


def _line_chart_on_box(page, fill) -> pymupdf.Rect:
    """A line chart drawn on a box of its own (as a design tool exports it), its legend set beside the box."""
    page.draw_rect(pymupdf.Rect(56, 180, 342, 312), color=None, fill=fill)
    for k, y in enumerate((120, 150, 200)):
        pts = [pymupdf.Point(80 + 25 * i, 200 + (y / 3 + 7 * i * (k - 1)) % 80) for i in range(10)]
        page.draw_polyline(pts, color=(0.1 * k, 0.3, 0.8 - 0.2 * k), width=1.2)
    for i, v in enumerate((140, 120, 100, 80)):
        page.insert_text((60, 196 + 25 * i), str(v), fontsize=7)
        page.draw_line((75, 194 + 25 * i), (335, 194 + 25 * i), color=(0.8, 0.8, 0.8), width=0.3)
    for i, (name, colour) in enumerate((("MTU", (0, 0.3, 0.8)), ("DAX", (0.1, 0.3, 0.6)), ("Index", (0.2, 0.3, 0.4)))):
        page.insert_text((360, 232 + 17 * i), name, fontsize=7)
        page.draw_rect(pymupdf.Rect(392, 226 + 17 * i, 398, 232 + 17 * i), color=None, fill=colour)
    page.insert_text((57, 160), "Share price against two indices (indexed)", fontsize=9, fontname="hebo")
    return pymupdf.Rect(75, 190, 336, 290)


def test_a_chart_on_a_box_no_reader_sees_takes_its_legend_set_beside_the_box():
    """A white box on a white page is the chart's own background, not a panel: the legend beside it and the title
    over it are the chart's. A tinted panel is seen, and what belongs to its chart is on it."""
    for fill, legend_in in (((1, 1, 1), True), ((0.85, 0.9, 0.97), False)):
        doc = pymupdf.open()
        page = doc.new_page(width=842, height=595)
        region = _line_chart_on_box(page, fill)
        saved = pymupdf.open(stream=doc.tobytes(), filetype="pdf")[0]
        crop = cropmod.display_crop(saved, region, False, cropmod.text_lines(saved), figmod.page_drawings(saved), [])
        text = saved.get_textbox(crop)
        assert ("MTU" in text and "Index" in text) is legend_in, (fill, crop)
        assert ("Share price against" in text) is legend_in, (fill, crop)


def test_a_table_set_beside_a_chart_lends_it_no_cells_not_even_its_column_head():
    """A table of share data ends in a column ("2022") set just left of a bar chart: its cells sit in the band
    where an axis's values would, but their rows run on to the table's labels, so none is the chart's."""
    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)

    def right(x1: float, y: float, text: str) -> None:  # a table's figures are set flush right
        page.insert_text((x1 - pymupdf.get_text_length(text, fontsize=7), y), text, fontsize=7)

    right(345, 362, "2023")
    right(409, 362, "2022")
    rows = (("Highest price for the year", "244.50", "216.20"), ("Lowest price for the year", "161.20", "153.20"),
            ("Year-end price", "195.25", "202.20"), ("Performance over the year", "-3.44", "+13"))
    for i, (label, a, b) in enumerate(rows):
        y = 376 + 13 * i
        page.insert_text((57, y), label, fontsize=7)
        page.insert_text((226, y), "EUR", fontsize=7)
        right(345, y, a)
        right(409, y, b)
    for i, h in enumerate((50, 70, 60)):
        page.draw_rect(pymupdf.Rect(440 + 40 * i, 430 - h, 465 + 40 * i, 430), color=None, fill=(0.1, 0.4, 0.7))
        page.insert_text((444 + 40 * i, 440), str(2017 + i), fontsize=7)
    for i, v in enumerate((0, 50, 100)):
        page.insert_text((425, 432 - 0.7 * v), str(v), fontsize=7)
    lines = cropmod.text_lines(page)
    crop = cropmod.display_crop(page, pymupdf.Rect(440, 360, 545, 430), False, lines, figmod.page_drawings(page), [])
    text = page.get_textbox(crop)
    assert "2017" in text and "100" in text, crop
    assert crop.x0 > 412 and not any(c in text for c in ("2022", "216.20", "+13", "202.20")), (crop, text)
    doc.close()
