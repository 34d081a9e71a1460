"""Figures: embedded raster images and vector-drawn charts → PNG crops with caption, context and text.
Decorative images (tiny, full-page backgrounds, logos repeated across pages, duplicates) are dropped."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pymupdf

from rag.config import IngestSettings
from rag.ingest import chartread, figkind, layout
from rag.ingest import crop as cropmod
from rag.ingest.drawn import arrowheads, cell_grid, chart_of, family
from rag.ingest.layout import Row
from rag.ingest.pdf import Drawing, render
from rag.ingest.rasterchart import round_chart_type, solid_shapes
from rag.ingest.regions import vector_groups
from rag.words import shorten

CAPTION = re.compile(rf"^\s*({cropmod.FIGURE_WORDS})\s*{cropmod.FIGURE_NUMBER}\s*[:.|\-–—]?", re.I)
DISPLAY_WIDTH_PX = 520  # the width of a figure in an answer (pages/views/ask.py)
FIG_NUM = re.compile(r"\b(?:figure|fig\.?)\s*(\d+)", re.I)


@dataclass
class Figure:
    page: int  # 1-based
    bbox: tuple[float, float, float, float]
    kind: str  # raster | vector
    png: bytes
    width: int
    height: int
    sha256: str
    caption: str = ""
    context: str = ""
    ocr_text: str = ""
    chart_type: str | None = None
    number: str | None = None
    chunk_index: int | None = None
    figure_kind: str = "diagram"  # chart | diagram | table | photo | logo | decoration | map | cover (figkind.py)
    kind_why: str = ""  # the signals that decided it
    signals: dict | None = None
    crop: tuple[float, float, float, float] | None = None  # what is shown: the region's display crop (crop.py)

    def embed_text(self) -> str:
        # Caption and the surrounding paragraph carry the meaning; OCR is noisy (tick labels), so short.
        # No document label: with a small model it outweighs a short caption.
        parts = [self.caption, self.context[:400], self.ocr_text[:200]]
        return "\n".join(p for p in parts if p).strip() or "figure"


def repeated_image_digests(doc: pymupdf.Document, min_pages: int = 3) -> set[bytes]:
    """Digests of images that appear on at least min_pages pages (logos, page decorations)."""
    counts: Counter[bytes] = Counter()
    for page in doc:
        try:
            infos = page.get_image_info(hashes=True)
        except Exception:
            continue
        if len(infos) > 200:  # a page of tiny tiles; none of them is a logo worth counting
            continue
        counts.update({i["digest"] for i in infos if i.get("digest")})
    return {d for d, c in counts.items() if c >= min_pages}


def _union(rects: list[pymupdf.Rect], pad: float = 2) -> list[pymupdf.Rect]:
    rects = [pymupdf.Rect(r) for r in rects]
    changed = True
    while changed:
        changed = False
        out: list[pymupdf.Rect] = []
        for r in rects:
            for o in out:
                if (o + (-pad, -pad, pad, pad)).intersects(r):
                    o |= r
                    changed = True
                    break
            else:
                out.append(pymupdf.Rect(r))
        rects = out
    return rects


def _raster_regions(page: pymupdf.Page, skip: set[bytes], cfg: IngestSettings) -> list[pymupdf.Rect]:
    area = page.rect.width * page.rect.height
    try:
        infos = page.get_image_info(hashes=True)
    except Exception:
        return []
    rects = []
    for info in infos:
        r = pymupdf.Rect(info["bbox"]) & page.rect
        if r.is_empty or info.get("digest") in skip:
            continue
        if r.width < cfg.min_figure_pt or (r.height < cfg.min_figure_pt / 2 and not _letterhead(r, page, cfg)):
            continue
        if r.width * r.height > 0.85 * area:  # background or a scanned page: not a figure
            continue
        rects.append(r)
    return [r for r in _union(rects, pad=10) if r.width * r.height <= 0.9 * area]


def _letterhead(r: pymupdf.Rect, page: pymupdf.Page, cfg: IngestSettings) -> bool:
    """A short, wide image at the head of a page, or on the first page: a company's wordmark over a letter, a
    release or a filing's cover (a quarter of the figure size high at least, twice as wide as high, at least one
    and a half times the figure size wide). A running header's image is on every page, and skipped as such."""
    top = (r.y0 - page.rect.y0) < 0.15 * page.rect.height or page.number == 0
    return top and r.height >= cfg.min_figure_pt / 4 and r.width >= max(1.5 * cfg.min_figure_pt, 2 * r.height)


def drawings_in(drawings: list[Drawing], rect: pymupdf.Rect) -> list[Drawing]:
    """The drawings of a region: inside it, or mostly inside it."""
    return [d for d in drawings
            if rect.contains(d["rect"]) or (d["rect"] & rect).get_area() > 0.8 * d["rect"].get_area()]


