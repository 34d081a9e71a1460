"""The answer layer without a database: the confidence policy, figure placement, refusals, the extractive
composition and the tools' schemas, on hand-built records."""

import pytest
from hand_built import cand, doc, figure, hit

from rag.assistant import tools
from rag.answer.extractive import compose, units_of
from rag.answer.figure_choice import asked_chart, place_figures
from rag.answer.finalize import Checks, confidence_policy, insufficient
from rag.answer.model import Answer, Evidence
from rag.config import AnswerSettings, RetrievalSettings
from rag.records import Refusal
from rag.retrieve.pipeline import Retrieval
from rag.retrieve.query import understand
from rag.retrieve.trace import Trace

CFG = AnswerSettings()


def place(figures, a, names=None):
    return place_figures(figures, a, names, linked_bonus=RetrievalSettings().selection.linked_figure_bonus)


def checks(**kw) -> Checks:
    base = dict(relevance=0.6, threshold=0.3, numbers_total=1, numbers_verified=1, quotes_ok=True, passages=1,
                documents=1, years_asked=True, years_ok=True, dropped=0, asks_quantity=True, best_unit=1.0)
    return Checks(**{**base, **kw})


def test_confidence_high_needs_every_check_and_strong_evidence():
    level, reasons = confidence_policy(checks(), CFG)
    assert level == "high"
    assert reasons == ["best cited passage relevance 0.60 (threshold 0.30)", "1 of 1 numbers found in the cited "
                       "evidence", "every quote found in its passage", "1 passage(s) from 1 document(s)",
                       "the cited documents are of the year asked"]


@pytest.mark.parametrize("kw,level", [
    ({"relevance": 0.5}, "medium"),
    ({"best_unit": 0.5}, "medium"),
    ({"relevance": 0.35}, "low"),
    ({"numbers_verified": 0}, "low"),
    ({"quotes_ok": False}, "low"),
    ({"years_ok": False}, "low"),
    ({"dropped": 1}, "low"),
    ({"numbers_total": 0, "numbers_verified": 0}, "low"),  # asked how much; no number given
    ({"numbers_total": 0, "numbers_verified": 0, "asks_quantity": False}, "high"),
])
def test_confidence_falls_with_each_failed_check(kw, level):
    assert confidence_policy(checks(**kw), CFG)[0] == level


def _retrieval(question: str, chunks, refusal=None, figures=()) -> Retrieval:
    return Retrieval(question, understand(question), list(chunks), list(figures), Trace(), refusal, list(chunks))


def on_page(f, page: int):
    f.page = page
    return f


def test_a_chart_on_the_page_of_a_cited_passage_is_that_passages_chart():
    """Ingestion links a figure to one passage of its page; the answer may cite another. The chart printed on
    the cited page is shown with it, and says so; one on another page of the document is not."""
    c1 = cand(1)  # p. 1 of document 1
    a = Answer("Breakdown of Acme's emissions into scope 1, 2 and 3", "Scope 1 was 48.8% [1].", "medium",
               evidence=[Evidence.of(c1, 1, "scope")])
    donut = figure(1, 2, 0.5, True, 1, "Carbon emissions: Scope 1 48.8%, Scope 2 37.5%, Scope 3 13.7%",
                   chart_type="donut")
    elsewhere = on_page(figure(2, 3, 0.6, True, 1, "Scope 1 emissions by year", chart_type="bar"), 9)
    placed = place([donut, elsewhere], a, ["Acme"])
    assert [f.figure_id for f in placed] == [1]
    assert "on the page of the cited passage [1]" in placed[0].why_shown


def test_a_figure_goes_after_the_paragraph_that_cites_its_chunk():
    c1, c2 = cand(1), cand(2, doc(2, "Globex Industries Inc"))
    a = Answer("What were Acme's and Globex's net sales?", "**Acme**: sales [1].\n\n**Globex**: sales [2].",
               "medium", evidence=[Evidence.of(c1, 1, "sales"), Evidence.of(c2, 2, "sales")])
    placed = place([figure(1, 2, 0.5, True, 2, "Net sales by year", chart_type="bar"),
                            figure(2, 1, 0.6, True, 1, "Net sales by region", kind="photo"),
                            figure(3, 1, 0.6, True, 1, "Our people"),
                            on_page(figure(4, 99, 0.7, False, 1, "Net sales by quarter"), 7)], a)
    # 2 is a photo; 3 does not name the measure; 4 is neither linked to a cited passage nor on its page, and no
    # chart was asked for
    assert [(f.figure_id, f.after_paragraph) for f in placed] == [(1, 1)]
    assert placed[0].document == "Globex Industries 10-K FY2022" and placed[0].to_json()["kind"] == "chart"
    assert placed[0].why_shown == ("The bar chart on p. 1 (“Net sales by year”), which the cited passage [2] "
                                   "belongs to; it shows net, sales")  # as written, not stemmed


