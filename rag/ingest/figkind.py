"""What a figure is: a chart (and its type), a diagram, a table, a photo, a logo or decoration, a map or a cover.

Decided at ingestion from signals the PDF gives, never from a model: the structure of the vector drawings, the
text inside the region (its density, tick-like numbers on an axis, table rows), the colours of the rendered crop,
the region's size, shape and place on the page, and its caption. Each decision carries the signals that made it,
so the debug view can say why a figure is, or is not, shown."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pymupdf

from rag.ingest.drawn import family
from rag.ingest.rasterchart import raster_chart_type, round_chart_type

KINDS = ("chart", "diagram", "table", "photo", "logo", "decoration", "map", "cover")
CHART_TYPES = ("bar", "stacked_bar", "line", "pie", "donut", "area", "scatter", "waterfall", "other")
# what is never shown as evidence (a table is shown only as the citation's crop of its cited row)
NEVER_SHOWN = frozenset({"photo", "logo", "decoration", "cover", "table"})

# what the drawings show to be a chart: wedges around a centre, a ring; bars (stacked, floating) holding no words
_DRAWN_CHART = ("pie", "donut", "stacked_bar", "waterfall", "bar", "range_bar")
_NUMBER = re.compile(r"^[(\-–−+]?[$€£]?\d[\d,.]*%?\)?$")
_CAPTION_KIND = [
    (re.compile(r"\b(table|tab\.)\s*\d", re.I), "table"),
    (re.compile(r"\b(map|locations? of|sites? in|footprint)\b", re.I), "map"),
    (re.compile(r"\b(chart|graph|plot|curves?|histogram|distribution|trend|development of|breakdown|share of|"
                r"mix|split|in %|percentage)\b", re.I), "chart"),
    (re.compile(r"\b(architecture|overview of|framework|pipeline|workflow|process|structure|organi[sz]ation|"
                r"diagram|schematic|model of|flow)\b", re.I), "diagram"),
]
_CHART_WORDS = [(re.compile(r"\bdonut|doughnut\b", re.I), "donut"), (re.compile(r"\bpie\b", re.I), "pie"),
                (re.compile(r"\bwaterfall|bridge\b", re.I), "waterfall"), (re.compile(r"\bscatter\b", re.I), "scatter"),
                (re.compile(r"\barea chart\b", re.I), "area"), (re.compile(r"\bbars?\b|\bhistogram", re.I), "bar"),
                (re.compile(r"\bline chart|curves?\b|over time|trend", re.I), "line")]


@dataclass
class Signals:
    """What the PDF says about one figure region."""
    source: str  # raster | vector
    page: int
    rel_area: float  # the region's share of the page
    aspect: float  # width / height
    rel_top: float  # the region's top, as a share of the page height
    words: int = 0  # text-layer (or OCR) words inside
    numbers: int = 0  # of which numbers
    axis: bool = False  # numbers in an arithmetic progression along a line: an axis's ticks
    table_rows: int = 0  # table rows (label and figures) inside, or running through it
    rows: int = 0  # text rows inside
    drawn: str | None = None  # the vector drawings' verdict: bar | line | pie | curve | rules | None
    colours: int = 0  # distinct colours of the rendered crop (16 levels a channel)
    white: float = 0.0  # share of near-white pixels
    flat: float = 0.0  # share of pixels equal to their right neighbour
    caption: str = ""
    repeated: bool = False  # the same image on several pages
    time_axis: bool = False  # three or more periods (2019, FY20, Q3) set on one line
    periods: int = 0  # of the numbers, those that are periods (2019, '21): dates, not values
    axis_title: bool = False  # a phrase set vertically along the left edge: the title of a vertical axis
    smooth: float = 0.0  # of neighbouring pixels (not both white), the share differing by a little: a photo's tones
    sharp: float = 0.0  # and by much: the edges of flat shapes and letters (a logo, a drawing)
    bare_bars: bool = False  # drawn bars that hold no words (a table's shaded cells hold its labels)
    arrows: int = 0  # arrowheads drawn (small filled triangles): a diagram's connectors
    pixels: str | None = None  # the chart type its rendered pixels show (rasterchart.py): images, and drawings
    # whose vector shapes gave no type

    def to_json(self) -> dict:
        # plain JSON: a region measured on OCR boxes carries numpy floats
        return {k: (round(float(v), 3) if isinstance(v, (float, np.floating)) else v)
                for k, v in self.__dict__.items() if k != "caption"}


@dataclass
class Kind:
    kind: str
    chart_type: str | None = None
    why: list[str] = field(default_factory=list)
    signals: Signals | None = None
    reading: dict | None = None  # a chart's title, legend, axes and values (rag/ingest/chartread.py)


def pixel_stats(png: bytes, sample: int = 128) -> tuple[int, float, float]:
    """(distinct colours, near-white share, flat share) of a PNG, on a sample of about `sample` pixels a side."""
    try:
        pix = pymupdf.Pixmap(png)
        if pix.alpha:
            pix = pymupdf.Pixmap(pix, 0)
        n = pix.n
        arr = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, n)
        if n < 3:
            arr = np.repeat(arr[:, :, :1], 3, axis=2)
        step = max(1, min(pix.width, pix.height) // sample)
        a = arr[::step, ::step, :3].astype(np.int32)
        q = a >> 4
        colours = len(np.unique(q[:, :, 0] * 256 + q[:, :, 1] * 16 + q[:, :, 2]))
        white = float((a.min(axis=2) > 235).mean())
        full = arr[:, :, :3].astype(np.int16)
        flat = float((np.abs(full[:, 1:] - full[:, :-1]).sum(axis=2) < 6).mean()) if full.shape[1] > 1 else 1.0
        return colours, white, flat
    except Exception:
        return 0, 1.0, 1.0


def tone_stats(png: bytes) -> tuple[float, float]:
    """(smooth, sharp): of the pairs of neighbouring pixels not both near-white, the share whose grey differs by a
    little (2 to 24 of 255: a photograph's graded tones) and by much (the edge of a flat shape or a letter)."""
    try:
        pix = pymupdf.Pixmap(png)
        if pix.alpha:
            pix = pymupdf.Pixmap(pix, 0)
        a = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
        step = max(1, max(pix.width, pix.height) // 200)  # about 200 pixels a side: an image enlarged for OCR
        a = a[::step, ::step]  # reads as smooth at any picture's edge
        grey = a[:, :, :3].mean(axis=2) if pix.n >= 3 else a[:, :, 0].astype(np.float64)
        diff = np.abs(np.diff(grey, axis=1))
        inked = diff[(grey[:, 1:] < 235) | (grey[:, :-1] < 235)]
        if not inked.size:
            return 0.0, 0.0
        return float(((inked >= 2) & (inked <= 24)).mean()), float((inked > 24).mean())
    except Exception:
        return 0.0, 0.0


def progression(values: list[float]) -> bool:
    """At least three values in order whose steps are whole multiples of the smallest (0 20 40 60, or 0 50 150
    200 when OCR missed a tick): an axis's ticks."""
    if len(values) < 3:
        return False
    steps = [b - a for a, b in zip(values, values[1:], strict=False)]
    if any(s == 0 for s in steps) or len({s > 0 for s in steps}) > 1:
        return False
    unit = min(abs(s) for s in steps)
    ratios = [abs(s) / unit for s in steps]
    return all(abs(r - round(r)) <= 0.02 * r for r in ratios) and sum(round(r) == 1 for r in ratios) >= 2 \
        and max(ratios) <= 3


def _clusters(items: list, key, tol: float) -> list[list]:
    out: list[list] = []
    for it in sorted(items, key=key):
        if out and key(it) - key(out[-1][-1]) <= tol:
            out[-1].append(it)
        else:
            out.append([it])
    return out


def number_value(word: str) -> float | None:
    w = word.strip("()$€£%+").replace(",", "").replace("−", "-").replace("–", "-")
    try:
        return float(w)
    except ValueError:
        return None


def axis_ticks(words: list[tuple[float, float, float, float, str]]) -> bool:
    """Tick labels: numbers stacked in one column (a y-axis: right edges aligned) or set on one line (an x-axis)
    whose values step evenly. Years in a table's header step evenly too, so an x-axis of years needs at least
    four."""
    nums = [(x0, y0, x1, y1, v) for x0, y0, x1, y1, t in words if _NUMBER.match(t) and (v := number_value(t)) is not None]
    if len(nums) < 3:
        return False
    span = max(w[2] for w in words) - min(w[0] for w in words)
    tol = 3 + 0.012 * span
    for col in _clusters(nums, lambda n: n[2], tol):
        if progression([n[4] for n in sorted(col, key=lambda n: n[1])]):
            return True
    for line in _clusters(nums, lambda n: (n[1] + n[3]) / 2, tol):
        vals = [n[4] for n in sorted(line, key=lambda n: n[0])]
        years = all(1900 <= v <= 2100 and v == int(v) for v in vals)
        if progression(vals) and (len(vals) >= 4 or not years):
            return True
    return False


_AXIS_WHY = {True: "tick numbers", False: "titled vertically at its left"}


def vertical_title(page: pymupdf.Page, rect: pymupdf.Rect) -> bool:
    """One phrase (two words or more) set vertically, along the region's left edge or just left of it: a vertical
    axis's title ("Business relevance", "Index Value"), which a diagram's boxes do not carry."""
    try:
        blocks = page.get_text("dict", clip=rect + (-0.15 * rect.width, 0, 0, 0))["blocks"]
    except Exception:
        return False
    phrases = [ln for b in blocks for ln in b.get("lines", []) if abs(ln["dir"][0]) < 0.1 and sum(
        bool(re.search(r"[A-Za-z]{2}", w)) for sp in ln.get("spans", []) for w in sp["text"].split()) >= 2]
    # one: a diagram may set several of its labels on end (the stages of a value chain), an axis has one title
    return len(phrases) == 1 and phrases[0]["bbox"][0] <= rect.x0 + 0.08 * rect.width


def _caption_kind(text: str) -> str | None:
    for pat, kind in _CAPTION_KIND:
        if pat.search(text):
            return kind
    return None


def chart_type_of(s: Signals, text: str) -> str:
    """The drawings' type, else the caption's word for it, else the shapes in an image's pixels, else a line for
    values over time in an image."""
    if s.drawn in CHART_TYPES:
        return s.drawn
    if "range_bar" in (s.drawn, s.pixels):  # a timeline's bars from a start to an end: no type of the set's names
        return "other"
    for pat, t in _CHART_WORDS:
        if pat.search(text):
            return t
    if s.pixels:
        return s.pixels
    return "line" if s.time_axis else "other"


_DATE = re.compile(r"^(?:19|20)\d{2}$")  # a year alone: a bare two-digit number is as often a value
_PERIOD = re.compile(r"^(?:(?:19|20)\d{2}|'?\d{2}|FY\s?'?\d{2,4}|Q[1-4](?:\s?'?\d{2,4})?|H[12])$", re.I)


def time_axis(words: list[tuple[float, float, float, float, str]]) -> bool:
    """Three or more periods on one line: the x-axis of values over time (or a table's header of years)."""
    periods = [w for w in words if _PERIOD.match(w[4])]
    if len(periods) < 3:
        return False
    tol = 3 + 0.012 * (max(w[2] for w in words) - min(w[0] for w in words))
    return any(len(line) >= 3 for line in _clusters(periods, lambda w: (w[1] + w[3]) / 2, tol))


def classify(s: Signals, text: str = "") -> Kind:
    """The figure's kind from its signals; `text` is its caption and the text inside it. The order matters: what
    the page and the pixels say for sure first (a cover, a logo repeated, a photo), then what the drawings and
    the text inside say (a block of text, a table, a chart's axis or drawn marks), then a diagram."""
    cap = _caption_kind(s.caption)
    words_per_row = s.words / max(1, s.rows)
    number_share = s.numbers / max(1, s.words)
    if s.page <= 1 and s.rel_area > 0.45:  # a cover fills half the page; a paper's first figure does not
        return Kind("cover", None, ["an image filling half the first page or more"])
    if s.page <= 1 and s.words <= 12:
        return Kind("logo", None, ["a small image with little text on the first page"])
    if s.repeated:
        return Kind("logo", None, ["the same image on several pages"])
    if (photo := _photo(s)) is not None:
        return photo
    if s.source == "raster" and s.rel_area > 0.7 and s.words > 100 and not s.axis:
        return Kind("decoration", None, ["a scanned page of text"])
    if s.rows >= 3 and s.words >= 100 and words_per_row >= 15 and number_share < 0.1:
        return Kind("decoration", None, [f"a block of text ({words_per_row:.0f} words a line), not a figure"])
    if s.drawn in _DRAWN_CHART and (family(s.drawn) == "pie" or (s.bare_bars and s.numbers)):
        return Kind("chart", chart_type_of(s, text), [f"vector drawings of a {(s.drawn or '').replace('_', ' ')} chart"])
    if s.source == "vector" and s.rel_area < 0.03 and s.numbers == 0 and s.words <= 12:
        return Kind("decoration", None, ["a small drawing without figures"])
    if (s.axis or s.axis_title) and family(s.drawn) in ("curve", "line", "pie", "scatter"):
        return Kind("chart", chart_type_of(s, text), [f"plotted marks along an axis ({_AXIS_WHY[s.axis]})"])
    if s.source == "raster" and family(s.pixels) == "bar" and s.numbers >= 3 and number_share >= 0.5 and cap != "table":
        return Kind("chart", chart_type_of(s, text), ["an image of bars whose words are mostly values (in rows, "
                                                       "like a table's)"])
    if (boxes := _boxes(s, cap)) is not None:
        return boxes
    if s.axis:
        return Kind("chart", chart_type_of(s, text), ["tick numbers along an axis"])
    if family(s.drawn) == "bar" and s.source == "vector" and not s.bare_bars and s.words >= 8:
        return Kind("table", None, ["shaded cells holding words"])
    if family(s.drawn) in ("bar", "line", "pie") and (s.numbers or family(s.drawn) == "pie" or cap == "chart"):
        return Kind("chart", chart_type_of(s, text), [f"vector drawings of a {(s.drawn or '').replace('_', ' ')} chart"])
    if s.drawn in ("curve", "scatter") and s.numbers >= 10 and number_share >= 0.25:
        return Kind("chart", chart_type_of(s, text), ["plotted curves with many value labels"])
    if s.source == "raster" and s.pixels in _DRAWN_CHART and s.numbers >= (1 if family(s.pixels) == "pie" else 3):
        return Kind("chart", chart_type_of(s, text), [f"an image of a {s.pixels.replace('_', ' ')} chart with value "
                                                       "labels"])
    if s.source == "vector" and s.pixels in ("pie", "donut") and s.numbers:
        return Kind("chart", chart_type_of(s, text), [f"curves drawn as a {s.pixels} of several colours, with a "
                                                       "value"])
    if _plot_like(s, number_share):
        return Kind("chart", chart_type_of(s, text), ["a plot-like image with value labels"])
    if cap == "map":
        return Kind("map", None, ["its caption names a map"])
    if s.source == "raster" and s.rel_area < 0.07 and s.words <= 12:
        return _small_image(s)
    if s.rel_area < 0.03 and s.words <= 12:
        return Kind("decoration", None, ["a small drawing with little text"])
    if cap == "chart":
        return Kind("chart", chart_type_of(s, text), ["its caption names a chart"])
    if s.words < 4 and s.numbers == 0 and not s.caption:
        return Kind("decoration", None, ["no text, no caption"])
    return Kind("diagram", None, ["shapes and text without axis or table rows"])


def _boxes(s: Signals, cap: str | None) -> Kind | None:
    """Shaded shapes joined by arrows: a diagram's boxes (an organisation chart), not bars nor a table's cells.
    Rows of labels and figures, a caption naming a table, or shaded shapes full of text: a table."""
    if s.arrows >= 3 and family(s.drawn) == "bar" and not s.axis and cap != "table":
        return Kind("diagram", None, [f"boxes joined by arrows ({s.arrows} arrowheads)"])
    if cap == "table" or (s.table_rows >= 3 and s.table_rows >= 0.4 * max(1, s.rows)) or \
            (family(s.drawn) == "bar" and s.words >= (150 if s.axis else 30)):
        return Kind("table", None, ["rows of labels and figures" if s.table_rows >= 3 else
                                    "its caption names a table" if cap == "table" else
                                    "shaded cells full of text"])
    return None


def _photo(s: Signals) -> Kind | None:
    """An image without text: on no white ground, or of graded tones with few sharp edges (a portrait cut out on
    white; a logo's flat shapes and letters have sharp edges)."""
    if s.source != "raster" or s.words > 8 or s.axis:
        return None
    if s.white < 0.35:
        return Kind("photo", None, [f"a picture without a white ground ({s.white:.0%} white) and without text"])
    if s.smooth >= 0.25 and s.sharp <= 0.12:
        return Kind("photo", None, [f"a picture of graded tones ({s.smooth:.0%} of its neighbouring pixels a little "
                                    f"apart, {s.sharp:.0%} far apart) without text"])
    return None


def _plot_like(s: Signals, number_share: float) -> bool:
    """An image on white of some words, many of them numbers, and three or more of those not years (numbers that
    are all dates make a timeline, not a plot)."""
    return s.source == "raster" and 15 <= s.words <= 120 and s.numbers >= 5 and number_share >= 0.15 \
        and s.white >= 0.85 and s.numbers - s.periods >= 3


def _small_image(s: Signals) -> Kind:
    """A small image with little text: a logo, or a handwritten signature under a letter (a small, wide image,
    almost all white, its ink of a few colours: a logo has fills and colours, a wordmark words OCR reads; below the
    page's top, where a letterhead's logo is)."""
    if s.rel_area < 0.03 and s.aspect >= 1.3 and s.words <= 2 and s.numbers == 0 and s.white >= 0.92 \
            and s.colours <= 40 and s.rel_top >= 0.15:
        return Kind("decoration", None, [f"a handwritten signature: thin strokes of few colours on white "
                                         f"({s.white:.0%} white, {s.colours} colours), no words"])
    return Kind("logo", None, ["a small image with little text"])


# OCR, and a text layer whose labels touch, read labels set close together as one token: two years ("20222023"),
# two or more decimals ("24.324.7", "0.50.50.8")
_TWO_YEARS = re.compile(r"^((?:19|20)\d{2})((?:19|20)\d{2})$")
_DECIMALS = re.compile(r"^\d+(?:\.\d+){2,}$")


def glued_numbers(t: str) -> list[str]:
    """A token of two years, or of several decimals run together, parted again; else the token alone. Each decimal
    is printed with as many decimals as the last ("24.324.725.7" → 24.3, 24.7, 25.7); a number grouped by points
    ("1.234.567": every group as long as the last) is one number."""
    if m := _TWO_YEARS.match(t):
        return [m.group(1), m.group(2)]
    if not _DECIMALS.match(t):
        return [t]
    groups = t.split(".")
    k = len(groups[-1])
    if not all(k < len(g) <= k + 3 for g in groups[1:-1]):
        return [t]
    out, whole = [], groups[0]
    for g in groups[1:-1]:
        out.append(f"{whole}.{g[:k]}")
        whole = g[k:]
    return out + [f"{whole}.{groups[-1]}"]


def _ocr_tokens(text: str) -> list[str]:
    """An OCR line's tokens, with two years or decimals read as one token parted again."""
    return [part for t in text.split() for part in glued_numbers(t)]


def ocr_words(lines) -> list[tuple[float, float, float, float, str]]:
    """OCR lines (text and pixel box) as words with boxes, each line's width shared among its words by length."""
    out = []
    for ln in lines:
        x0, y0, x1, y1 = ln.box
        tokens = _ocr_tokens(ln.text)
        total = sum(len(t) + 1 for t in tokens) or 1
        x = x0
        for t in tokens:
            w = (x1 - x0) * (len(t) + 1) / total
            out.append((x, y0, x + w, y1, t))
            x += w
    return out


def signals_of(page: pymupdf.Page, rect: pymupdf.Rect, source: str, rows: list, png: bytes, drawn: str | None,
               caption: str = "", ocr: list | None = None, repeated: bool = False,
               labels: pymupdf.Rect | None = None, bare_bars: bool = False, arrows: int = 0) -> Signals:
    """The signals of one region of a page; `rows` are the page's text rows (layout.Row), `drawn` the vector
    drawings' verdict, `ocr` the OCR lines of a raster region without a text layer. `labels`: where the words of
    a drawn chart are read (its crop: the drawings with their value and axis labels)."""
    pr = page.rect
    s = Signals(source, page.number + 1, rect.get_area() / max(1.0, pr.get_area()),
                rect.width / max(1.0, rect.height), (rect.y0 - pr.y0) / max(1.0, pr.height), caption=caption,
                drawn=drawn, repeated=repeated, bare_bars=bare_bars, arrows=arrows)
    try:
        words = [(w[0], w[1], w[2], w[3], w[4]) for w in page.get_text("words", clip=labels or rect)]
    except Exception:
        words = []
    if len(words) < 4 and ocr:
        words = ocr_words(ocr)
    s.words, s.numbers = len(words), sum(bool(_NUMBER.match(w[4])) for w in words)
    s.periods = sum(bool(_NUMBER.match(w[4]) and _DATE.match(w[4])) for w in words)
    s.axis, s.time_axis = axis_ticks(words), time_axis(words)
    s.axis_title = vertical_title(page, labels or rect)
    inside = [r for r in rows if r.y0 >= rect.y0 - 2 and r.y1 <= rect.y1 + 2 and r.x0 >= rect.x0 - 2
              and (r.x1 or r.x0) <= rect.x1 + 2]
    # a table's rows, each with its label (a cell of words), that run through the region from both sides: it is a
    # shaded column of that table, its "bars" the column's cells (a chart's values set either side of its bars
    # are a row of figures without a label)
    through = sum(1 for r in rows if r.is_table and r.y0 >= rect.y0 - 2 and r.y1 <= rect.y1 + 2
                  and r.x0 < rect.x0 - 2 and (r.x1 or r.x0) > rect.x1 + 2
                  and any(sum(ch.isalpha() for ch in c) >= 3 for c in r.cells))
    s.rows, s.table_rows = len(inside) + through, sum(1 for r in inside if r.is_table) + through
    s.bare_bars = bare_bars and through < 3
    s.colours, s.white, s.flat = pixel_stats(png)
    if source == "raster":
        s.smooth, s.sharp = tone_stats(png)
    # the shapes of the rendered pixels, where they can change the verdict (they cost a few milliseconds): an image
    # with figures in it (not a photo); curved drawings of no type with a value (a ring drawn in many pieces); and
    # strokes or bars without an axis (a ring drawn as thick arcs reads as lines, its legend's swatches as bars): a
    # round shape of several colours is its type
    if source == "raster" and (s.numbers or s.axis) and s.white >= 0.35:
        s.pixels = raster_chart_type(png)[0]
    elif source == "vector" and s.numbers and (drawn == "curve" or (drawn in ("line", "bar") and not s.axis)):
        s.pixels = round_chart_type(png)
        if drawn != "curve" and s.pixels:
            s.drawn = s.pixels
    return s