def _looks_like_table(rect: pymupdf.Rect, rows: list[Row]) -> bool:
    """Ruled or shaded tables draw boxes too; their text rows hold label + numbers across the region."""
    inside = [r for r in rows if r.y0 >= rect.y0 - 2 and r.y1 <= rect.y1 + 2]
    if len(inside) < 3:
        return False
    tabular = sum(1 for r in inside if r.is_table or r.is_header_row)
    return tabular >= 3 and tabular >= 0.4 * len(inside)


def _grow_to_labels(rect: pymupdf.Rect, rows: list[Row], reach: float = 24) -> pymupdf.Rect:
    """A vector chart's drawings exclude its text: take in short label rows (values, axis, title) next to it."""
    grown = pymupdf.Rect(rect)
    for r in rows:
        if r.words > 8 or r.y1 < rect.y0 - reach or r.y0 > rect.y1 + reach:
            continue
        if r.x0 >= rect.x0 - 10 and r.x0 <= rect.x1:
            grown.y0, grown.y1 = min(grown.y0, r.y0), max(grown.y1, r.y1)
    return grown


def page_drawings(page: pymupdf.Page) -> list[Drawing]:
    """The page's vector drawings, without page backgrounds and frames (they would swallow every chart)."""
    area = page.rect.width * page.rect.height
    try:
        return [d for d in page.get_drawings() if d["rect"].width * d["rect"].height < 0.5 * area]
    except Exception:
        return []


def _vector_regions(page: pymupdf.Page, taken: list[pymupdf.Rect], cfg: IngestSettings, rows: list[Row],
                    drawings: list[Drawing], lines: list[cropmod.TextLine]):
    area = page.rect.width * page.rect.height
    if not drawings or len(drawings) > 5000:
        return []
    try:
        if len(drawings) <= 1500:
            prose = [ln.rect for ln in lines if ln.prose]
            clusters = vector_groups(drawings, prose)
        else:  # a page of thousands of shapes (a map, a dense plot): PyMuPDF's clustering, in C
            clusters = _union(page.cluster_drawings(drawings=drawings, x_tolerance=20, y_tolerance=10), pad=4)
    except Exception:
        return []
    out = []
    words = None
    for rect in clusters:
        rect &= page.rect
        if rect.width < cfg.min_figure_pt * 0.5 or rect.height < cfg.min_figure_pt * 0.25:
            continue
        if rect.width * rect.height > 0.85 * area:
            continue
        # Drawings around a raster image (frames, logos beside a photo) are not a chart of their own; a small
        # image inside a chart (an icon, a shadow under its bars) does not make the chart an image's frame.
        if any((rect & t).get_area() > 0.5 * min(rect.get_area(), t.get_area())
               and t.get_area() > 0.25 * rect.get_area() for t in taken):
            continue
        inside = drawings_in(drawings, rect)
        ok, chart_type = chart_of(inside, rect)
        if not ok:
            continue
        # Bars are the weak signal (shaded table cells look alike): then the text must not be a table, unless
        # the bars hold no words (a table's shaded cells hold its labels; a chart's bars at most a value).
        if family(chart_type) == "bar" and _looks_like_table(rect, rows):
            words = words if words is not None else _words(page)
            if _shapes_hold_words(inside, words):
                chart_type = _ring(page, rect, cfg)  # a ring drawn as thick arcs reads as bars holding its labels
                if chart_type is None:
                    continue
        grown = _grow_to_labels(rect, rows)
        # a small chart is still a chart (a rating's three bars, one 100% bar): its labels make up its size
        size = grown | _axis_span(rect, lines)
        if size.width >= cfg.min_figure_pt * 0.75 and size.height >= cfg.min_figure_pt * 0.4:
            out.append((grown, chart_type))
    return out


def _ring(page: pymupdf.Page, rect: pymupdf.Rect, cfg: IngestSettings) -> str | None:
    """"pie" or "donut" when the region's pixels show one (at the figure resolution), else None."""
    try:
        return round_chart_type(render(page, cfg.figure_dpi / 72, clip=rect).tobytes("png"))
    except Exception:
        return None