def test_a_chart_the_question_asks_for_is_the_one_that_answers_best_and_none_is_an_answer():
    c1 = cand(1)
    a = Answer("Show the chart of Acme's energy use", "Energy use was 5 GWh [1].", "medium",
               evidence=[Evidence.of(c1, 1, "energy")])
    figs = [on_page(figure(i, 50 + i, 0.5 - i / 100, False, 1, f"Energy use {i}"), 5) for i in range(1, 6)]
    placed = place(figs, a, ["Acme"])
    assert [f.figure_id for f in placed] == [1] and "which the question asks to see" in placed[0].why_shown
    assert place([figure(9, 1, 0.9, True, 1, "Water withdrawal")], a) == []


def test_of_two_charts_side_by_side_the_one_whose_own_words_mean_the_question_is_shown():
    """Two charts share a page and its paragraph (the same stored similarity); the question names neither legend's
    words ("women and men" against "Female / Male"), so the closeness of each chart's own words decides."""
    c1 = cand(1)
    a = Answer("Is there a chart of women and men on the staff?", "The staff was 40% female [1].", "medium",
               evidence=[Evidence.of(c1, 1, "staff")])
    gender, ages = figure(1, 7, 0.55, False, 1, "Female / Male"), figure(2, 7, 0.55, False, 1, "Under 30 / 30-50")
    gender.own_similarity, ages.own_similarity = 0.52, 0.31
    placed = place([ages, gender], a)
    assert [f.figure_id for f in placed] == [1] and "closeness 0.52" in placed[0].why_shown
    gender.own_similarity = 0.2  # not close in meaning and no word of the question: nothing is shown
    assert place([gender], a) == []


def test_a_question_naming_a_chart_type_gets_a_chart_of_that_type():
    """"The pie of sales": the pie is shown, though the bars beside it are closer by meaning; with no pie among
    the figures, the closest chart is."""
    c1 = cand(1)
    a = Answer("Show me the pie of Acme's sales by segment", "Sales were split [1].", "medium",
               evidence=[Evidence.of(c1, 1, "sales")])
    bars = figure(1, 11, 0.8, False, 1, "Sales by segment", chart_type="stacked_bar")
    pie = figure(2, 11, 0.7, False, 1, "Sales contribution by segment", chart_type="pie")
    assert [f.figure_id for f in place([bars, pie], a, ["Acme"])] == [2]
    assert [f.figure_id for f in place([bars], a, ["Acme"])] == [1]
    b = Answer("Acme sales by segment, pie chart?", "Sales were split [1].", "medium",
               evidence=[Evidence.of(c1, 1, "sales")])
    assert [f.figure_id for f in place([bars, pie], b, ["Acme"])] == [2]


def test_the_chart_an_answer_describes_is_the_one_it_shows():
    """The chart lead is written about asked_chart's choice, before any passage is cited: place_figures' choice
    for the question alone; a question that asks for no chart has none."""
    bonus = RetrievalSettings().selection.linked_figure_bonus
    bars = figure(1, 11, 0.8, False, 1, "Sales by segment", chart_type="stacked_bar")
    pie = figure(2, 11, 0.7, False, 1, "Sales contribution by segment", chart_type="pie")
    assert asked_chart([bars, pie], "Acme sales by segment pie", ["Acme"], linked_bonus=bonus) is pie
    assert asked_chart([bars, pie], "Acme sales by segment chart", ["Acme"], linked_bonus=bonus) is bars
    assert asked_chart([bars, pie], "What were Acme's sales by segment?", ["Acme"], linked_bonus=bonus) is None


def test_a_chart_that_names_less_of_the_measure_than_the_best_one_is_not_shown():
    c1 = cand(1)
    a = Answer("Plot of the gauge factor against the bias voltage", "The gauge factor peaks at 1.2 V [1].", "medium",
               evidence=[Evidence.of(c1, 1, "gauge")])
    figs = [figure(1, 50, 0.4, False, 7, "Figure 13: Gauge factor according to the bias voltage"),
            figure(2, 51, 0.5, False, 7, "Figure 15: Power consumption according to the bias voltage"),
            figure(3, 52, 0.6, False, 7, "Figure 14: Temperature sensitivity according to the bias voltage")]
    assert [f.figure_id for f in place(figs, a)] == [1]
    # two charts of the cited passage naming as much of the measure are both shown
    b = Answer("What were Acme's Scope 1 and Scope 2 emissions?", "Scope 1 fell [1].", "medium",
               evidence=[Evidence.of(c1, 1, "scope")])
    figs = [figure(4, 1, 0.5, True, 3, "Scope 1 emissions"), figure(5, 1, 0.4, True, 3, "Scope 2 emissions")]
    assert {f.figure_id for f in place(figs, b, ["Acme"])} == {4, 5}


