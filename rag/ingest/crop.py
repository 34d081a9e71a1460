"""The crop of a figure: its graphic, the labels drawn next to it (axis values, legend), its caption or the title
set above it as page text — and nothing else. Body prose and the graphics of neighbouring figures bound the crop:
it never slices a line of text or takes part of another figure."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pymupdf

from rag.ingest.drawn import fill_colour, swatch
from rag.ingest.pdf import Drawing

FIGURE_WORDS = r"figure|fig\.?|chart|exhibit|graph|graphic|diagram|illustration"  # what a caption starts with
FIGURE_NUMBER = r"([0-9]+[a-z]?|[ivx]+|[A-Z]\.?\d*)?"
# a caption, a source or a note under a figure
CAPTION = re.compile(rf"^\s*(({FIGURE_WORDS}|source|note)s?\b|[*†¹²³])", re.I)
# a numbered figure caption, "Figure 3:"
FIGURE_CAPTION = re.compile(rf"^\s*({FIGURE_WORDS})\s*{FIGURE_NUMBER}\s*[:.|\-–—]", re.I)
HEADING = re.compile(r"^\s*(\d+(\.\d+)+\.?|[A-Z]\.?\d*)\s+[A-Z]")  # "3.3.1. Results", "F Partial …"
SENTENCE = re.compile(r"[a-z)]\.(\s+[A-Z]|\s*$)")  # a sentence ends in the line
MARGIN = 4.0
LABEL_REACH = 16.0  # a label row sits this close to the graphic or to a label already taken
SIDE_REACH = 90.0  # axis values, callouts and legends beside the plot
TITLE_REACH = 30.0
LEADER_REACH = 12.0  # a leader line ends this close to its label
KEY_REACH = 40.0  # a legend's swatches are set at most this far from the plot
GROUND_PAD = 3.0  # the ground around a panel is read this far off its edge
TRIM_DPI = 50  # an image's background margins are found at this resolution
BLEED = 0.02  # an image this close to the page's edge (a share of the page) bleeds to it


@dataclass
class TextLine:
    rect: pymupdf.Rect
    text: str
    size: float
    prose: bool = False  # running text: a long line in a paragraph of long lines, or a sentence; never a label

    @property
    def words(self) -> int:
        return len(self.text.split())


def text_lines(page: pymupdf.Page, hidden: list[pymupdf.Rect] | None = None) -> list[TextLine]:
    """The page's text lines with their boxes, rotated ones included (a y-axis title is a label too); not a line
    no reader sees (white on white: a template's leftover text), whose box goes to `hidden` when given."""
    try:
        blocks = page.get_text("dict", flags=pymupdf.TEXT_MEDIABOX_CLIP)["blocks"]
    except Exception:
        return []
    out, bold = [], []
    for b in blocks:
        for ln in b.get("lines", []):
            spans = [s for s in ln.get("spans", []) if s.get("text", "").strip()]
            if not spans:
                continue
            text = " ".join(" ".join(s["text"].split()) for s in spans)
            box = pymupdf.Rect(ln["bbox"])
            if all(_whitish(s.get("color", 0)) for s in spans) and _blank(page, box):
                if hidden is not None:
                    hidden.append(box)
                continue
            if any(o.text == text and abs(o.rect.x0 - box.x0) < 1 and abs(o.rect.y0 - box.y0) < 1 for o in out[-4:]):
                continue  # a line printed twice over itself (a bold effect) is one line
            out.append(TextLine(box, text, max(s["size"] for s in spans)))
            bold.append(all((s.get("flags", 0) & 16) or "bold" in s.get("font", "").lower() for s in spans))
    wordy = [ln for ln in out if ln.words >= 5]
    for ln, strong in zip(out, bold):
        ln.prose = not strong and _long(ln) and (bool(SENTENCE.search(ln.text)) or any(
            o is not ln and abs(o.rect.y0 - ln.rect.y0) < 1.6 * ln.size and abs(o.size - ln.size) < 1
            and min(o.rect.x1, ln.rect.x1) - max(o.rect.x0, ln.rect.x0) > 0.5 * min(o.rect.width, ln.rect.width)
            for o in wordy))
    return out


def _whitish(colour: int) -> bool:
    return all((colour >> shift) & 0xFF >= 0xF0 for shift in (16, 8, 0))


def _blank(page: pymupdf.Page, box: pymupdf.Rect) -> bool:
    """No glyph shows in the box: white text on a white ground renders as white, but for the rules the box may
    cross (a pixel row of one tone)."""
    try:
        pix = page.get_pixmap(clip=box, dpi=72, colorspace=pymupdf.csGRAY, alpha=False)
    except Exception:
        return False
    a = np.frombuffer(pix.samples, np.uint8).reshape(pix.h, pix.w)
    a = a[a.max(axis=1) - a.min(axis=1) > 8]  # rows of one tone are rules or fills, not glyphs
    return float((a < 240).mean()) < 0.01 if a.size else True


def _long(ln: TextLine) -> bool:
    """Many words, mostly letters, wide."""
    if ln.words < 8:
        return False
    letters = sum(c.isalpha() for c in ln.text)
    digits = sum(c.isdigit() for c in ln.text)
    return letters > 4 * max(digits, 1) and ln.rect.width > 150


def _beside(box: pymupdf.Rect, g: pymupdf.Rect, b: pymupdf.Rect) -> bool:
    """A short label beside the graphic (axis values, callouts, a legend): level with the graphic or a label
    already taken, in a band at its side."""
    if not (b.y1 >= box.y0 - LABEL_REACH and b.y0 <= box.y1 + LABEL_REACH) or b.width > 120:
        return False
    return g.x0 - SIDE_REACH <= b.x0 and b.x1 <= g.x0 + 2 or g.x1 - 2 <= b.x0 and b.x1 <= g.x1 + 1.6 * SIDE_REACH


def _stacked(box: pymupdf.Rect, g: pymupdf.Rect, b: pymupdf.Rect) -> bool:
    """A label above or below: within the graphic's width; above, close to the graphic (values over bars, a unit
    line); below, close to the graphic or to a label already taken (axis values, axis title, legend rows)."""
    if not (b.x0 >= g.x0 - LABEL_REACH * 2.5 and b.x1 <= g.x1 + LABEL_REACH * 2.5):
        return False
    above = b.y1 <= g.y0 + 2 and g.y0 - b.y1 <= LABEL_REACH
    below = b.y0 >= g.y1 - 2 and b.y0 <= box.y1 + LABEL_REACH
    return above or below or g.intersects(b)


def _other_column(ln: TextLine, g: pymupdf.Rect, lines: list[TextLine]) -> bool:
    """A line inside another text column (a column of prose beside the figure, not across it): not a label."""
    return any(o.prose and o.rect.x0 <= ln.rect.x0 + 1 and o.rect.x1 >= ln.rect.x1 - 1
               and (o.rect.x1 < g.x0 or o.rect.x0 > g.x1) and abs(o.rect.y0 - ln.rect.y0) < 200 for o in lines)


def _aligned_with_prose(ln: TextLine, lines: list[TextLine], beside: pymupdf.Rect | None = None) -> bool:
    """The line starts where nearby prose lines start (of a column beside `beside`, when given): it is that
    column's text, not a chart's label."""
    return any(o.prose and o is not ln and abs(o.rect.x0 - ln.rect.x0) < 2.5 and abs(o.rect.y0 - ln.rect.y0) < 80
               and (beside is None or o.rect.x1 < beside.x0 or o.rect.x0 > beside.x1) for o in lines)


def _in_text_column(ln: TextLine, g: pymupdf.Rect, lines: list[TextLine]) -> bool:
    """A line of words that starts where the prose of a column beside the figure starts."""
    return ln.words >= 2 and any(c.isalpha() for c in ln.text) and _aligned_with_prose(ln, lines, g)


def graphic_of(rect: pymupdf.Rect, raster: bool, drawings: list[Drawing],
               labels: list[pymupdf.Rect] | None = None, others: list[pymupdf.Rect] | None = None) -> pymupdf.Rect:
    """What is drawn of a region: an image's box, or the union of the vector drawings mostly inside it (the
    region was grown to its label rows; the crop takes labels by its own rules)."""
    if raster:
        return pymupdf.Rect(rect)
    out = pymupdf.Rect()
    curved = False
    for d in drawings:
        r = d["rect"]
        if rect.contains(r) or (r & rect).get_area() > 0.8 * r.get_area():
            out |= r
            curved = curved or any(it[0] == "c" for it in d["items"])
    if out.is_empty:
        return pymupdf.Rect(rect)
    out = (out & rect) | _leaders(out, drawings, labels or [], others or []) if curved else out & rect
    return out | _keys(out, drawings, others or [])


def _keys(graphic: pymupdf.Rect, drawings: list[Drawing], others: list[pymupdf.Rect]) -> pymupdf.Rect:
    """A legend's keys set apart from the plot (a row of swatches under a bar): small squares filled with a colour
    of the graphic's own shapes, within KEY_REACH of it and nearer to it than to any other figure, whose whole row
    (or column) of swatches lies under or over it (or beside it): a legend running past it is another figure's."""
    inside = {fill_colour(d) for d in drawings if graphic.contains(d["rect"]) and d["rect"].width > 20} - {None}
    squares = [d["rect"] for d in drawings if fill_colour(d) is not None and swatch(d["rect"])]
    out = _own_legend(graphic, drawings, {fill_colour(d) for d in drawings if graphic.contains(d["rect"])} - {None},
                      others)
    for d in drawings:
        r = d["rect"]
        if fill_colour(d) not in inside or graphic.contains(r) or not swatch(r) or _gap(graphic, r) > KEY_REACH \
                or any(_gap(o, r) < _gap(graphic, r) for o in others):
            continue
        row = [q for q in squares if abs((q.y0 + q.y1) - (r.y0 + r.y1)) < 4]
        col = [q for q in squares if abs((q.x0 + q.x1) - (r.x0 + r.x1)) < 4]
        if all(graphic.x0 - KEY_REACH / 2 <= q.x0 and q.x1 <= graphic.x1 + KEY_REACH / 2 for q in row) \
                or all(graphic.y0 - KEY_REACH / 2 <= q.y0 and q.y1 <= graphic.y1 + KEY_REACH / 2 for q in col):
            out |= r
    return out


def _own_legend(graphic: pymupdf.Rect, drawings: list[Drawing], colours: set,
                others: list[pymupdf.Rect]) -> pymupdf.Rect:
    """A legend of the chart's own colours: keys of three or more of its colours, each a colour of its own, within
    three KEY_REACH of it and nearer to it than to any other figure. Such a legend is the chart's though set wider
    than a narrow chart or farther off (two columns of keys centred under two thin bars)."""
    keys = [(d["rect"], fill_colour(d)) for d in drawings if fill_colour(d) in colours and swatch(d["rect"])
            and not graphic.contains(d["rect"]) and _gap(graphic, d["rect"]) <= 3 * KEY_REACH
            and not any(_gap(o, d["rect"]) < _gap(graphic, d["rect"]) for o in others)]
    found = {c for _, c in keys}
    out = pymupdf.Rect()
    if len(found) >= 3 and len(found) == len(keys) and len(found) >= 0.6 * len(colours):
        for r, _ in keys:
            out |= r
    return out


def _leaders(graphic: pymupdf.Rect, drawings: list[Drawing], labels: list[pymupdf.Rect],
             others: list[pymupdf.Rect]) -> pymupdf.Rect:
    """The leader lines of a round chart: straight strokes that start on its drawing and run out of it to a label
    (a pie's or a donut's callouts), though the region found for it stopped short of them. A stroke whose far end
    is at no short line of text (`labels`) leads nowhere: an axis, a rule; one that reaches another figure's region
    (`others`) is a connector between two figures, or leads to that figure's label."""
    out = pymupdf.Rect(graphic)
    for d in drawings:
        items = d["items"]
        if d.get("type") != "s" or not items or len(items) > 3 or any(it[0] != "l" for it in items):
            continue
        ends = [items[0][1], items[-1][2]]
        if sum(p in graphic for p in ends) != 1 or abs(ends[0] - ends[1]) >= 3 * max(graphic.width, graphic.height):
            continue
        far = ends[0] if ends[1] in graphic else ends[1]
        reach = pymupdf.Rect(graphic) | far
        if any(reach.intersects(o) and not o.intersects(graphic) for o in others):
            continue
        if any(far in r + (-LEADER_REACH, -LEADER_REACH, LEADER_REACH, LEADER_REACH) for r in labels):
            for p in ends:
                out |= p
    return out


def framed(graphic: pymupdf.Rect, drawings: list[Drawing]) -> bool:
    """A chart drawn in a box of its own: its labels and legend are inside the box. The box is a rectangle's
    outline (a line chart's series may span the plot as widely, but it is no box)."""
    area = graphic.get_area()
    return area > 0 and any(d["rect"] in graphic + (-2, -2, 2, 2) and d["rect"].get_area() > 0.9 * area
                            and d.get("type") in ("s", "fs") and _box_path(d) for d in drawings)


def _box_path(d: Drawing) -> bool:
    """A rectangle's path: one rectangle, or three to five straight strokes, each level or upright."""
    items = d["items"]
    if len(items) == 1:
        return items[0][0] in ("re", "qu")
    return 3 <= len(items) <= 5 and all(it[0] == "l" and (abs(it[1].x - it[2].x) < 0.5 or abs(it[1].y - it[2].y) < 0.5)
                                        for it in items)


def _margin_band(page: pymupdf.Rect, b: pymupdf.Rect) -> bool:
    """Running headers and footers sit in the top and bottom bands of the page."""
    return b.y1 < page.y0 + 0.06 * page.height or b.y0 > page.y1 - 0.05 * page.height


def _gap(a: pymupdf.Rect, b: pymupdf.Rect) -> float:
    return max(a.x0 - b.x1, b.x0 - a.x1, 0.0) + max(a.y0 - b.y1, b.y0 - a.y1, 0.0)


def _labels(page_rect: pymupdf.Rect, box: pymupdf.Rect, lines: list[TextLine], raster: bool,
            others: list[pymupdf.Rect]) -> tuple[pymupdf.Rect, set[int]]:
    """Grow the graphic to the short label lines next to it, a step at a time (values, axis, legend); a label
    nearer another figure's graphic is that figure's."""
    taken: set[int] = set()
    graphic = pymupdf.Rect(box)
    for _ in range(4):
        grew = False
        for i, ln in enumerate(lines):
            if i in taken or ln.prose or ln.words > 10 or CAPTION.match(ln.text):
                continue
            if not graphic.contains(ln.rect) and any(_gap(o, ln.rect) < _gap(graphic, ln.rect) for o in others):
                continue
            inside = box.contains(ln.rect)
            if ln.rect.y1 <= graphic.y0 + 2 and (_aligned_with_prose(ln, lines) or HEADING.match(ln.text)):
                continue  # a heading or a line of the text above, not a label over the plot
            near = not raster and not _ends_paragraph(ln, lines) and not _in_text_column(ln, graphic, lines) \
                and not _other_column(ln, graphic, lines) \
                and not _margin_band(page_rect, ln.rect) \
                and (_stacked(box, graphic, ln.rect) or (ln.words <= 5 and _beside(box, graphic, ln.rect))) \
                and not _table_cell(ln, lines, graphic)
            if inside or near:
                taken.add(i)
                if not inside:
                    box |= ln.rect
                    grew = True
        if not grew:
            break
    return box, taken


def _paragraph(start: int, lines: list[TextLine], box: pymupdf.Rect) -> list[int]:
    """The caption's lines: its first line and the lines of the same paragraph after it."""
    ordered = sorted((i for i, ln in enumerate(lines) if min(ln.rect.x1, box.x1) - max(ln.rect.x0, box.x0) > 0
                      and ln.rect.y0 > lines[start].rect.y0 + 1), key=lambda i: lines[i].rect.y0)
    out, chars, cur = [start], len(lines[start].text), lines[start]
    for j in ordered:
        nxt = lines[j]
        if nxt.rect.y0 - cur.rect.y1 > cur.size * 0.9 or chars > 400 or FIGURE_CAPTION.match(nxt.text) \
                or abs(nxt.size - cur.size) > 1.5 or nxt.rect.intersects(box):
            break
        out.append(j)
        chars += len(nxt.text)
        cur = nxt
    return out


def _caption(box: pymupdf.Rect, lines: list[TextLine], taken: set[int]) -> list[int]:
    """The figure's caption below or above it ('Figure 3: …', 'Source: …'), whole paragraph. A figure has one
    numbered caption: with one under it and one over it (a figure stacked under another, each captioned below), the
    nearer is its own."""
    found: list[tuple[float, int, list[int]]] = []
    for below in (True, False):
        cands = [i for i, ln in enumerate(lines) if i not in taken and CAPTION.match(ln.text)
                 and min(ln.rect.x1, box.x1) - max(ln.rect.x0, box.x0) > 0.3 * min(ln.rect.width, box.width)
                 and (0 <= ln.rect.y0 - box.y1 < 40 if below else 0 <= box.y0 - ln.rect.y1 < 40)]
        if cands:
            first = min(cands, key=lambda i: abs(lines[i].rect.y0 - (box.y1 if below else box.y0)))
            gap = lines[first].rect.y0 - box.y1 if below else box.y0 - lines[first].rect.y1
            found.append((gap, first, _paragraph(first, lines, box)))
    if len(found) == 2 and all(FIGURE_CAPTION.match(lines[first].text) for _, first, _ in found):
        found = [min(found, key=lambda f: f[0])]
    return [i for _, _, para in found for i in para]


def _shared(ln: TextLine, box: pymupdf.Rect, others: list[pymupdf.Rect]) -> bool:
    """A line over two figures side by side: it reaches over another figure level with this one (their common
    title), so it is neither's alone."""
    return any(min(ln.rect.x1, o.x1) - max(ln.rect.x0, o.x0) > 0 and o.y0 < box.y1 and o.y1 > box.y0
               for o in others)


def _units_line(t: str) -> bool:
    """A chart's units line set over it: three words at most, a percent or currency sign, no figure ("In %",
    "in € m")."""
    return len(t.split()) <= 3 and bool(re.search(r"[%‰€$£¥]", t)) and not re.search(r"\d", t)


def _title(page_rect: pymupdf.Rect, box: pymupdf.Rect, lines: list[TextLine], skip: set[int],
           others: list[pymupdf.Rect]) -> list[int]:
    """A title set above the graphic as page text (and its subtitle line): short, not a sentence, not shared
    with a figure beside it."""
    out: list[int] = []
    top = box.y0
    for _ in range(2):
        above = [i for i, ln in enumerate(lines) if i not in skip and i not in out and ln.rect.y1 <= top + 4
                 and ln.rect.y0 < top - 2
                 and top - ln.rect.y1 < (TITLE_REACH if not out else ln.size * 1.2)
                 and min(ln.rect.x1, box.x1) - max(ln.rect.x0, box.x0) > 0]
        if not above:
            break
        ticks = [i for i in above if _BARE.fullmatch(lines[i].text.strip())]  # an axis's top tick, not a wall
        if not out and ticks and len(ticks) < len(above):
            above = [i for i in above if i not in ticks]
            top = min(top, min(lines[i].rect.y0 for i in ticks))
        i = max(above, key=lambda i: lines[i].rect.y1)
        ln = lines[i]
        t = ln.text.strip()
        if ln.words > 16 or t.endswith((".", ";", ",")) or not (re.search(r"[A-Za-z]{3}", t) or _units_line(t)) \
                or _data_row(ln, lines, box) or _ends_paragraph(ln, lines) or _in_text_column(ln, box, lines) \
                or _margin_band(page_rect, ln.rect) \
                or HEADING.match(t) or _shared(ln, box, others):
            break
        out.append(i)
        top = ln.rect.y0
    return out


_BARE = re.compile(r"[-+(]?\d[\d,.]*%?\)?")  # a figure alone on its line: a table's cell


def _data_row(ln: TextLine, lines: list[TextLine], box: pymupdf.Rect) -> bool:
    """The line is a row's label with three bare figures or more level with it over the figure ("POLYTEC GROUP |
    184,740 | 100% | 180,303"): a row of a table, never a title, which names what follows. A legend's entries
    ("■ DAX: 119.1 %") carry their own names, and a title's digits ("Scope 1 and 2", "CO 2") are no row."""
    bare = [o for o in lines if o is not ln and abs((o.rect.y0 + o.rect.y1) - (ln.rect.y0 + ln.rect.y1)) < ln.size
            and min(o.rect.x1, box.x1) > max(o.rect.x0, box.x0) and _BARE.fullmatch(o.text.strip())]
    return len(bare) >= 3


def _table_cell(ln: TextLine, lines: list[TextLine], g: pymupdf.Rect) -> bool:
    """A cell of a table set beside the graphic: its row runs on away from the graphic, with two cells or more
    and a row label among them (a table's "Highest price for the year | € | 244.50 | 216.20"), where a chart's
    side label (an axis value, a callout) ends its row; or a figure alone (a column's head, "2022") over two
    such cells of its column."""
    if _row_cell(ln, lines, g):
        return True
    if not _BARE.fullmatch(ln.text.strip()):
        return False
    column = [o for o in lines if o is not ln and 0 < o.rect.y0 - ln.rect.y0 < 12 * ln.size
              and (abs(o.rect.x1 - ln.rect.x1) < 2 or abs(o.rect.x0 - ln.rect.x0) < 2)]
    return sum(_row_cell(o, lines, g) for o in column[:6]) >= 2


def _row_cell(ln: TextLine, lines: list[TextLine], g: pymupdf.Rect) -> bool:
    mid = (ln.rect.y0 + ln.rect.y1) / 2
    left = ln.rect.x1 <= g.x0 + 2
    far = [o for o in lines if o is not ln and not o.prose and abs((o.rect.y0 + o.rect.y1) / 2 - mid) < ln.size / 2
           and (o.rect.x1 <= ln.rect.x0 if left else o.rect.x0 >= ln.rect.x1) and not o.rect.intersects(g)]
    return len(far) >= 2 and any(sum(c.isalpha() for c in o.text) >= 3 for o in far)


def _ends_paragraph(ln: TextLine, lines: list[TextLine]) -> bool:
    """The short last line of a paragraph of prose, not a title: prose sits right above it at its size."""
    return any(o.prose and 0 <= ln.rect.y0 - o.rect.y1 < ln.size * 0.8 and abs(o.size - ln.size) < 1
               and abs(o.rect.x0 - ln.rect.x0) < 3 for o in lines)


def _fence(crop: pymupdf.Rect, keep: pymupdf.Rect, walls: list[pymupdf.Rect]) -> pymupdf.Rect:
    """Pull each edge of the crop back from a wall (a prose line, another figure) without cutting into keep."""
    crop = pymupdf.Rect(crop)
    for w in walls:
        if not (crop & w).get_area() > 0 or w.intersects(keep):
            continue
        cuts = []
        if w.y1 <= keep.y0 + 1:
            cuts.append(("y0", w.y1 + 0.5))
        if w.y0 >= keep.y1 - 1:
            cuts.append(("y1", w.y0 - 0.5))
        if w.x1 <= keep.x0 + 1:
            cuts.append(("x0", w.x1 + 0.5))
        if w.x0 >= keep.x1 - 1:
            cuts.append(("x1", w.x0 - 0.5))
        for edge, v in cuts[:1]:
            setattr(crop, edge, max(getattr(crop, edge), v) if edge in ("y0", "x0") else min(getattr(crop, edge), v))
    return crop


def panel_of(graphic: pymupdf.Rect, drawings: list[Drawing]) -> pymupdf.Rect | None:
    """The smallest panel a graphic is drawn on: a filled or framed rectangle around it, not much larger than a
    figure (a page background or a column's tint is no panel)."""
    best = None
    for d in drawings:
        r = d["rect"]
        if len(d["items"]) != 1 or d["items"][0][0] not in ("re", "qu") or not r.contains(graphic) or r == graphic:
            continue
        if r.get_area() < 6 * graphic.get_area() and (best is None or r.get_area() < best.get_area()):
            best = pymupdf.Rect(r)
    return best


def seen(page: pymupdf.Page, panel: pymupdf.Rect, drawings: list[Drawing]) -> bool:
    """Whether a reader sees the panel: a tint or a frame. A box of the ground's own colour, unstroked, is not seen
    (a chart's white background, as a design tool exports it, on a white page)."""
    box = next((d for d in drawings if d["rect"] == panel and len(d["items"]) == 1), None)
    return box is None or not _unseen(page, box)


def _unseen(page: pymupdf.Page, box: Drawing) -> bool:
    """A box no reader sees: unstroked, and filled with the colour of the ground around it (a chart's own white
    background, as a design tool exports it, on a white page). Such a box bounds nothing; a tint or a frame does."""
    fill, r = box.get("fill"), box["rect"]
    if fill is None or (box.get("color") is not None and (box.get("width") or 0) > 0):
        return False
    try:
        outer = (r + (-GROUND_PAD, -GROUND_PAD, GROUND_PAD, GROUND_PAD)) & page.rect
        pix = page.get_pixmap(clip=outer, dpi=72, colorspace=pymupdf.csRGB, alpha=False)
    except Exception:
        return False
    a = np.frombuffer(pix.samples, np.uint8).reshape(pix.h, pix.w, 3)
    k = max(1, int(GROUND_PAD * pix.w / max(outer.width, 1)) - 1)  # the ring's width in pixels, off the box's edge
    sides = [a[:k], a[-k:], a[:, :k], a[:, -k:]]
    gaps = [r.y0 - outer.y0, outer.y1 - r.y1, r.x0 - outer.x0, outer.x1 - r.x1]  # a side at the page's edge has none
    ring = [side.reshape(-1, 3) for side, gap in zip(sides, gaps, strict=True) if gap >= GROUND_PAD - 0.5]
    if not ring:
        return False
    ground = np.median(np.concatenate(ring), axis=0)
    return bool(np.abs(ground - np.array(fill[:3]) * 255).max() <= 12)


def _panel_labels(panel: pymupdf.Rect, graphic: pymupdf.Rect, lines: list[TextLine], others: list[pymupdf.Rect],
                  taken: set[int]) -> list[int]:
    """Short lines on the graphic's panel that are nearer to it than to any other figure on the panel: its title,
    unit line, callouts and legend, however far from the drawing they are set."""
    out = []
    for i, ln in enumerate(lines):
        if i in taken or ln.prose or ln.words > 10 or not panel.contains(ln.rect):
            continue
        own = _gap(graphic, ln.rect)
        if all(own < _gap(o, ln.rect) for o in others if panel.intersects(o)):
            out.append(i)
    return out


def tight_crop(page: pymupdf.Page, graphic: pymupdf.Rect, lines: list[TextLine], closed: bool,
               others: list[pymupdf.Rect], panel: pymupdf.Rect | None = None, bounds: bool = True) -> pymupdf.Rect:
    """The crop of one figure: graphic + labels + caption or title, fenced off from prose and other figures.
    A closed graphic (an image, a chart in a box) holds its own labels; a graphic on a panel takes the labels of
    the panel nearest to it. A panel a reader sees (`bounds`) also bounds the crop and where its title is; a box no
    reader sees does not (a legend or a title set beside a chart's white box is the chart's)."""
    others = [o for o in others if not o.intersects(graphic)]
    box, taken = _labels(page.rect, pymupdf.Rect(graphic), lines, closed, others)
    if panel is not None:
        for i in _panel_labels(panel, graphic, lines, others, taken):
            taken.add(i)
            box |= lines[i].rect
    cap = _caption(box if panel is None else box | panel, lines, taken)  # a caption under the panel
    title = [] if any(FIGURE_CAPTION.match(lines[i].text) for i in cap) else \
        _title(page.rect, box, lines, taken | set(cap), others)
    if title and not cap:  # a numbered caption set over the title's lines ("Figure 13: …" over "Unit as specified")
        head = _caption(box | lines[title[-1]].rect, lines, taken | set(title))
        cap = head if head and FIGURE_CAPTION.match(lines[head[0]].text) else []
    # a chart on a panel: its title is on the panel too, or set right over it, larger than the page's prose (not a
    # paragraph's last line)
    if panel is not None and bounds:
        on = [i for i in title if panel.contains(lines[i].rect)]
        body = sorted(ln.size for ln in lines if ln.prose)
        over = bool(title) and panel.y0 - lines[title[0]].rect.y1 < TITLE_REACH / 2 and bool(body) \
            and all(lines[i].size >= body[len(body) // 2] + 1 for i in title)
        title = on or (title if over else [])
    keep = pymupdf.Rect(box)
    for i in cap + title:
        keep |= lines[i].rect
    walls = [ln.rect for i, ln in enumerate(lines) if i not in taken and i not in cap and i not in title]
    walls += others
    crop = _fence(keep + (-MARGIN, -MARGIN, MARGIN, MARGIN), keep, walls)
    if panel is not None and bounds:  # what belongs to a chart on a panel is on the panel, but its caption and title
        bound = panel + (-MARGIN, -MARGIN, MARGIN, MARGIN)
        for i in cap + title:
            bound |= lines[i].rect + (-MARGIN, -MARGIN, MARGIN, MARGIN)
        crop &= bound
    return crop & page.rect


def content_of(page: pymupdf.Page, rect: pymupdf.Rect) -> pymupdf.Rect:
    """What an image shows, as the page renders it (with any text set over it): its box less the margins of its
    own background colour on the sides where it bleeds to the page's edge (a chart padded with white out to the
    edge). The box itself when nothing is trimmed or the content would be a sliver."""
    try:
        pix = page.get_pixmap(clip=rect, dpi=TRIM_DPI, colorspace=pymupdf.csRGB, alpha=False)
    except Exception:
        return pymupdf.Rect(rect)
    if pix.w < 4 or pix.h < 4:
        return pymupdf.Rect(rect)
    a = np.frombuffer(pix.samples, np.uint8).reshape(pix.h, pix.w, 3).astype(np.int16)
    border = np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]])
    colours, counts = np.unique(border // 8, axis=0, return_counts=True)
    if counts.max() < 0.6 * len(border):  # what it shows reaches its edges: no margin of one colour
        return pymupdf.Rect(rect)
    drawn = np.abs(a - (colours[counts.argmax()] * 8 + 4)).sum(axis=2) > 30  # away from the margin's colour
    rows, cols = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
    if not len(rows):
        return pymupdf.Rect(rect)
    sx, sy = rect.width / pix.w, rect.height / pix.h
    out = pymupdf.Rect(rect.x0 + cols[0] * sx, rect.y0 + rows[0] * sy, rect.x0 + (cols[-1] + 1) * sx,
                       rect.y0 + (rows[-1] + 1) * sy) & rect
    if out.width < 0.2 * rect.width or out.height < 0.2 * rect.height:
        return pymupdf.Rect(rect)
    # only the sides that bleed to the page's edge are cut: within the page, an image's margin is its layout
    page_rect, edge = page.rect, BLEED * max(page.rect.width, page.rect.height)
    return pymupdf.Rect(out.x0 if rect.x0 <= page_rect.x0 + edge else rect.x0,
                        out.y0 if rect.y0 <= page_rect.y0 + edge else rect.y0,
                        out.x1 if rect.x1 >= page_rect.x1 - edge else rect.x1,
                        out.y1 if rect.y1 >= page_rect.y1 - edge else rect.y1)


def display_crop(page: pymupdf.Page, region: pymupdf.Rect, raster: bool, lines: list[TextLine],
                 drawings: list[Drawing], others: list[pymupdf.Rect]) -> pymupdf.Rect:
    """The crop shown for a figure region: ingestion, re-cropping stored figures and the bench crop through it."""
    graphic = graphic_of(region, raster, drawings, [ln.rect for ln in lines if not ln.prose and ln.words <= 10], others)
    graphic = content_of(page, graphic) if raster else graphic
    panel = panel_of(graphic, drawings) if not raster else None
    return tight_crop(page, graphic, lines, raster or framed(graphic, drawings), others, panel,
                      bounds=panel is None or seen(page, panel, drawings))