def _axis_span(rect: pymupdf.Rect, lines: list[cropmod.TextLine], reach: float = 24) -> pymupdf.Rect:
    """The span of a chart's category axis: a row of short labels under or over its drawings, one of them on them,
    the others level with it and within the drawings' width ("2018 2019 2020" under two bars, the first year
    without one). A text line, not a layout row: a row may run on into the body text beside the chart."""
    span = pymupdf.Rect(rect)
    near = [ln for ln in lines if not ln.prose and ln.words <= 3
            and (-reach < ln.rect.y0 - rect.y1 < reach or -reach < rect.y0 - ln.rect.y1 < reach)]
    wide = pymupdf.Rect(rect.x0 - rect.width, rect.y0, rect.x1 + rect.width, rect.y1)
    for ln in near:
        if rect.x0 <= (ln.rect.x0 + ln.rect.x1) / 2 <= rect.x1:
            for o in near:
                if abs(o.rect.y0 - ln.rect.y0) < 2 and wide.x0 <= o.rect.x0 and o.rect.x1 <= wide.x1:
                    span |= o.rect
    return span


def _words(page: pymupdf.Page) -> list[pymupdf.Rect]:
    """The boxes of the page's words of three letters or more (a shape holds a word whose middle it covers)."""
    try:
        return [pymupdf.Rect(w[:4]) for w in page.get_text("words") if sum(c.isalpha() for c in w[4]) >= 3]
    except Exception:
        return []


def _shapes_hold_words(drawings: list[Drawing], words: list[pymupdf.Rect]) -> bool:
    """Words set on the filled shapes: a third of the shapes hold one, or eight words or more lie on shapes (a
    table's shaded cells and bands hold its labels; a chart's bars hold at most a value)."""
    filled = [d["rect"] for d in drawings if d.get("fill") is not None and d["rect"].width > 3 and d["rect"].height > 3]
    if not filled or not words:
        return False
    # every word's middle against every shape at once (a page of a report: hundreds of each); half-open as
    # pymupdf's `point in rect`
    m = np.array([((w.x0 + w.x1) / 2, (w.y0 + w.y1) / 2) for w in words])
    f = np.array([(r.x0, r.y0, r.x1, r.y1) for r in filled])
    inside = (f[:, None, 0] <= m[None, :, 0]) & (m[None, :, 0] < f[:, None, 2]) & \
        (f[:, None, 1] <= m[None, :, 1]) & (m[None, :, 1] < f[:, None, 3])
    return int(inside.any(axis=1).sum()) >= max(1, len(filled) / 3) or int(inside.any(axis=0).sum()) >= 8


def caption_for(rect: pymupdf.Rect, rows: list[Row]) -> tuple[str, str | None]:
    """Caption below or above the figure ('Figure 3:', 'Chart', 'Exhibit'…), else the nearest title line."""
    # Only rows that share the figure's horizontal span: the other column's prose is not its caption.
    rows = [r for r in rows if min(r.x1 or r.x0 + 1, rect.x1) - max(r.x0, rect.x0) > 0]
    below = [r for r in rows if r.y0 >= rect.y1 - 4 and r.y0 - rect.y1 < 60]
    above = [r for r in rows if r.y1 <= rect.y0 + 4 and rect.y0 - r.y1 < 60]
    inside = [r for r in rows if r.y0 >= rect.y0 - 2 and r.y1 <= rect.y1 + 2]
    # a caption above may begin further up: its last line is what lies within reach ("Figure 13: Number of employees
    # by gender" / "as of 31.12.", over a units line, over the chart)
    heads = [r for r in rows if r.y1 <= rect.y0 + 4 and 60 <= rect.y0 - r.y1 < 60 + 4 * r.size]
    for group in (sorted(below, key=lambda r: r.y0), sorted(above, key=lambda r: -r.y0),
                  sorted(inside, key=lambda r: r.y0), sorted(heads, key=lambda r: -r.y0)):
        for r in group:
            m = CAPTION.match(r.text)
            if m and len(r.text) > 4:
                text, last = _caption_block(r, rows)
                if group is not heads or rect.y0 - last.y1 < 60:
                    num = FIG_NUM.search(text)
                    return shorten(text, 400), (num.group(1) if num else None)
    # No explicit caption: a short title-like line just above, or the first line inside the chart.
    near_above = sorted(above, key=lambda r: -r.y0)[:3]
    inside_size = max((r.size for r in inside), default=0)
    emphasised = [r for r in near_above if r.bold or r.size > inside_size + 0.5]
    for r in emphasised + [r for r in sorted(inside, key=lambda r: r.y0)[:6] if not _DATA_LABEL.search(r.text)] \
            + near_above:
        if _title_like(r, 20 if r in emphasised else 14):  # a heading set over a chart may run long
            return shorten(" ".join(t.text for t in _title_lines(r, rows, rect)), 200), None
    return "", None


