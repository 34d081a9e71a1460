"""The figure classifier on the 200 labelled figures of the corpus (tests/fixtures/figure_labels.tsv), read from
the real PDFs as ingestion reads them (text rows, drawings, the rendered crop, OCR of images). The floors are below
what bench/bench_figure_kinds.py measures, so a change that breaks a kind fails here; the bench reports the
figures themselves."""

import pytest

from conftest import CORPUS, corpus_or_skip


@pytest.fixture(scope="module")
def classified():
    from rag.eval_figures import classify_labelled, read_labels, summary

    corpus_or_skip("financebench-dev", "3M_2016_10K.pdf")
    rows = classify_labelled(read_labels(), CORPUS)
    return rows, summary(rows)


def test_kinds_of_the_labelled_figures(classified):
    _, s = classified
    assert s["figures"] >= 60
    assert s["accuracy"] >= 0.8, s["confusion"]
    assert s["per_kind"]["photo"]["recall"] >= 0.9 and s["per_kind"]["logo"]["recall"] >= 0.9
    assert s["per_kind"]["chart"]["recall"] >= 0.75 and s["per_kind"]["chart"]["precision"] >= 0.75


def test_what_must_never_be_shown_is_rarely_classified_showable(classified):
    rows, s = classified
    assert s["never_shown_kinds_classified_showable"] <= 0.08 * s["never_shown_kinds_labelled"], s["wrongly_showable"]
    # no photo of a person and no logo is ever classified a chart
    assert not [r for r in rows if r["kind"] in ("photo", "logo") and r["pred"] == "chart"]


def test_crops_slice_less_text_and_never_take_another_figure():
    """The crops of the labelled figures now against the region-plus-margin crops of before, in the same run."""
    from rag.eval_figures import crop_quality, crop_summary, read_labels

    corpus_or_skip("financebench-dev", "3M_2016_10K.pdf")
    s = crop_summary(crop_quality(read_labels(), CORPUS))
    for group in ("all", "chart_diagram_map"):
        before, now = s[group]["before"], s[group]["now"]
        assert now["lines_sliced"] <= 0.6 * before["lines_sliced"], s
        assert now["crops_slicing_text"] <= 0.6 * before["crops_slicing_text"], s
        assert now["crops_with_part_of_another_figure"] == 0, s


@pytest.mark.parametrize("path, page, rect, wanted, unwanted", [
    # a stock-performance chart in its box: the index-value table set right below it stays out
    ("financebench/AMD_2022_annualreport.pdf", 50, (84, 170, 530, 470), ["Comparison of Cumulative"], ["Base Period"]),
    # a donut whose title, unit line and callouts are page text around the drawing
    ("esg/vonovia_sustainability_report_2020.pdf", 41, (54, 631, 292, 775),
     ["86% of New Buildings", "Breakdown in %", "14.1%", "efficiency class A+"], ["building plots"]),
    # a paper's chart: its caption below, not the paragraph around it
    ("papers/strain_sensor_cmos.pdf", 7, (313, 498, 551, 663), ["Figure 15"], ["three times higher"]),
])
def test_a_crop_holds_the_title_and_labels_and_not_its_neighbours(path, page, rect, wanted, unwanted):
    import pymupdf

    from rag.eval_figures import read_labels
    from rag.ingest import crop as cropmod
    from rag.ingest import figures as figmod

    corpus_or_skip(*path.split("/"))
    labels = [lab for lab in read_labels() if lab["path"] == path and int(lab["page"]) == page]
    rects = [pymupdf.Rect(*(float(lab[k]) for k in ("x0", "y0", "x1", "y1"))) for lab in labels]
    mine = min(rects, key=lambda r: abs(r.x0 - rect[0]) + abs(r.y0 - rect[1]))
    with pymupdf.open(CORPUS / path) as doc:
        pg = doc[page - 1]
        drawings = figmod.page_drawings(pg)
        graphic = cropmod.graphic_of(mine, False, drawings)
        crop = cropmod.tight_crop(pg, graphic, cropmod.text_lines(pg), cropmod.framed(graphic, drawings),
                                  [r for r in rects if r != mine])
        text = " ".join(pg.get_textbox(crop).split())
    for w in wanted:
        assert w in text, (w, text[:300])
    for u in unwanted:
        assert u not in text, (u, text[:300])