def test_of_two_charts_one_naming_all_the_other_names_of_the_measure_and_more_only_it_is_shown():
    """Asked about female staff by age (no chart asked for), the female chart is shown; the male chart beside it,
    naming "employees" and "age" but not "female", is not, though it names three quarters as much."""
    c1 = cand(1)
    a = Answer("age structure of female employees at Acme, 2022 vs 2023", "Most are 30 to 50 [1].", "medium",
               evidence=[Evidence.of(c1, 1, "age")])
    figs = [figure(1, 1, 0.50, True, 1, "Figure 15: Female employees by age structure as of 31 December"),
            figure(2, 1, 0.52, True, 1, "Figure 14: Male employees by age structure as of 31 December")]
    assert [f.figure_id for f in place(figs, a, ["Acme"])] == [1]


def test_a_refusal_says_why_once_and_names_the_nearest_pages_only_when_they_are_on_topic():
    near = (cand(1, page=4, content="Widget warranty claims are reserved for under other liabilities."),
            cand(2, page=9, content="Revenue grew in every segment."))
    r = _retrieval("How are widget warranty claims audited?", [],
                   Refusal("insufficient data: the documents do not say how warranty claims are audited", near))
    a = insufficient(r)
    assert a.answer == ("Insufficient data: the documents do not say how warranty claims are audited. "
                        "Nearest pages: Acme Widgets 10-K FY2022 p. 4.")  # not p. 9, which is about revenue
    off = (cand(3, page=5, content="Net sales rose on strong demand."),)
    r = _retrieval("What is DocVQA?", [], Refusal("insufficient data: the documents do not mention 'DocVQA'", off))
    a = insufficient(r)
    assert a.answer == "Insufficient data: the documents do not mention 'DocVQA'."  # no pages about something else
    # said once: the answer says what is missing; the reasons do not repeat it, and there is no separate message
    assert a.confidence == "insufficient_data" and "DocVQA" not in " ".join(a.reasons) and a.message is None


def test_units_keep_the_table_header_for_their_periods():
    c = cand(1, content="Acme Widgets Corporation and Subsidiaries\n(Millions) | 2022 | 2021\n"
                        "Net sales | 12,400 | 11,000\nNet sales rose on strong demand for widgets this year.")
    units = units_of(c)
    assert [(u.kind, u.text) for u in units] == [("row", "Net sales | 12,400 | 11,000"),
                                                 ("sentence", "Net sales rose on strong demand for widgets this year.")]
    assert units[0].header == "(Millions) | 2022 | 2021"


def test_compose_answers_with_the_row_and_its_periods():
    c = cand(1, content="(Millions) | 2022 | 2021\nNet sales | 12,400 | 11,000\nOther income | 5 | 4")
    md, ev, chosen = compose(understand("What were the total net sales in 2022?"), [c], CFG)
    assert md == "**Acme Widgets 10-K FY2022**: Net sales — 2022: 12,400; 2021: 11,000 [1]"
    assert ev[0].quote == "Net sales | 12,400 | 11,000" and chosen[0].score > CFG.floor


def test_compose_is_empty_when_nothing_clears_the_floor():
    md, ev, _ = compose(understand("What is the dividend policy?"), [cand(1, content="Unrelated words here only.")],
                        CFG)
    assert md == "" and ev == []


def test_tool_schemas_come_from_the_argument_models():
    s = tools.SearchChunks.schema()["function"]
    assert s["name"] == "search_chunks" and s["parameters"]["required"] == ["query"]
    assert set(s["parameters"]["properties"]) == {"query", "company", "year", "document_ids"}
    assert "title" not in str(s["parameters"])
    names = [t.schema()["function"]["name"] for t in tools.TOOLS.values()]
    assert names == ["search_chunks", "search_figures", "get_related_documents", "list_documents", "run_sql",
                     "compute", "answer_with_evidence"]
    c = tools.Compute.schema()["function"]
    assert c["parameters"]["required"] == ["metric"] and set(c["parameters"]["properties"]) == {"metric", "company",
                                                                                               "year"}