def _caption_block(r: Row, rows: list[Row]) -> tuple[str, Row]:
    """A caption's text, continued on the following lines of its paragraph, and its last line."""
    text = r.text
    idx = rows.index(r)
    for nxt in rows[idx + 1: idx + 4]:
        if nxt.y0 - r.y1 > nxt.size * 1.2 or len(text) > 300 or CAPTION.match(nxt.text) \
                or abs(nxt.size - r.size) > 0.6 or (text.rstrip().endswith(".") and len(text) > 30):
            break
        text += " " + nxt.text
        r = nxt
    return text, r


# a line inside a chart ending in a printed value ("Allianz S.A. 4.92 %", "Other 3,830") is a label of its data, not
# its title (a title may end in a year or a count: "Revenue 2023", "Top 10")
_DATA_LABEL = re.compile(r"\d[.,]\d+\s*%?\s*$|\d\s*%\s*$")


def _title_lines(r: Row, rows: list[Row], rect: pymupdf.Rect) -> list[Row]:
    """A title and the lines of it set right above it, title-like themselves, no gap between: of the same size
    and weight ("SALES REVENUES AND" over "EBITDA MARGIN DEVELOPMENT"), or larger (a title over its units line,
    "Adjusted EBIT" over "IN MEUR | IN % OF SALES"); and the smaller units line right under it, above the chart."""
    under = [q for q in rows if r.y1 - r.size * 0.5 < q.y0 and q.y0 - r.y1 < r.size * 0.5 and q.y1 <= rect.y0 + 2
             and q.size < r.size - 1 and min(q.x1 or q.x0 + 1, r.x1 or r.x0 + 1) > max(q.x0, r.x0) and _title_like(q)]
    out = [r] + sorted(under, key=lambda q: q.y0)[:1]  # the units line nearest under the title
    for _ in range(2):
        top = out[0]
        up = [q for q in rows if q.y0 < top.y0 - top.size * 0.5 and top.y0 - q.y1 < top.size * 0.5 and q is not top
              and (q.bold == top.bold and abs(q.size - top.size) <= 0.6 or q.size > top.size + 1)
              and min(q.x1 or q.x0 + 1, top.x1 or top.x0 + 1) > max(q.x0, top.x0) and _title_like(q)]
        if not up:
            break
        out.insert(0, max(up, key=lambda q: q.y1))
    return out


def _title_like(r: Row, most: int = 14) -> bool:
    t = r.text.strip()
    return 2 <= r.words <= most and not r.is_table and not t.endswith((".", ",", ";")) \
        and bool(re.search(r"[A-Za-z]{3}", t)) and not t[:1].islower()


def _context_for(rect: pymupdf.Rect, rows: list[Row], caption: str) -> str:
    """The text around a figure: the nearest rows of its own column first (a chart in one column of two is about
    its column's paragraph, not the other's), then the nearest others."""
    near = sorted(rows, key=lambda r: (min(r.x1 or r.x0 + 1, rect.x1) - max(r.x0, rect.x0) <= 0,
                                       min(abs(r.y0 - rect.y1), abs(rect.y0 - r.y1))))
    parts, n = [], 0
    for r in near:
        if r.text in caption or (r.y0 >= rect.y0 and r.y1 <= rect.y1):
            continue
        parts.append(r.text)
        n += len(r.text)
        if n > 500:
            break
    return " ".join(parts)[:600]


def text_inside(page: pymupdf.Page, rect: pymupdf.Rect) -> str:
    try:
        return " ".join(page.get_text("text", clip=rect, flags=pymupdf.TEXT_MEDIABOX_CLIP).split())
    except Exception:
        return ""


