"""Which figures an answer shows, where, and why — in words an analyst reads.

A figure is shown only when it supports the answer: it is a chart, a diagram or a map (never a photo, a logo, a
cover, a decoration; a table is shown as the citation's crop of its cited row), its own words (caption, the text
inside it, the paragraph around it) name the question's measure, and either it belongs to a passage the answer
cites (or is printed on its page) or the question asks for a chart; and it names nearly as much of the measure as
the best such figure, and no other names in its own words all it names and more. At most three; none is a valid
answer.

A question that asks to see a chart gets one: the figure that answers it best by meaning (its stored vector, its
own words against the question, a cited passage holding it), whose words name the measure or whose own words are
close to the question ("women and men" finds the legend "female, male"); of the type it names, if it names one
("the pie of sales" shows the pie, not the bars beside it). A question that does not say "chart" but is in one
chart's own words, far closer to it than to any other figure, asks for that chart (implied_chart)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.answer.labels import shorten
from rag.answer.model import Answer, PlacedFigure
from rag.ingest.drawn import family
from rag.ingest.figkind import NEVER_SHOWN
from rag.quantities import MARKER
from rag.records import FigureHit
from rag.words import ASKS_CHART
from rag.words import terms as _terms

MAX_SHOWN = 3
# a question that asks to see a chart gets the one chart that answers it best, by meaning: the figure's stored
# vector, its own words and whether a cited passage holds it (FigureHit.score); charts side by side share their
# paragraph, so a second one shown is most often the neighbour, not the chart asked for
ASKED_SHOWN = 1
OWN_FLOOR = 0.30  # a figure none of whose words the question names is shown only this close to it in meaning
STRENGTH_SHARE = 0.75  # a figure shown names at least this share of what the best figure names of the measure
# a question that does not say "chart" but whose words are one chart's own (its title, legend, labels), far closer
# than to any other figure's, asks for that chart ("mobile market share Germany by network operator")
IMPLIED_FLOOR = 0.65
IMPLIED_MARGIN = 0.10
# words of a request to see, not of the measure
_ASK_WORDS = {w for t in ("chart graph plot figure diagram visual visualise visualize illustrate show see where "
                          "picture image there tracking comparing splitting like over into each pie donut doughnut "
                          "histogram scatter waterfall") for w in _terms(t)}
_KIND_WORDS = {"chart": "chart", "diagram": "diagram", "map": "map"}
# the chart types a question may name, by family: asked for "the pie", the pie is shown, not the bars beside it
_NAMED_FAMILY = [(re.compile(r"\b(?:pie|donut|doughnut)s?\b", re.I), "pie"),
                 (re.compile(r"\b(?:bar|column) (?:charts?|graphs?)\b|\bbars\b|\bhistograms?\b|\bwaterfall\b", re.I),
                  "bar"),
                 (re.compile(r"\bline (?:charts?|graphs?)\b", re.I), "line"),
                 (re.compile(r"\bscatter", re.I), "scatter")]


# a name the question writes in capitals: an acronym or a name with a capital inside it ("MSCI", "EBIT", "TecDAX")
_CAPITALS = re.compile(r"\b[A-Z][A-Za-z]*[A-Z][A-Za-z]*\b")


def capital_names(question: str, names: list[str]) -> set[str]:
    """The question's names written in capitals, as stems, but for the issuer's ("MSCI ESG rating" -> msci, esg):
    an index, a rating agency, a measure's acronym, which a figure either carries or does not."""
    issuer = {t for n in names for t in _terms(n)}
    return {t for w in _CAPITALS.findall(question) for t in _terms(w)} - issuer


def named_family(question: str) -> str | None:
    """The family of chart type the question names ("show me the pie of sales" -> pie), if one."""
    return next((fam for pat, fam in _NAMED_FAMILY if pat.search(question)), None)


def asks_chart(question: str) -> bool:
    return bool(ASKS_CHART.search(question)) or named_family(question) is not None