def test_a_tool_call_with_bad_arguments_answers_the_model_instead_of_failing():
    ctx = tools.ToolContext(None, None, None, [], "q")  # type: ignore[arg-type]
    text, args = tools.call(ctx, "get_related_documents", {"document_id": "not a number"})
    assert args is None and text.startswith("invalid arguments for get_related_documents")
    assert tools.call(ctx, "no_such_tool", {}) == ("unknown tool no_such_tool", None)
    text, args = tools.call(ctx, "answer_with_evidence", {"answer": "A [1].", "citations": [{"marker": 1}]})
    assert text == "ok" and tools.AnswerWithEvidence.reply(args)["citations"] == [{"marker": 1, "quote": ""}]


def test_an_abbreviation_and_a_ticker_the_passages_never_write_do_not_sink_the_answer():
    from rag.issuers import Issuer, Issuers

    known = Issuers([Issuer("acme widgets", "Acme Widgets Corporation", ["AWC"])])
    c = cand(1, content="(Millions) | 2022 | 2021\nDepreciation and amortization | 1,831 | 1,915\nOther income | 5 | 4")
    md, _, chosen = compose(understand("What was AWC's D&A in FY22?", known), [c], CFG)
    assert "Depreciation and amortization" in md and chosen[0].score > CFG.floor


def test_a_plural_stems_as_its_singular():
    from rag.words import stem as _stem
    assert _stem("employees") == _stem("employee") and _stem("revenues") == _stem("revenue")
    assert _stem("processes") == _stem("process") and _stem("businesses") == _stem("business")


def test_a_sentence_broken_across_lines_is_one_sentence():
    from rag.answer.extractive import _continued
    assert _continued(["• Size: The resulting pretraining cor-", "pus contains 16.4B tokens, five times larger.",
                       "Net sales | 1,200 | 1,100", "rest of a row | 5"]) == [
        "• Size: The resulting pretraining corpus contains 16.4B tokens, five times larger.",
        "Net sales | 1,200 | 1,100", "rest of a row | 5"]


def test_a_question_in_one_charts_own_words_gets_that_chart_though_it_does_not_say_chart():
    """"Mobile market share in Germany by network operator" is one chart's title, word for word, and far from any
    other figure: that chart is shown, as one asked for, though no cited passage holds it. Two figures about as
    close, or none close, are a question about the text: only a cited passage's figure is shown."""
    c1 = cand(1)
    a = Answer("mobile communications market share Germany by network operator",
               "Revenues in the mobile market were EUR 27.6 billion [1].", "medium",
               evidence=[Evidence.of(c1, 1, "mobile market")])
    share = on_page(figure(1, 50, 0.71, False, 1, "Figure 8: Mobile communications market share, Germany",
                           chart_type="donut"), 8)
    other = on_page(figure(2, 51, 0.40, False, 1, "Mobile revenues by year", chart_type="bar"), 8)
    share.own_similarity, other.own_similarity = 0.79, 0.30
    placed = place([other, share], a)
    assert [f.figure_id for f in placed] == [1] and "which the question asks to see" in placed[0].why_shown
    other.own_similarity = 0.74  # two charts about as close: neither is named
    assert place([other, share], a) == []
    share.own_similarity, other.own_similarity = 0.55, 0.30  # none close enough
    assert place([other, share], a) == []


def test_a_chart_lead_gives_what_the_chart_reads_as_not_its_words_again():
    """A chart's stored text is its reading (values tied to their labels) over the words printed on it; the lead
    gives the reading once ("International: 167; North America: 415"), not the printed words after it."""
    from rag.answer.offline import _chart_lead, _Markers

    c = cand(1)
    f = figure(7, 1, 0.6, True, 1, "Employees per market", chart_type="donut")
    f.ocr_text = "International: 167; North America: 415\n167 International 415 North America"
    lead = _chart_lead(f, _retrieval("employees per market chart", [c]), _Markers({1: c}), 0.6)
    assert lead.sentences == ["The donut chart “Employees per market” on p. 1 shows: International: 167; "
                              "North America: 415 [1]."], lead.sentences
    # the chart's type in words ("stacked bar chart", never "stacked_bar"); a timeline's "other" is a chart
    for chart_type, said in (("stacked_bar", "The stacked bar chart “"), ("other", "The chart “")):
        f.chart_type = chart_type
        lead = _chart_lead(f, _retrieval("employees per market chart", [c]), _Markers({1: c}), 0.6)
        assert lead.sentences[0].startswith(said), lead.sentences
    f.chart_type = "donut"
    f.ocr_text = "Scope 1 1,050 t"  # no reading: the words printed on it
    lead = _chart_lead(f, _retrieval("emissions chart", [c]), _Markers({1: c}), 0.6)
    assert "shows: Scope 1 1,050 t [1]." in lead.sentences[0]
    f.ocr_text = "Scope 1: 1,050 t\nScope 1 1,050 t Scope 2 420 t"  # a number the reading missed: both
    lead = _chart_lead(f, _retrieval("emissions chart", [c]), _Markers({1: c}), 0.6)
    assert "shows: Scope 1: 1,050 t Scope 1 1,050 t Scope 2 420 t [1]." in lead.sentences[0]