def extract_figures(page: pymupdf.Page, page_no: int, rows: list[Row], skip_digests: set[bytes],
                    cfg: IngestSettings, seen_hashes: set[str], ocr=None,
                    furniture: frozenset[str] | set[str] = frozenset()) -> list[Figure]:
    """Figures of one page, largest first, at most cfg.max_figures_per_page. `furniture`: the document's running
    headers and footers (layout.repeated_margin_texts), never a figure's caption, title or context, nor its page
    number."""
    rows = layout.drop_margins(rows, page.rect.height, set(furniture))
    height = page.rect.height
    raster = _raster_regions(page, skip_digests, cfg)
    drawings = page_drawings(page)  # once per page: regions and crops both read them
    # the page's text lines, read once: the regions' labels and prose, captions and crops all read them
    hidden: list[pymupdf.Rect] = []  # lines no reader sees (white on white): never a caption, title or context
    lines = cropmod.text_lines(page, hidden) if raster or 0 < len(drawings) <= 5000 else []
    rows = [r for r in rows if not _hidden(r, hidden)] if hidden else rows
    vector = _vector_regions(page, raster, cfg, rows, drawings, lines)
    regions = [(r, "raster", None) for r in raster] + [(r, "vector", t) for r, t in vector]
    # Panels of one figure ("Figure 3" over four heatmaps) become one figure: same numbered caption.
    merged: dict[str, list] = {}
    singles = []
    for rect, kind, chart_type in regions:
        caption, number = caption_for(rect, rows)
        if number:
            key = number
            if key in merged:
                merged[key][0] |= rect
                continue
            merged[key] = [pymupdf.Rect(rect), kind, chart_type, caption, number]
        else:
            singles.append([rect, kind, chart_type, caption, number])
    furn = [ln.rect for ln in lines if layout.is_furniture(ln.text, ln.rect.y0, ln.rect.y1, height, furniture)]
    words = _words(page) if merged and singles else []
    panels = [r for r in singles if r[1] == "raster" or not _shapes_hold_words(drawings_in(drawings, r[0]), words)]
    singles = [r for r in singles if not any(r is p for p in panels)] + \
        _join_panels(list(merged.values()), panels, [ln.rect for ln in lines if ln.prose])
    regions = list(merged.values()) + singles
    regions.sort(key=lambda x: -x[0].get_area())
    figures: list[Figure] = []
    for rect, kind, chart_type, caption, number in regions[: cfg.max_figures_per_page]:
        display = cropmod.display_crop(page, rect, kind == "raster", lines, drawings,
                                       [r[0] for r in regions if r[0] != rect])
        if not number and caption and " ".join(caption.split()) not in " ".join(page.get_textbox(display).split()):
            caption = _title_in(display, caption, lines) or caption
        if not number and caption and _label_inside(caption, rect, lines):  # a legend's label, not a title
            over = _line_over(rect, display, lines, furn)
            caption = over if over and not caption.startswith(over) else caption
        caption = caption or _line_over(rect, display, lines, furn) or _band_caption(page, rect, furn)
        fig = _figure_of(page, page_no, rect, kind, chart_type, caption, number, rows, cfg, seen_hashes, ocr,
                         display, drawings)
        if fig is not None:
            figures.append(fig)
    return figures


def _hidden(r: Row, hidden: list[pymupdf.Rect]) -> bool:
    box = pymupdf.Rect(r.x0, r.y0, r.x1 or r.x0 + 1, r.y1)
    return any(box.intersects(h) and (box & h).get_area() >= 0.8 * box.get_area() for h in hidden)


def _line_over(rect: pymupdf.Rect, display: pymupdf.Rect, lines: list[cropmod.TextLine],
               furniture: list[pymupdf.Rect]) -> str:
    """A title set right over a chart, within its crop, when the layout's rows ran it on into the body text beside
    it ("ESG Risk Rating" over three bars in a margin column): the nearest short line over it, whole, where the
    crop takes it (a title set flush left over a donut drawn in the middle is the crop's); never a running header
    (`furniture`)."""
    over = [ln for ln in lines if not ln.prose and ln.rect.y1 <= rect.y0 + 2 and display.contains(ln.rect)
            and ln.rect not in furniture]
    def titled(ln: cropmod.TextLine) -> bool:
        t = ln.text.strip()
        return 2 <= ln.words <= 14 and bool(re.search(r"[A-Za-z]{3}", t)) and not t.endswith(".") \
            and not t[:1].islower()

    for ln in sorted(over, key=lambda ln: -ln.rect.y1)[:2]:
        if titled(ln):
            t = ln.text.strip()
            if t.startswith("("):  # a title's parenthetical second line ("(indexed; Dec. 31, 2022 = 100)")
                head = [o for o in over if 0 <= ln.rect.y0 - o.rect.y1 < 0.6 * ln.size and titled(o)
                        and min(o.rect.x1, ln.rect.x1) > max(o.rect.x0, ln.rect.x0)]
                t = f"{max(head, key=lambda o: o.rect.y1).text.strip()} {t}" if head else t
            return t
    return ""


def _label_inside(caption: str, rect: pymupdf.Rect, lines: list[cropmod.TextLine]) -> bool:
    """The caption was read from a line within the chart's region (a legend's or a segment's label, "Cat. 3: Fuel-
    and"; as caption_for reads a line inside), not set above or below it as a title is."""
    return any(len(t := ln.text.strip()) >= 3 and caption.startswith(t) and ln.rect.y0 >= rect.y0 - 2
               and ln.rect.y1 <= rect.y1 + 2 and min(ln.rect.x1, rect.x1) > max(ln.rect.x0, rect.x0) for ln in lines)


