from rag.config import ChunkingSettings
from rag.ingest import chunking, layout


def _line(text, y, x0=72, size=10, bold=False, cells=None):
    return layout.Line(text, x0, y, x0 + 6 * len(text), y + size, size, bold, cells or [text])


def test_table_row_keeps_label_and_numbers_on_one_line():
    lines = [_line("Net income", 100), _line("2,100", 100, x0=380), _line("1,900", 100, x0=460)]
    rows = layout.reading_order(lines, 612, 1)
    assert len(rows) == 1 and rows[0].is_table
    assert rows[0].text == "Net income | 2,100 | 1,900"


def test_currency_sign_joins_its_number():
    assert layout._join_cells(["Total", "$", "34,229", "$", "35,355"]) == ["Total", "$34,229", "$35,355"]
    assert layout._join_cells(["Worldwide", "$34,229 $", "35,355"]) == ["Worldwide", "$34,229", "$35,355"]


def test_year_header_row_is_detected_and_travels_with_table_chunks():
    rows = [layout.Row("(Millions) | 2022 | 2021", 1, 90, 100, 72, 10, True, ["(Millions)", "2022", "2021"],
                       is_header_row=True)]
    for i in range(60):
        rows.append(layout.Row(f"Item {i} | {i},000 | {i},500", 1, 100 + i * 10, 108 + i * 10, 72, 10, False,
                               [f"Item {i}", f"{i},000", f"{i},500"], is_table=True))
    units = chunking.rows_to_units([rows])
    chunks = chunking.chunk_units(units, ChunkingSettings(min_words=20, target_words=60, max_words=80))
    assert len(chunks) > 2
    for c in chunks:
        assert c.text.splitlines()[0] == "(Millions) | 2022 | 2021"


def test_two_columns_are_read_column_by_column():
    left = [_line("left column words " * 3 + str(i), 100 + 14 * i, x0=50) for i in range(8)]
    right = [_line("right column words " * 3 + str(i), 100 + 14 * i, x0=320) for i in range(8)]
    for l in left + right:
        l.x1 = l.x0 + 250
    rows = layout.reading_order(left + right, 612, 1)
    texts = [r.text for r in rows]
    assert texts[:8] == [l.text for l in left]
    assert texts[8:] == [r.text for r in right]


def test_repeated_headers_and_page_numbers_are_dropped():
    pages, heights = [], []
    for p in range(6):
        pages.append([
            layout.Row("ACME Corp Annual Report 2022", p + 1, 20, 30, 72, 8, False, ["ACME"]),
            layout.Row(f"Body text of page {p}", p + 1, 300, 310, 72, 10, False, ["x"]),
            layout.Row(str(p + 1), p + 1, 760, 770, 300, 8, False, [str(p + 1)]),
        ])
        heights.append(792)
    rep = layout.repeated_margin_texts(pages, heights)
    kept = [layout.drop_margins(r, h, rep) for r, h in zip(pages, heights)]
    assert all(len(k) == 1 and k[0].text.startswith("Body") for k in kept)


def test_section_types_from_headings():
    assert layout.section_type_of("3 Experimental Results") == "results"
    assert layout.section_type_of("2.1 Methodology") == "methods"
    assert layout.section_type_of("Related Work") == "related_work"
    assert layout.section_type_of("6. Conclusions and Future Work") == "conclusion"
    assert layout.section_type_of("Abstract") == "abstract"
    assert layout.section_type_of("Item 8. Financial Statements") is None


def test_chunks_have_no_empty_text_and_respect_max_words():
    rows = [layout.Row("word " * 900, 1, 100, 110, 72, 10, False, ["w"])]
    units = chunking.rows_to_units([rows])
    chunks = chunking.chunk_units(units, ChunkingSettings())
    assert chunks and all(c.text.strip() for c in chunks)
    assert all(c.words <= 350 for c in chunks)