def test_a_materiality_matrix_titled_on_its_vertical_axis_is_a_chart_and_value_chains_labelled_on_end_are_not():
    """ATOSS's materiality matrix (bubbles, no tick numbers, its vertical axis titled on end) is a chart; Addiko's
    value chain and governance chain, several of whose labels are set on end, stay diagrams."""
    import pymupdf

    from rag.config import Settings
    from rag.ingest import figures
    from rag.ingest.refigure import page_rows

    corpus_or_skip("esg", "atoss_sustainability_report_2023.pdf")

    def kinds(path: str, page_no: int, box: tuple) -> list[str]:
        doc = pymupdf.open(CORPUS / path)
        page = doc[page_no - 1]
        figs = figures.extract_figures(page, page_no, page_rows(page), figures.repeated_image_digests(doc),
                                       Settings().ingest, set())
        return [f.figure_kind for f in figs if pymupdf.Rect(f.bbox).intersects(pymupdf.Rect(box))]

    assert "chart" in kinds("esg/atoss_sustainability_report_2023.pdf", 7, (109, 211, 519, 507))
    assert "chart" not in kinds("esg/addiko_sustainability_report_2023.pdf", 14, (35, 189, 550, 756))
    assert "chart" not in kinds("esg/addiko_sustainability_report_2023.pdf", 33, (121, 150, 236, 757))


def _page_figures(path: str, page_no: int):
    """The figures ingestion finds on one page of a corpus document, and the page."""
    import pymupdf

    from rag.config import Settings
    from rag.ingest import figures
    from rag.ingest.refigure import page_rows

    corpus_or_skip(*path.split("/"))
    doc = pymupdf.open(CORPUS / path)
    page = doc[page_no - 1]
    return page, figures.extract_figures(page, page_no, page_rows(page), figures.repeated_image_digests(doc),
                                         Settings().ingest, set())


def test_a_ring_whose_arcs_read_as_bars_holding_its_labels_is_a_donut_not_a_table():
    """MTU's shareholder structure by region: a ring drawn as thick arcs, its labels and values inside the arcs'
    boxes, reads as bars holding words (a table's shaded cells); its pixels show the ring, so it is a donut."""
    import pymupdf

    page, figs = _page_figures("esg/mtu_aero_engines_annual_report_2023.pdf", 17)
    ring = [f for f in figs if pymupdf.Rect(f.bbox).intersects(pymupdf.Rect(560, 330, 700, 440))]
    assert [(f.figure_kind, f.chart_type) for f in ring] == [("chart", "donut")], [(f.bbox, f.chart_type) for f in figs]


def test_a_page_of_a_chart_a_table_and_a_donut_keeps_each_to_itself():
    """MTU's share page: a line chart on a white box of its own (no reader sees the box) with its legend set beside
    it and a title over a parenthetical line; a table whose current-year column is shaded, its row rules drawn
    through the shading; the shareholder donut set just right of the table's last column.
    - The shaded column is the table's, no stacked bar.
    - The line chart's crop takes its legend and its two-line title, and it is named by both lines.
    - The donut's crop takes none of the table's cells, its column head included."""
    import pymupdf

    page, figs = _page_figures("esg/mtu_aero_engines_annual_report_2023.pdf", 17)
    charts = sorted((f for f in figs if f.figure_kind == "chart"), key=lambda f: f.bbox[0])
    assert [f.chart_type for f in charts] == ["line", "donut"], [(f.bbox, f.figure_kind, f.chart_type) for f in figs]
    line, donut = charts
    assert line.caption.startswith("[T3] MTU share performance") and "(indexed" in line.caption, line.caption
    shown = page.get_textbox(pymupdf.Rect(line.crop))
    assert "Stoxx Europe" in shown and "DAX" in shown and "[T3]" in shown, shown
    shown = page.get_textbox(pymupdf.Rect(donut.crop))
    assert "USA" in shown and "Retail investors" in shown, shown
    assert not any(cell in shown for cell in ("216.20", "2022", "+13", "10,808", "Stoxx")), shown