def _title_in(display: pymupdf.Rect, caption: str, lines: list[cropmod.TextLine]) -> str:
    """A chart's title as its crop holds it. A title taken from the page's reading-order row may run on into the
    next chart's title ("Share of Employees" over two donuts side by side titled "Share of group sales" and
    "Employees per market"): this chart's share of that row is the top line in its crop made of the row's words,
    with the lines that continue it (same size, right under it)."""
    words = set(caption.split())
    inside = sorted((ln for ln in lines if display.contains(ln.rect.tl + (ln.rect.br - ln.rect.tl) * 0.5)),
                    key=lambda ln: (round(ln.rect.y0), ln.rect.x0))
    seeds = [ln for ln in inside if ln.text.split() and set(ln.text.split()) <= words
             and re.search(r"[A-Za-z]{3}", ln.text)]  # a title has a word: not a value ("B-") that is in the row too
    if not seeds:
        return ""
    own = [ln for ln in seeds if ln.rect.y0 < seeds[0].rect.y0 + 2]
    for ln in inside:
        last = own[-1]
        if ln.rect.y0 > last.rect.y0 + 1 and -2 <= ln.rect.y0 - last.rect.y1 < last.size * 1.2 \
                and abs(ln.size - last.size) <= 0.6 and min(ln.rect.x1, last.rect.x1) > max(ln.rect.x0, last.rect.x0):
            own.append(ln)
    return shorten(" ".join(ln.text.strip() for ln in own), 200)


def _join_panels(numbered: list[list], singles: list[list], prose: list[pymupdf.Rect]) -> list[list]:
    """Panels of a numbered figure without a caption of their own ("Figure 3" under two stacked plots) join it:
    aligned with it (sharing most of its width, or of its height), close, with no prose between (the caller leaves
    out regions whose shapes hold words: a table's shaded cells). Returns the regions that joined none."""
    left = list(singles)
    changed = True
    while changed and numbered:
        changed = False
        for s in list(left):
            for n in numbered:
                a, b = s[0], n[0]
                across = min(a.x1, b.x1) - max(a.x0, b.x0) >= 0.8 * min(a.width, b.width)
                down = min(a.y1, b.y1) - max(a.y0, b.y0) >= 0.8 * min(a.height, b.height)
                gap = max(a.y0 - b.y1, b.y0 - a.y1) if across else max(a.x0 - b.x1, b.x0 - a.x1)
                joined = a | b
                if (across or down) and gap <= 40 and not any(joined.contains((p.tl + p.br) * 0.5) for p in prose):
                    n[0] = joined
                    left.remove(s)
                    changed = True
                    break
    return left


def crop_of(page: pymupdf.Page, rect: pymupdf.Rect) -> pymupdf.Rect:
    return (rect + (-6, -6, 6, 6)) & page.rect


def region_pixmap(page: pymupdf.Page, rect: pymupdf.Rect, source: str, cfg: IngestSettings) -> pymupdf.Pixmap:
    """The region as the classifier reads it (colours, white, OCR of an image): an image at the crop resolution
    (OCR needs it), drawings at the figure resolution (only their colours are read). Ingestion, re-reading stored
    figures and the labelled-figure bench all read a region through this one function."""
    clip = crop_of(page, rect)
    return render(page, crop_zoom(clip, cfg) if source == "raster" else cfg.figure_dpi / 72, clip=clip)


def crop_zoom(clip: pymupdf.Rect, cfg: IngestSettings) -> float:
    """At least twice the width an answer shows a figure at, so that it stays legible when enlarged."""
    return max(cfg.figure_dpi / 72, 2 * DISPLAY_WIDTH_PX / max(clip.width, 1.0))


def _words_inside(page: pymupdf.Page, rect: pymupdf.Rect, away: list[pymupdf.Rect] | None = None) -> str:
    """The words whose middle lies inside the rectangle, in reading order (not the whole lines it touches), none of
    them inside `away`."""
    try:
        words = page.get_text("words", sort=True)
    except Exception:
        return ""
    mids = [(w[4], pymupdf.Point((w[0] + w[2]) / 2, (w[1] + w[3]) / 2)) for w in words]
    return " ".join(t for t, m in mids if m in rect and not any(m in a for a in away or []))


def _band_caption(page: pymupdf.Page, rect: pymupdf.Rect, furniture: list[pymupdf.Rect]) -> str:
    """A label set in the same row as its neighbours' labels: the band just below or above the region (never a
    running header, `furniture`)."""
    for band in (pymupdf.Rect(rect.x0 - 4, rect.y1, rect.x1 + 4, rect.y1 + 22),
                 pymupdf.Rect(rect.x0 - 4, rect.y0 - 22, rect.x1 + 4, rect.y0)):
        t = _words_inside(page, band & page.rect, furniture)
        if 1 <= len(t.split()) <= 10 and re.search(r"[A-Za-z]{3}", t) and not t.endswith(".") \
                and not t[:1].islower():
            return t
    return ""


