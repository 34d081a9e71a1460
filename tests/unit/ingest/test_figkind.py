"""Figure kinds from the PDF's signals (rag/ingest/figkind.py): axis ticks, periods on a line, and the rules that
keep photos, logos, covers, text blocks and tables from being shown as charts."""

from rag.ingest.figkind import NEVER_SHOWN, Signals, axis_ticks, classify, time_axis


def _words(texts_and_boxes):
    return [(x0, y0, x1, y1, t) for t, (x0, y0, x1, y1) in texts_and_boxes]


def test_axis_ticks_are_evenly_stepped_numbers_in_a_column_or_on_a_line():
    y_axis = _words([("$300", (115, 78, 160, 101)), ("$250", (114, 142, 162, 167)), ("$200", (112, 203, 161, 231)),
                     ("$150", (114, 268, 161, 294)), ("$50", (122, 396, 162, 423)), ("$0", (132, 460, 162, 486))])
    assert axis_ticks(y_axis)  # $100 missed by OCR: the steps are still multiples of 50
    x_axis = _words([("0", (10, 500, 15, 510)), ("0.5", (100, 500, 115, 510)), ("1.0", (200, 500, 215, 510))])
    assert axis_ticks(x_axis)
    amounts = _words([("1,577", (300, 10, 340, 20)), ("6,043", (300, 30, 340, 40)), ("12", (300, 50, 340, 60))])
    assert not axis_ticks(amounts)  # a table's column of amounts
    header = _words([("2021", (100, 5, 130, 15)), ("2022", (200, 5, 230, 15)), ("2023", (300, 5, 330, 15))])
    assert not axis_ticks(header)  # three years on a line: a table's header as often as an axis
    assert time_axis(header)


def _sig(**kw) -> Signals:
    base = dict(source="vector", page=7, rel_area=0.1, aspect=1.5, rel_top=0.3)
    return Signals(**{**base, **kw})


def test_what_is_never_shown():
    assert classify(_sig(source="raster", page=1, rel_area=0.5, white=0.1, colours=900)).kind == "cover"
    assert classify(_sig(source="raster", page=1, rel_area=0.02, words=3)).kind == "logo"
    # a paper's first figure (an eighth of its first page, among the abstract's columns) is no cover
    teaser = _sig(source="raster", page=1, rel_area=0.12, white=0.84, colours=112, words=28, numbers=1)
    assert classify(teaser).kind == "diagram"
    portrait = _sig(source="raster", rel_area=0.03, white=0.2, colours=400, flat=0.5)
    assert classify(portrait).kind == "photo"
    text_block = _sig(drawn="bar", words=300, rows=15, numbers=2, white=0.8)
    assert classify(text_block).kind == "decoration"
    shaded_table = _sig(drawn="bar", words=290, rows=59, table_rows=0, numbers=2, rel_area=0.45)
    assert classify(shaded_table).kind == "table"
    assert {"photo", "logo", "cover", "decoration", "table"} <= NEVER_SHOWN


def test_charts_from_drawings_axis_or_value_labels():
    bars = classify(_sig(drawn="bar", words=7, numbers=3, rel_area=0.035))
    assert (bars.kind, bars.chart_type) == ("chart", "bar")
    stock = classify(_sig(source="raster", rel_area=0.3, words=29, numbers=8, axis=True, time_axis=True, white=0.97))
    assert (stock.kind, stock.chart_type) == ("chart", "line")
    plot = classify(_sig(drawn="scatter", axis=True, words=40, numbers=15, rows=12, table_rows=5))
    assert (plot.kind, plot.chart_type) == ("chart", "scatter")  # tick rows look tabular; the marks say plot
    flow = classify(_sig(drawn="curve", words=150, rows=39, numbers=1))
    assert flow.kind == "diagram"
    assert classify(_sig(source="vector", rel_area=0.02, words=8)).kind == "decoration"  # an icon


def _image(draw) -> bytes:
    """A PNG drawn with PyMuPDF on a white 240 x 100 pt page (two pixels a point)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=240, height=100)
    draw(page)
    return page.get_pixmap(dpi=144).tobytes("png")


def _logo(p) -> None:
    """A company's logo: filled shapes of two colours."""
    import pymupdf

    p.draw_circle((50, 50), 40, color=None, fill=(0.85, 0.1, 0.1))
    p.draw_rect(pymupdf.Rect(100, 20, 230, 80), color=None, fill=(0.1, 0.3, 0.7))