def test_a_stacked_bar_with_its_values_set_either_side_is_no_table_s_column():
    """freenet's broadcasting channels: two stacked bars whose values are set left and right of them, in rows the
    page reads as table rows running through the bars. No row has a label of words: it is the chart, not a table's
    shaded column."""
    import pymupdf

    _, figs = _page_figures("esg/freenet_annual_report_2023.pdf", 28)
    bars = [f for f in figs if pymupdf.Rect(f.bbox).intersects(pymupdf.Rect(150, 500, 210, 600))]
    assert [(f.figure_kind, f.chart_type) for f in bars] == [("chart", "stacked_bar")], \
        [(f.bbox, f.figure_kind) for f in figs]


def test_a_10_k_s_timeline_drawn_as_shaded_cells_is_a_chart_read_row_by_row():
    """Boeing's programme timeline: each row a run of grey cells from go-ahead to first delivery, in a framed grid
    whose rows the page reads as a table's. It is one chart, and each row reads as its model, start and end."""
    from rag.ingest.chartread import reading_line

    _, figs = _page_figures("financebench-dev/BOEING_2018_10K.pdf", 31)
    charts = [f for f in figs if f.figure_kind == "chart"]
    assert [(f.chart_type, f.caption) for f in charts] == [("other", "Go-ahead and Initial Delivery")], \
        [(f.figure_kind, f.chart_type, f.bbox) for f in figs]
    reading = reading_line(charts[0].ocr_text)
    assert "737 MAX 7: 2011 – 2019" in reading and "737 MAX 10: 2017 – 2020" in reading, reading


def test_a_release_s_letterhead_wordmark_is_found_as_a_logo():
    _, figs = _page_figures("financebench-more/FOOTLOCKER_2022_8K_dated_2022-08-19.pdf", 5)
    assert [f.figure_kind for f in figs] == ["logo"], [(f.figure_kind, f.bbox) for f in figs]


def test_thin_stacked_bars_crop_takes_their_legend_and_their_numbered_title_over_the_units_line():
    """freenet's broadcasting channels: two thin stacked bars; their legend, two columns of keys of the bars' own
    colours, is centred under the figure, wider than the bars; over them "In %" and, past a rule, "Figure 9: …"."""
    import pymupdf

    page, figs = _page_figures("esg/freenet_annual_report_2023.pdf", 28)
    bars = [f for f in figs if pymupdf.Rect(f.bbox).intersects(pymupdf.Rect(150, 500, 210, 600))]
    shown = page.get_textbox(pymupdf.Rect(bars[0].crop))
    assert all(w in shown for w in ("Figure 9", "In %", "Connected TV Only", "Satellite", "Terrestrial")), shown
    assert "landlord" not in shown and "cable network operator" not in shown, shown


def test_an_organisation_chart_of_boxes_joined_by_arrows_is_a_diagram_not_a_table():
    _, figs = _page_figures("esg/freenet_annual_report_2023.pdf", 43)
    assert [f.figure_kind for f in figs if f.caption.startswith("Figure 11")] == ["diagram"], \
        [(f.figure_kind, f.caption[:30]) for f in figs]


def test_a_share_price_charts_legend_of_thin_bars_is_read_and_tells_it_from_the_chart_below():
    """freenet's share against its benchmarks: a line chart whose legend under the months is five thin bars of the
    lines' colours. The legend is read, and the reading names the benchmarks, which tells this chart from the
    plain share price chart below it."""
    from rag.ingest.chartread import reading_line

    _, figs = _page_figures("esg/freenet_annual_report_2023.pdf", 12)
    bench = next(f for f in figs if f.caption.startswith("Figure 2"))
    assert bench.signals["reading"]["legend"] == ["freenet", "SXKGR", "MDAX", "TecDAX", "Peers"], bench.signals
    assert "series: freenet, SXKGR, MDAX, TecDAX, Peers" in reading_line(bench.ocr_text)
    plain = next(f for f in figs if f.caption.startswith("Figure 3"))
    assert "MDAX" not in (plain.ocr_text or "")