def glyphs_drawn(drawn: str | None, drawings: list[Drawing]) -> bool:
    """A drawn chart whose labels are drawn as shapes (a plotting library's text as paths): eight or more small
    filled shapes of many curves and lines each, the size of letters and digits, some standing in runs along a line
    as the letters of a word do (an icon's ticks round a dial are as small and as curved, but stand alone)."""
    if drawn not in figkind.CHART_TYPES:
        return False
    glyphs = [d["rect"] for d in drawings if d.get("fill") is not None and len(d["items"]) >= 6
              and d["rect"].width <= 14 and d["rect"].height <= 14]
    return len(glyphs) >= 8 and _glyph_runs(glyphs) >= 3


def needs_ocr(source: str, drawn: str | None, drawings: list[Drawing], rect: pymupdf.Rect, page: pymupdf.Rect,
              text: str) -> bool:
    """OCR reads a region: an image without a text layer; a drawn chart whose labels are all shapes
    (glyphs_drawn); or a drawing, not small, whose text layer is a chart's few words (a title, names, years) without
    two of its values, beside words drawn as outlines (three glyphs or more in runs along a line: "23%" as paths
    beside "2023" and "by 2030"). A drawing of many words is a diagram, not a chart missing its figures."""
    if len(text) < 20 and (source == "raster" or glyphs_drawn(drawn, drawings)):
        return True
    if source == "raster" or drawn not in (*figkind.CHART_TYPES, "curve", None) \
            or rect.get_area() < 0.03 * page.get_area() or len(text.split()) > 25:
        return False
    values = [n for n in re.findall(r"\d[\d,.]*", text) if not re.fullmatch(r"(?:19|20)\d\d", n)]
    return len(values) < 2 and _glyph_runs([d["rect"] for d in drawings if d.get("fill") is not None
                                            and len(d["items"]) >= 6 and 4 <= d["rect"].height <= 40
                                            and d["rect"].width <= 1.5 * d["rect"].height]) >= 3