def test_a_chart_found_by_its_own_words_is_cited_to_its_own_passage_though_search_did_not_return_it():
    """A chart asked for whose page no chosen passage covers (found by its title, legend and values): the Facts stage
    fetched its passage, so the chart can lead and is cited to that passage, on the chart's page, if it fits the
    measure as well as an answer must; a chart whose passage was fetched by no one is not citable."""
    from rag.answer.offline import _chart_lead, _citable, _fetch_chunks, _Markers

    c = cand(1)  # the passage search chose: page 1
    f = figure(7, 54, 0.66, False, 1, "Sales revenues and EBITDA margin development", chart_type="bar")
    f.page, f.ocr_text = 54, "Sales revenues, 2023: 636.0; EBITDA margin, 2023: 4.2%"
    r = _retrieval("graph of revenue with EBITDA margin", [c], figures=[f])
    assert not _citable(f, r)
    r.book.chunks[54] = hit(54, 1, "Sales revenues and EBITDA margin development", page_start=54, page_end=54)
    assert _citable(f, r) and not _citable(f, r, fits=False)  # found by its own words alone: it must fit the measure
    chunks = {c.chunk_id: c}
    _fetch_chunks(r.book, None, chunks, {}, f)
    marks = _Markers(chunks)
    lead = _chart_lead(f, r, marks, 0.6)
    assert lead.sentences[0].startswith("The bar chart “Sales revenues and EBITDA margin development” on p. 54 "
                                        "shows: Sales revenues, 2023: 636.0"), lead.sentences
    assert [(e.chunk_id, e.pages) for e in marks.evidence] == [(54, [54])], marks.evidence


def test_a_figures_own_words_are_matched_against_what_the_question_asks_about():
    """Not the issuer's name, which any figure of its report may bear, nor the request to see a chart."""
    from rag.words import measure_text

    assert measure_text("Breakdown of Vonovia's CO2 emissions into scope 1, 2 and 3", ["Vonovia SE", "vonovia"]) \
        == "Breakdown of CO2 emissions into scope 1, 2 and 3"
    assert measure_text("freenet share performance vs MDAX and TecDAX in 2023 chart", ["freenet AG"]) \
        == "share performance vs MDAX and TecDAX in 2023"
    assert measure_text("is there a graph of Acme sales? please", ["Acme Widgets"]) == "of sales?"
    assert measure_text("show me the chart", []) == "show me the chart"  # nothing asked about: the question as is


def test_of_two_charts_the_one_carrying_more_of_the_names_the_question_writes_in_capitals_is_shown():
    """Asked for the MSCI ESG rating, of three rating charts of the cited passage naming "ESG", the one that also
    names MSCI is shown; asked for the share against MDAX and TecDAX, the chart whose legend names them, not the
    plain share price chart below it. The issuer's own name, in capitals or not, decides nothing."""
    c1 = cand(1)
    a = Answer("How has Acme's MSCI ESG rating changed since 2018?", "It rose to A [1].", "medium",
               evidence=[Evidence.of(c1, 1, "rating")])
    figs = [figure(1, 1, 0.6, True, 1, "ESG Company Rating", chart_type="bar"),
            figure(2, 1, 0.5, True, 1, "MSCI – ESG Research", chart_type="bar"),
            figure(3, 1, 0.5, True, 1, "ESG Risk Rating", chart_type="bar")]
    assert [f.figure_id for f in place(figs, a, ["ACME"])] == [2]
    b = Answer("Acme share performance vs MDAX and TecDAX in 2023 chart", "The share rose [1].", "medium",
               evidence=[Evidence.of(c1, 1, "share")])
    plain = figure(4, 1, 0.7, True, 1, "Figure 3: Performance of Acme share in 2023", chart_type="line")
    bench = figure(5, 1, 0.6, True, 1, "Figure 2: Performance of Acme share vs. benchmark indices",
                   chart_type="line")
    bench.ocr_text = "series: Acme, SXKGR, MDAX, TecDAX\n"
    assert [f.figure_id for f in place([plain, bench], b, ["ACME"])] == [5]