def _letter_page():
    """A document of a cover and a page to draw on (what is on the first page is read as a cover or a logo)."""
    import pymupdf

    doc = pymupdf.open()
    doc.new_page(width=595, height=842)
    return doc, doc.new_page(width=595, height=842)


def test_a_handwritten_signature_under_a_letter_is_decoration_and_a_logo_stays_a_logo():
    """A letter's signature (one ink's thin strokes on white, over the signer's name) and a company's logo (filled
    shapes of two colours) are images of the same size below the page's top: the one is decoration, the other a
    logo; neither is shown."""
    import pymupdf

    from rag.config import IngestSettings
    from rag.ingest import figures
    from rag.ingest.refigure import page_rows

    def signature(p):
        sh = p.new_shape()
        sh.draw_bezier((10, 70), (60, 0), (90, 110), (140, 40))
        sh.draw_bezier((140, 40), (170, 10), (190, 90), (230, 50))
        sh.finish(color=(0.1, 0.1, 0.35), width=1.2, closePath=False)
        sh.commit()

    doc, page = _letter_page()
    page.insert_textbox(pymupdf.Rect(50, 80, 545, 400), "We thank our shareholders for their trust. " * 20, fontsize=10)
    page.insert_image(pymupdf.Rect(60, 430, 180, 480), stream=_image(signature))
    page.insert_text((60, 495), "Jane Doe, Chief Executive Officer", fontsize=9)
    page.insert_image(pymupdf.Rect(360, 600, 480, 650), stream=_image(_logo))
    saved = pymupdf.open(stream=doc.tobytes(), filetype="pdf")[1]
    figs = figures.extract_figures(saved, 2, page_rows(saved), set(), IngestSettings(ocr=False), set())
    kinds = {round(f.bbox[1]): f.figure_kind for f in figs}
    assert kinds == {430: "decoration", 600: "logo"}, [(f.bbox, f.figure_kind, f.kind_why) for f in figs]


def test_a_black_and_white_portrait_on_white_is_a_photo_and_a_logo_of_its_size_a_logo():
    """A board member's portrait cut out on white (grey tones graded into each other, no text) and a logo (flat
    shapes, sharp edges) of the same size: the one a photo, the other a logo; neither is shown."""
    import numpy as np
    import pymupdf

    from rag.config import IngestSettings
    from rag.ingest import figures
    from rag.ingest.refigure import page_rows

    h, w = 231, 197
    y, x = np.mgrid[0:h, 0:w]
    grey = np.full((h, w), 255.0)
    figure = ((x - 98) / 55) ** 2 + ((y - 80) / 65) ** 2 <= 1  # a head
    figure |= (y > 140) & (np.abs(x - 98) < 30 + (y - 140))  # shoulders
    tones = 60 + 120 * (x / w) + 40 * np.sin(y / 17) + np.random.default_rng(7).normal(0, 3, (h, w))
    grey[figure] = np.clip(tones, 0, 230)[figure]
    portrait = pymupdf.Pixmap(pymupdf.csGRAY, w, h, grey.astype(np.uint8).tobytes(), False).tobytes("png")

    doc, page = _letter_page()
    page.insert_textbox(pymupdf.Rect(50, 300, 545, 600), "We thank our shareholders for their trust. " * 20,
                        fontsize=10)
    page.insert_image(pymupdf.Rect(61, 130, 156, 240), stream=portrait)
    page.insert_image(pymupdf.Rect(360, 650, 455, 700), stream=_image(_logo))
    saved = pymupdf.open(stream=doc.tobytes(), filetype="pdf")[1]
    figs = figures.extract_figures(saved, 2, page_rows(saved), set(), IngestSettings(ocr=False), set())
    kinds = {round(f.bbox[1]): f.figure_kind for f in figs}
    assert sorted(kinds.values()) == ["logo", "photo"] and kinds[130] == "photo", [(f.bbox, f.figure_kind)
                                                                                    for f in figs]


def test_shaded_boxes_full_of_words_are_a_table_unless_arrows_join_them():
    """An organisation chart's boxes hold names, as a table's shaded cells hold its labels; its connectors end in
    arrowheads, which no table draws."""
    boxes = dict(drawn="stacked_bar", words=96, rows=29, numbers=0, rel_area=0.2, white=0.7, colours=86)
    assert classify(_sig(**boxes)).kind == "table"
    assert classify(_sig(**boxes, arrows=14)).kind == "diagram"