def ocr_title(lines: list, height: int) -> str:
    """The title an image of a chart carries in its pixels, when the page gives it none: OCR's topmost line in the
    image's top fifth that is a phrase (three words or more, mostly letters, no sentence's end), set no smaller than
    the image's other lines."""
    if not lines:
        return ""
    sizes = sorted(ln.box[3] - ln.box[1] for ln in lines)
    for ln in sorted(lines, key=lambda ln: ln.box[1]):
        if ln.box[1] > 0.2 * height:
            break
        t = ln.text.strip()
        letters = sum(c.isalpha() for c in t)
        if len(t.split()) >= 3 and letters >= 0.6 * len(t.replace(" ", "")) and not t.endswith(".") \
                and ln.box[3] - ln.box[1] >= sizes[len(sizes) // 2] - 1:
            return shorten(t, 200)
    return ""


def _glyph_runs(boxes: list[pymupdf.Rect]) -> int:
    """How many of the boxes stand in runs of two or more along a line, like the letters of a word: of one height,
    on one line, a fraction of a letter apart."""
    boxes = sorted(boxes, key=lambda b: (round(b.y1), b.x0))
    inrun = set()
    for i, a in enumerate(boxes):
        for j in range(i + 1, min(i + 4, len(boxes))):
            b = boxes[j]
            if abs(a.y1 - b.y1) <= 0.2 * a.height and abs(a.height - b.height) <= 0.25 * a.height \
                    and 0 <= b.x0 - a.x1 <= 0.5 * a.height:
                inrun |= {i, j}
    return len(inrun)


def region_signals(page: pymupdf.Page, rect: pymupdf.Rect, kind: str, rows: list[Row], png: bytes, drawn: str | None,
                   caption: str, ocr_lines: list, drawings: list[Drawing], clip: pymupdf.Rect) -> figkind.Signals:
    """A region's signals (figkind.signals_of), with what its drawings add: whether its bars hold words (a table's
    shaded cells do), and, for a drawn chart, its words read over its crop (value and axis labels included).
    Ingestion and re-reading stored figures both read a region through this function."""
    bars = kind == "vector" and family(drawn) == "bar"
    inside = drawings_in(drawings, rect) if bars else []
    bare = bars and not _shapes_hold_words(inside, _words(page)) and cell_grid(inside, rect) < 3
    return figkind.signals_of(page, rect, kind, rows, png, drawn, caption=caption, ocr=ocr_lines, bare_bars=bare,
                              labels=clip if kind == "vector" and drawn in figkind.CHART_TYPES else None,
                              arrows=arrowheads(inside) if bars else 0)


def read_region(page: pymupdf.Page, clip: pymupdf.Rect, rect: pymupdf.Rect, ocr_lines: list, drawings: list[Drawing] | None,
                caption: str, cfg: IngestSettings, png: bytes | None = None, chart_type: str | None = None) -> dict:
    """A chart's reading (rag/ingest/chartread.py) from the words inside its display crop: the text layer, else the
    OCR lines of the region's image and its solid shapes (bars, a legend's swatches), placed back on the page."""
    try:
        words = [(w[0], w[1], w[2], w[3], w[4]) for w in page.get_text("words", clip=clip)]
        lines = page.get_text("dict", clip=clip)["blocks"]
    except Exception:
        words, lines = [], []
    rotated = [" ".join(s["text"] for s in ln["spans"]).strip() for b in lines for ln in b.get("lines", [])
               if abs(ln.get("dir", (1, 0))[0]) < 0.5]
    prose = [ln.rect for ln in cropmod.text_lines(page) if ln.prose and ln.rect.intersects(clip)]
    words = [w for w in words if not any(pymupdf.Point((w[0] + w[2]) / 2, (w[1] + w[3]) / 2) in p for p in prose)]
    inside = [w for w in words if pymupdf.Point((w[0] + w[2]) / 2, (w[1] + w[3]) / 2) in rect]
    if len(inside) < 4 and ocr_lines:
        # an image without a text layer: its own words from OCR, and the page's words around it in the crop (a
        # title, an axis row set as text); a crop's text must not stand in for the image's words
        region = crop_of(page, rect)
        z = crop_zoom(region, cfg)
        words = [w for w in words if w not in inside] + [
            (region.x0 + x0 / z, region.y0 + y0 / z, region.x0 + x1 / z, region.y0 + y1 / z, t)
            for x0, y0, x1, y1, t in figkind.ocr_words(ocr_lines)]
        drawings = (drawings or []) + [
            {"rect": pymupdf.Rect(region.x0 + x0 / z, region.y0 + y0 / z, region.x0 + x1 / z, region.y0 + y1 / z),
             "fill": colour} for x0, y0, x1, y1, colour in (solid_shapes(png) if png else [])]
    return chartread.read_chart(words, drawings or [], caption, [r for r in rotated if r][:4], clip, chart_type)


def _figure_of(page: pymupdf.Page, page_no: int, rect: pymupdf.Rect, kind: str, drawn: str | None, caption: str,
               number: str | None, rows: list[Row], cfg: IngestSettings, seen_hashes: set[str],
               ocr, display: pymupdf.Rect, drawings: list[Drawing] | None = None) -> Figure | None:
    """One region rendered, read (its text layer, else OCR) and classified, and shown as its display crop
    (rag/ingest/crop.py); None when it is a duplicate."""
    clip = display if not display.is_empty else crop_of(page, rect)
    try:
        pix = region_pixmap(page, rect, kind, cfg)  # bounded size
        shown = render(page, crop_zoom(clip, cfg), clip=clip)
    except Exception:
        return None
    if shown.width < 20 or shown.height < 20:
        return None
    png, shown_png = pix.tobytes("png"), shown.tobytes("png")
    digest = hashlib.sha256(shown_png).hexdigest()
    if digest in seen_hashes:
        return None
    seen_hashes.add(digest)
    text = text_inside(page, rect)
    # an image without a text layer, or a chart whose labels are drawn as shapes: OCR reads them
    lines = ocr(png) if ocr is not None and needs_ocr(kind, drawn, drawings_in(drawings or [], rect), rect, page.rect,
                                                      text) else []
    if lines:
        text = " ".join(ln.text for ln in sorted(lines, key=lambda ln: (round(ln.box[1] / 12), ln.box[0])))
        caption = caption or ocr_title(lines, pix.height)
    drawn = (drawn or "curve") if kind == "vector" else None
    sig = region_signals(page, rect, kind, rows, png, drawn, caption, lines, drawings or [], clip)
    k = figkind.classify(sig, caption + " " + text)
    signals = sig.to_json()
    if k.kind == "chart":
        signals["reading"] = read_region(page, clip, rect, lines, drawings, caption, cfg, png, k.chart_type)
        said = chartread.reading_text(signals["reading"])
        text = f"{said}\n{text}" if said else text
    return Figure(page_no, tuple(round(float(v), 1) for v in rect), kind, shown_png, shown.width, shown.height, digest,
                  caption=caption, context=_context_for(rect, rows, caption), ocr_text=text[:2000],
                  chart_type=k.chart_type, number=number, figure_kind=k.kind,
                  kind_why="; ".join(k.why), signals=signals,
                  crop=tuple(round(float(v), 1) for v in clip))