def implied_chart(figures: list[FigureHit]) -> FigureHit | None:
    """The chart a question names without saying "chart": the one figure that may be shown whose own words are
    close to the question (IMPLIED_FLOOR) and clearly closer than any other's (IMPLIED_MARGIN). By meaning, so
    it holds for any report: a page of similar charts has no such figure, nor has a question about prose."""
    shown = sorted((f for f in figures if f.figure_kind not in NEVER_SHOWN), key=lambda f: -f.own_similarity)
    if not shown or shown[0].own_similarity < IMPLIED_FLOOR:
        return None
    if len(shown) > 1 and shown[0].own_similarity - shown[1].own_similarity < IMPLIED_MARGIN:
        return None
    return shown[0]


def measure_terms(question: str, names: list[str]) -> set[str]:
    """The question's own words for what it asks about: no stop words, no company name, no year, no request words."""
    name_terms = {t for n in names for t in _terms(n)}
    return {t for t in _terms(question) if not re.fullmatch(r"(?:19|20)\d\d|fy\d+", t)} - name_terms - _ASK_WORDS


def _words_of(f: FigureHit) -> tuple[set[str], set[str]]:
    """(the figure's own words: caption and the text inside it, the paragraph around it)."""
    return set(_terms(f"{f.caption or ''} {f.ocr_text or ''}")), set(_terms(f.context or ""))


def matches(f: FigureHit, terms: set[str]) -> list[str]:
    """The measure's words the figure names: one in its caption or its text, or two in the paragraph around it."""
    own, around = _words_of(f)
    hit = sorted(terms & own)
    if hit:
        return hit
    near = sorted(terms & around)
    return near if len(near) >= 2 else []


def as_written(stem: str, text: str) -> str:
    """A matched word as the question or the figure writes it ("annot" → "annotator"), not its stem."""
    return next((w for w in re.findall(r"[^\W\d_][\w\-]*", text) if _terms(w)[:1] == [stem]), stem)


def strength(f: FigureHit, terms: set[str]) -> float:
    """How much of the measure a figure names: a word in its caption or its text counts 1, in the paragraph around
    it one half."""
    own, around = _words_of(f)
    return len(terms & own) + 0.5 * len(terms & around - own)


def why_shown(f: FigureHit, marker: int | None, words: list[str], on_page: bool = False) -> str:
    """"The line chart on p. 14 (“Energy mix 2023”), which the cited passage [2] refers to; it names: energy"."""
    if not words:  # found by meaning: the figure's own words are close to the question's
        words = [f"what the question asks (closeness {f.own_similarity:.2f})"]
    kind = _KIND_WORDS.get(f.figure_kind or "", "figure")
    typed = kind == "chart" and f.chart_type and f.chart_type != "other"
    what = f"the {f.chart_type.replace('_', ' ')} chart" if typed and f.chart_type else f"the {kind}"
    caption = (f.caption or "").strip()
    named = f" (“{shorten(caption, 80)}”)" if caption else ""
    link = ", which the question names by its number" if f.named else \
        f", on the page of the cited passage [{marker}]" if marker and on_page else \
        f", which the cited passage [{marker}] belongs to" if marker else ", which the question asks to see"
    return f"{what[0].upper()}{what[1:]} on p. {f.page}{named}{link}; it shows {', '.join(words[:4])}"


@dataclass
class _Option:
    """A figure that may be shown, with what orders it: one the question names by its number ("Figure 3") first,
    then a cited passage's own figure (unless a chart is asked for), then one of the chart type the question names,
    then its rank, then its stored similarity."""
    named_fig: bool
    cited_first: bool
    of_type: bool  # of the chart type the question names
    named: float  # how much of the measure it names (strength)
    rank: float  # a chart asked for: its score by meaning; else how much it names
    similarity: float
    placed: PlacedFigure
    own: frozenset[str] = frozenset()  # the measure's words in its own words (caption, text inside)