def test_control_and_invisible_characters_go_and_a_soft_hyphen_at_a_line_end_joins_the_word():
    """Issue 36: a BEL drawn as a bullet, a zero-width space, a soft hyphen: never in the stored text."""
    assert layout.clean_text("\x07 Scope 1\u200b emissions") == " Scope 1 emissions"
    assert layout.clean_text("co\u00adoperation", line_end=False) == "cooperation"

    def line(y, *texts):
        x, spans = 72.0, []
        for t in texts:
            spans.append({"text": t, "bbox": (x, y, x + 6 * len(t), y + 10), "size": 10.0, "flags": 0, "font": "Helv"})
            x += 6 * len(t)
        return {"bbox": (72.0, y, x, y + 10), "dir": (1, 0), "spans": spans}

    page = {"blocks": [{"type": 0, "lines": [line(100, "\x07 The fleet was electri\u00ad"),
                                             line(112, "fied across the group.")]}]}
    lines = layout.lines_from_dict(page)
    assert [ln.text for ln in lines] == ["The fleet was electri-", "fied across the group."]
    assert chunking._dehyphen(lines[0].text, lines[1].text) == "The fleet was electrified across the group."


def test_a_heading_drops_the_page_number_printed_before_it_but_keeps_its_own_numbers():
    def w(heading, page):
        return chunking.without_page_number(heading, page, {"environmental and climate protection"})

    assert w("26 Environmental and Climate Protection", 26) == "Environmental and Climate Protection"
    assert w("28 Environmental and Climate Protection", 26) == "Environmental and Climate Protection"  # cover first
    assert w("3.1 Results", 3) == "3.1 Results" and w("5 Results", 12) == "5 Results"
    assert w("Scope 3", 3) == "Scope 3" and w("Item 7", 7) == "Item 7" and w("2023 Highlights", 40) == "2023 Highlights"
    assert w("12 months ended", 12) == "12 months ended"
    assert w("1 Introduction", 1) == "1 Introduction"  # a paper's section, not a running title


def test_a_running_title_is_a_heading_printed_after_the_page_number_on_two_pages_a_section_is_not():
    """The walkthrough's ESG report printed "26 Environmental and Climate Protection" page after page; a paper's
    "1 Introduction" on page 1 and "2 Related work" on page 2 are numbered sections, printed once each (the first
    rule, a number within four of the page, dropped them: rag eval showed the paper's headings changed)."""
    from rag.ingest.layout import Row

    def row(text, page):
        return Row(text=text, page=page, y0=10, y1=20, x0=0, size=12, bold=True, cells=[text], heading_level=1)

    pages = [[row("1 Introduction", 1)], [row("2 Related work", 2)],
             [row("26 Environmental and Climate Protection", 26)], [row("27 Environmental and Climate Protection", 27)]]
    assert chunking.running_titles(pages) == {"environmental and climate protection"}


def test_a_line_end_hyphen_stays_where_the_document_writes_a_compound():
    """Walkthrough 6: "inter-" / "annotator" was joined as "interannotator"; the paper writes "inter-annotator"
    in its lines. A word broken for the line ("evalu-" / "ation") is still joined whole."""
    seen = frozenset({"inter-annotator", "long-form"})
    assert chunking._dehyphen("higher inter-", "annotator agreement", seen) == "higher inter-annotator agreement"
    assert chunking._dehyphen("human evalu-", "ation of", seen) == "human evaluation of"
    assert chunking._dehyphen("human evalu-", "ation of") == "human evaluation of"

    class R:  # the two fields hyphenated_compounds reads of a layout row
        def __init__(self, text):
            self.text = text

    pages = [[R("We report inter-annotator agreement on long-form"), R("summaries, state-of-the-art and pre-")]]
    assert chunking.hyphenated_compounds(pages) == frozenset({"inter-annotator", "long-form"})


def test_a_scale_line_in_the_margin_is_never_a_running_header():
    """"(In thousands)" under each statement's title of an earnings release sits in the top margin on every
    statement page: it is the unit of the page's tables, and stays."""
    pages, heights = [], []
    for p in range(6):
        pages.append([
            layout.Row("ACME Corp", p + 1, 20, 30, 72, 8, False, ["ACME"]),
            layout.Row("(In thousands, except per share data)", p + 1, 40, 50, 72, 8, False, ["(In"]),
            layout.Row(f"Body text of page {p}", p + 1, 300, 310, 72, 10, False, ["x"]),
        ])
        heights.append(792)
    rep = layout.repeated_margin_texts(pages, heights)
    kept = [layout.drop_margins(r, h, rep) for r, h in zip(pages, heights)]
    assert all([k.text for k in r] == ["(In thousands, except per share data)", f"Body text of page {p}"]
               for p, r in enumerate(kept))