def place_figures(figures: list[FigureHit], a: Answer, names: list[str] | None = None, *,
                  linked_bonus: float) -> list[PlacedFigure]:
    """The figures that support the answer, each after the paragraph that cites its passage (else its document's
    paragraph); a chart the question asks for may follow the first paragraph. At most three, linked ones first.
    `linked_bonus`: the retrieval setting `selection.linked_figure_bonus`, the weight of a cited passage's figure."""
    marker_para: dict[int, int] = {}
    for i, p in enumerate(a.paragraphs):
        for m in MARKER.findall(p):
            marker_para.setdefault(int(m), i)
    cited = {e.chunk_id: e.marker for e in a.evidence if e.marker in marker_para}
    # a chart printed on a page a cited passage is on is that passage's chart, whichever of the page's passages
    # ingestion linked it to (a figure is linked to one passage of its page)
    on_page = {(e.document_id, p): e.marker for e in a.evidence if e.marker in marker_para for p in e.pages}
    doc_para = {e.document_id: marker_para[e.marker] for e in a.evidence if e.marker in marker_para}
    wants = asks_chart(a.question)
    implied = None if wants else implied_chart(figures)
    if implied is not None:  # the question names this chart: it is shown, as one asked for
        figures, wants = [implied], True
    kind_named = named_family(a.question)
    terms = measure_terms(a.question, names or [])
    options: list[_Option] = []
    for f in figures:
        if (f.figure_kind in NEVER_SHOWN and not f.named) or not a.paragraphs:
            continue
        words = matches(f, terms)
        by_chunk = cited.get(f.chunk_id) if f.chunk_id is not None else None
        marker = by_chunk or on_page.get((f.document_id, f.page))
        said = [as_written(w, f"{a.question} {f.caption or ''} {f.ocr_text or ''} {f.context or ''}") for w in words]
        if not (f.named or ((words or (wants and f.own_similarity >= OWN_FLOOR)) and (marker or wants))):
            continue
        para = marker_para[marker] if marker else doc_para.get(f.document_id, 0)
        f.why_shown = why_shown(f, marker, said, on_page=by_chunk is None)
        label = next((e.document for e in a.evidence if e.document_id == f.document_id), f.file_name)
        named = strength(f, terms)
        options.append(_Option(f.named, marker is not None and not wants, kind_named is not None and
                               family(f.chart_type) == kind_named, named, f.score(linked_bonus) if wants else named,
                               f.similarity, PlacedFigure.of(f, label, para), frozenset(terms & _words_of(f)[0])))
    # A figure that names clearly less of the measure than the best one is another chart of the same page or
    # report ("power against bias voltage" for "gauge factor against bias voltage"): not shown.
    best = max((o.named for o in options), default=0.0)
    options = [o for o in options if o.named_fig or o.named >= STRENGTH_SHARE * best]
    # of two figures, one carrying every name in capitals the question writes that the other carries, and more
    # ("MSCI – ESG Research" over "ESG Company Rating", asked for the MSCI ESG rating): the other is not shown
    capitals = capital_names(a.question, names or [])
    options = [o for o in options if o.named_fig or not any(o.own & capitals < p.own & capitals for p in options)]
    if not wants:  # of two figures, one naming in its own words all the other names of the measure and more
        # ("female employees by age" over "male employees by age", asked about female staff): the other is not shown
        options = [o for o in options if o.named_fig or not any(o.own < p.own for p in options)]
    options.sort(key=lambda o: (not o.named_fig, not o.cited_first, not o.of_type, -o.rank, -o.similarity))
    return [o.placed for o in options[:ASKED_SHOWN if wants else MAX_SHOWN]]


def asked_chart(figures: list[FigureHit], question: str, names: list[str] | None = None, *,
                linked_bonus: float) -> FigureHit | None:
    """The chart a question asking to see one is shown, chosen before the answer is written (the chart the answer
    then describes): place_figures' choice for the question alone, no passage cited yet."""
    if not asks_chart(question):
        return None
    placed = place_figures(figures, Answer(question, "…", "low"), names, linked_bonus=linked_bonus)
    return next((f for f in figures if placed and f.figure_id == placed[0].figure_id), None)
