"""What a chart says, read at ingestion from its words and shapes: its title, legend entries, axis titles and the
values printed on it, each tied to its category or series when the layout shows it ("Scope 1: 1,050 t (8.0%)").

Words come from the text layer inside the chart's crop, or from OCR for an image without one. Words set on one
baseline close together form a phrase. A phrase of a label and a value is a pair as printed ("Scope 1 1,050 t").
A value printed alone belongs to the nearest label in its column (a value over a bar and the category under it)
or its row (a bar's label at its left), never to a tick of an axis (numbers stepping evenly along a line). When
the value sits on a coloured shape (a bar segment, a wedge) whose colour a legend swatch names, that series is
named too. Nothing here knows a word of any language: it reads types (numbers, periods, units) and places."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pymupdf

from rag.domain import MONTH_NAMES
from rag.ingest.drawn import family, fill_colour, range_bars, ring_hole, swatch
from rag.ingest.figkind import glued_numbers, number_value, progression
from rag.ingest.pdf import Drawing

__all__ = ["Phrase", "read_chart", "reading_line", "reading_text"]

# a printed value: a number with its sign, currency, separators, percent or parenthesis
_VALUE = re.compile(r"^[(\-–−+]?[$€£¥]?\d[\d,.' ]*(?:%|[kKmMbBT]|bn|mn|Mio|Mrd)?\)?[%*]?$")
_YEAR = re.compile(r"^(?:FY|GJ|Q[1-4]|H[12])?\s?'?(?:19|20)\d{2}(?:/\d{2,4})?$|^(?:FY|Q[1-4]|H[12])\s?'?\d{2}$", re.I)
_UNIT = re.compile(r"^[(\[]?[%‰]?[A-Za-z€$£%µ]{1,6}[\d₂₃]{0,2}(?:[-/][A-Za-z€$%]{1,5}[\d₂]?)?[)\]]?[.,;]?$")
_SCALE = re.compile(r"^(?:thousand|million|billion|trillion|mn|mio|bn|mrd|tsd|k)$", re.I)
# a month's name, whole or cut ("Dec"), never a word that starts like one ("Market", "Decline")
_MONTH = re.compile("|".join(MONTH_NAMES) + "|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec")
# a rating's grade printed over a bar as its value (an ESG or a credit rating: "BBB", "A", "B-", "C+")
_GRADE = re.compile(r"^(?:A{1,3}|B{1,3}|C{1,3}|D)[+\-–]?$")
MAX_VALUES = 40
MAX_PHRASE_WORDS = 10  # a longer phrase is a sentence, not a label and its value
MARKER = 12.0  # a line's point is drawn at most this size (pt); a bar is wider


@dataclass
class Phrase:
    rect: pymupdf.Rect
    words: list[str]

    @property
    def text(self) -> str:
        return " ".join(self.words)


# a value with its share set without a space: "777(30.0%)"
_GLUED = re.compile(r"^([(\-–−+]?[$€£¥]?\d[\d,.]*)(\(\d[\d,.]*\s?%\))$")


def _unglued(words: list[tuple[float, float, float, float, str]]) -> list[tuple[float, float, float, float, str]]:
    """Words holding values set without a space made one word each, each with its share of the box: a value and
    its share ("777(30.0%)"), values of neighbouring bars whose labels touch ("24.324.725.7")."""
    out = []
    for x0, y0, x1, y1, t in words:
        m = _GLUED.match(t)
        parts = [m.group(1), m.group(2)] if m else glued_numbers(t)
        x = x0
        for part in parts:
            w = (x1 - x0) * len(part) / max(1, sum(map(len, parts)))
            out.append((x, y0, x + w, y1, part))
            x += w
    return out


def _phrases(words: list[tuple[float, float, float, float, str]],
             breaks: list[pymupdf.Rect] | None = None) -> list[Phrase]:
    """Words on one baseline, each within a character height of the last: one phrase. A legend's swatch set
    between two words (`breaks`) parts them: "■ 2022 ■ 2023" is two entries."""
    out: list[Phrase] = []
    for x0, y0, x1, y1, t in sorted(_unglued(words), key=lambda w: (round((w[1] + w[3]) / 2), w[0])):
        h = max(1.0, y1 - y0)
        for p in reversed(out[-6:]):
            ph = max(1.0, p.rect.height)
            if any(b.y0 < y1 and y0 < b.y1 and p.rect.x0 < (b.x0 + b.x1) / 2 < (x0 + x1) / 2 for b in breaks or []):
                continue
            if abs((p.rect.y0 + p.rect.y1) / 2 - (y0 + y1) / 2) < 0.45 * max(h, ph) and -1 <= x0 - p.rect.x1 < 1.0 * h:
                p.words.append(t)
                p.rect |= pymupdf.Rect(x0, y0, x1, y1)
                break
        else:
            out.append(Phrase(pymupdf.Rect(x0, y0, x1, y1), [t]))
    return out


# a footnote mark set as a superscript, glued by the text layer to a label's last word of small letters ("Free
# float2", "BlackRock1"); a formula or a unit ("CO2", "m2", "Scope 3") keeps its digit
_MARK = re.compile(r"(?<=[a-z]{3})\d{1,2}$")


def _unmarked(label: str) -> str:
    return _MARK.sub("", label)


def _aligned(a: pymupdf.Rect, b: pymupdf.Rect, h: float) -> bool:
    """Two lines of one label: they overlap across, and share their left edge, right edge or centre."""
    return min(a.x1, b.x1) > max(a.x0, b.x0) and min(abs(a.x0 - b.x0), abs(a.x1 - b.x1),
                                                     abs((a.x0 + a.x1) / 2 - (b.x0 + b.x1) / 2)) <= h


def _label_blocks(phrases: list[Phrase], keep: set[int]) -> list[Phrase]:
    """A round chart's labels set on two or three lines beside its ring ("Passenger" over "Cars & LCV 74.0%", a
    name over its value): a line of words only is joined with the line right under it, of its size and aligned
    with it, until the label holds a value; not when a line right over it is nearer (a value over its name, "4.90%"
    over "BlackRock", the next value under). Phrases in `keep` (a legend's entries) stay as they are."""
    order = sorted(range(len(phrases)), key=lambda i: (phrases[i].rect.y0, phrases[i].rect.x0))
    used: set[int] = set()
    out = []

    def gap(a: Phrase, b: Phrase, h: float) -> float | None:
        """b's distance under a, when b is the next line of a's label: aligned, of its size, close."""
        d = b.rect.y0 - a.rect.y1
        ok = _aligned(a.rect, b.rect, h) and -0.2 * h <= d < 0.6 * h and abs(b.rect.height - h) <= 0.15 * h
        return d if ok else None
    for i in order:
        if i in used:
            continue
        used.add(i)
        cur = Phrase(pymupdf.Rect(phrases[i].rect), list(phrases[i].words))
        h = max(1.0, phrases[i].rect.height)
        over = [d for k in order if k != i and (d := gap(phrases[k], phrases[i], h)) is not None]
        while i not in keep and not _split(cur)[1] and len(cur.words) < MAX_PHRASE_WORDS:
            under = [(d, j) for j in order
                     if j not in used and j not in keep and (d := gap(cur, phrases[j], h)) is not None]
            if not under or (over and min(over) <= min(under)[0]):
                break
            j = min(under)[1]
            used.add(j)
            cur.words += phrases[j].words
            cur.rect |= phrases[j].rect
        out.append(cur)
    return out


def _values_apart(phrases: list[Phrase]) -> list[Phrase]:
    """A run of bare values on one baseline ("24.3 24.7 25.7" over a group of bars) is one value a bar: each its own
    phrase, with its share of the box. A value with its share in brackets ("1,050 (8.0%)") stays one."""
    out = []
    for p in phrases:
        if len(p.words) < 2 or not all(_is_value(w) and not w.startswith("(") for w in p.words):
            out.append(p)
            continue
        x, total = p.rect.x0, sum(len(w) + 1 for w in p.words)
        for w in p.words:
            x1 = x + p.rect.width * (len(w) + 1) / total
            out.append(Phrase(pymupdf.Rect(x, p.rect.y0, x1, p.rect.y1), [w]))
            x = x1
    return out


def _is_value(t: str) -> bool:
    return bool(_VALUE.match(t)) and not _YEAR.match(t.strip("()"))


def _unit(t: str) -> bool:
    """A unit or scale after a value: short (t, m, bn, MWh, EUR), with a digit (tCO2e, m²), a symbol, a parenthesised
    share "(8.0%)", or a scale word."""
    t = t.strip(".,;:")
    return bool(len(t) <= 3 or re.search(r"\d|[%‰€$£/²³]", t) or _SCALE.match(t)) and not _YEAR.match(t)


def _day(words: list[str], i: int) -> bool:
    """The number at `i` is a date's day, next to its month ("31 December 2022", "Dec. 31, 2022"), not a value."""
    if not re.fullmatch(r"\(?\d{1,2}(?:st|nd|rd|th)?[,.)]?", words[i]):
        return False
    near = [words[j].strip("(),.").lower() for j in (i - 1, i + 1) if 0 <= j < len(words)]
    return any(_MONTH.fullmatch(x) for x in near)


_BOUND = ("<", ">", "≤", "≥", "<=", ">=")
_DASH = ("–", "-", "—", "to")


def _class_bounds(w: list[str], i: int, j: int) -> bool:
    """The numbers at w[i:j] bound a class, and the phrase names it ("< 30 years", "30 – 50 years", "≥ 5 km"): a
    bound (a sign of comparison before the number) or a range (two numbers joined by a dash), no word before it,
    and a word of letters after it that is no unit. A share or a count of that class is a value of its own, printed
    apart; a bound with its unit alone ("< 1%") is a value."""
    bound = (i > 0 and w[i - 1] in _BOUND) or w[i][:1] in "<>≤≥"
    span = w[i:j]
    ranged = len(span) >= 3 and span[1] in _DASH and _is_value(span[2])
    before = " ".join(w[: i - 1 if i > 0 and w[i - 1] in _BOUND else i])
    after = w[j] if j < len(w) else ""
    return (bound or ranged) and not re.search(r"[A-Za-z]", before) and bool(re.fullmatch(r"[A-Za-z]{3,}[.,]?", after))


def _split(p: Phrase) -> tuple[str, str]:
    """(label, value) of a phrase. The value starts at its first number that is not part of the label (a year, or
    a small whole number right after a word and before another number: "Scope 1 1,050 t") and takes the units
    after it; the label is what comes before, else the words after ("474 Sweden")."""
    w = p.words
    for i, t in enumerate(w):
        if not _is_value(t):
            continue
        small = re.fullmatch(r"\d{1,2}", t) and i > 0 and re.search(r"[A-Za-z]", w[i - 1]) \
            and any(_is_value(x) for x in w[i + 1:])
        if small or _day(w, i):
            continue
        j = i + 1
        while j < len(w) and j - i <= 3 and (_is_value(w[j]) or _unit(w[j])):
            j += 1
        if _class_bounds(w, i, j):
            return " ".join(w), ""
        label = " ".join(w[:i]).strip(" :–-") or " ".join(w[j:]).strip(" :–-")
        return label, " ".join(w[i:j])
    return " ".join(w), ""


def _ticks(phrases: list[Phrase]) -> set[int]:
    """Phrases that are an axis's tick labels: lone numbers stepping evenly down a column or along a line."""
    lone = [(i, p, v) for i, p in enumerate(phrases) if len(p.words) == 1 and _is_value(p.words[0])
            and (v := number_value(p.words[0])) is not None]
    out: set[int] = set()
    for axis in ("col", "row"):
        groups: list[list] = []
        key = (lambda e: e[1].rect.x1) if axis == "col" else (lambda e: (e[1].rect.y0 + e[1].rect.y1) / 2)
        for e in sorted(lone, key=key):
            if groups and abs(key(e) - key(groups[-1][-1])) <= 3:
                groups[-1].append(e)
            else:
                groups.append([e])
        for g in groups:
            g.sort(key=(lambda e: e[1].rect.y0) if axis == "col" else (lambda e: e[1].rect.x0))
            if len(g) >= 3 and progression([e[2] for e in g]):
                out |= {e[0] for e in g}
    return out


def _gap(a: pymupdf.Rect, b: pymupdf.Rect) -> tuple[float, float]:
    return max(a.x0 - b.x1, b.x0 - a.x1, 0.0), max(a.y0 - b.y1, b.y0 - a.y1, 0.0)


def _nearest_label(v: Phrase, labels: list[Phrase], reach: float) -> Phrase | None:
    """The label of a value printed alone: a category under it in its column (a value over a bar, the category
    under the bar) or at its left in its row (a horizontal bar's label); a label above or at the right counts
    three times its distance; a label in neither its column nor its row only within reach."""
    best, best_d = None, math.inf
    for lab in labels:
        gx, gy = _gap(v.rect, lab.rect)
        if gx == 0 and gy > 0:
            d = gy if lab.rect.y0 >= v.rect.y1 - 1 else 3 * gy
        elif gy == 0 and gx > 0:
            d = gx if lab.rect.x1 <= v.rect.x0 + 1 else 3 * gx
        elif gx == 0 and gy == 0:
            d = 0.0
        else:
            d = math.hypot(gx, gy) * 2
            if d > reach:
                continue
        if d < best_d:
            best, best_d = lab, d
    return best


def _in_title(p: Phrase, title: str) -> bool:
    """A phrase that is the chart's title, or part of it: several words set in it as whole words. One word that the
    title also holds (a year, a country) is still a label or a value."""
    if not title:
        return False
    t, low = title.lower(), p.text.lower()
    return low == t.strip() or (len(p.words) >= 2 and re.search(rf"(?<!\w){re.escape(low)}(?!\w)", t) is not None)


def _axis_rows(labels: list[Phrase]) -> list[list[Phrase]]:
    """Rows of a category axis: two or more labels on one baseline, side by side, left to right."""
    rows: list[list[Phrase]] = []
    for p in sorted(labels, key=lambda p: (p.rect.y0 + p.rect.y1) / 2):
        cy = (p.rect.y0 + p.rect.y1) / 2
        if rows and abs(cy - (rows[-1][0].rect.y0 + rows[-1][0].rect.y1) / 2) <= 0.4 * max(p.rect.height, 1.0):
            rows[-1].append(p)
        else:
            rows.append([p])
    out = []
    for r in rows:
        r.sort(key=lambda p: p.rect.x0)
        if len(r) >= 2 and all(a.rect.x1 <= b.rect.x0 for a, b in zip(r, r[1:])):
            out.append(r)
    return out


def _axis_label(v: Phrase, rows: list[list[Phrase]]) -> Phrase | None:
    """The category under a value: in the nearest axis row below it, the label whose centre is nearest the value's,
    within half the spacing of the row's labels (a value over its bar, or set beside a narrow stacked bar)."""
    below = [r for r in rows if r[0].rect.y0 >= v.rect.y1 - 1]
    if not below:
        return None
    row = min(below, key=lambda r: r[0].rect.y0)
    cx = (v.rect.x0 + v.rect.x1) / 2
    centres = [(p.rect.x0 + p.rect.x1) / 2 for p in row]
    step = min(b - a for a, b in zip(centres, centres[1:]))
    d, best = min((abs(c - cx), i) for i, c in enumerate(centres))
    return row[best] if d <= 0.5 * step else None


def _bar_row_label(v: Phrase, drawings: list[Drawing], labels: list[Phrase]) -> str:
    """The label of a horizontal bar's row, for a value printed right under or over one of its segments (and so in
    neither the label's row nor its column): the label set at the bar's left, level with it."""
    h = max(v.rect.height, 1.0)
    bars = [d["rect"] for d in drawings if d.get("fill") is not None and d["rect"].width > d["rect"].height >= 3
            and min(v.rect.x1, d["rect"].x1) > max(v.rect.x0, d["rect"].x0) and _gap(v.rect, d["rect"])[1] <= 1.5 * h]
    if not bars:
        return ""
    bar = min(bars, key=lambda r: _gap(v.rect, r)[1])
    left = [lab for lab in labels if lab.rect.x1 <= bar.x0 + 1 and bar.y0 - 2 <= (lab.rect.y0 + lab.rect.y1) / 2
            <= bar.y1 + 2]
    return max(left, key=lambda lab: lab.rect.x1).text if left else ""


def _below_header(labels: list[Phrase], values: list[Phrase]) -> list[Phrase]:
    """A bar chart's labels less its header: with a row of categories under every value (its axis), a phrase set
    above every value is a line of its title or its units ("of rentable area"), not a category."""
    if not values:
        return labels
    top, bottom = min(v.rect.y0 for v in values), max(v.rect.y1 for v in values)
    if not any(r[0].rect.y0 >= bottom - 1 for r in _axis_rows(labels)):
        return labels
    return [lab for lab in labels if lab.rect.y1 > top]


def _grades(phrases: list[Phrase], ticks: set[int]) -> set[int]:
    """Phrases that are a rating's grade printed over a bar as its value ("BBB", "A-"), not a category: a letter set
    in a row of categories that are not grades (the classes "A", "B" … "H" along an axis) names its bars."""
    grades = {i for i, p in enumerate(phrases) if len(p.words) == 1 and _GRADE.match(p.words[0])}
    words = [i for i, p in enumerate(phrases) if i not in ticks and not _split(p)[1] and len(p.words) <= 6]
    for row in _axis_rows([phrases[i] for i in words]):
        if len(row) >= 3 and any(not _GRADE.match(p.text) for p in row):
            grades -= {i for i in grades if any(phrases[i] is p for p in row)}
    return grades


def _beside(v: Phrase, lab: Phrase) -> bool:
    """A label set in the value's own row, or directly over or under it."""
    gx, gy = _gap(v.rect, lab.rect)
    return gy == 0 or (gx == 0 and gy <= 1.5 * max(v.rect.height, 1.0))


def _line_key(r: pymupdf.Rect) -> bool:
    """A line chart's legend key by its size: a short horizontal stroke or thin bar (6-30 pt long, 3 pt high at
    most), the line of its series drawn small."""
    return 6 <= r.width <= 30 and r.height <= 3


def _swatches(drawings: list[Drawing], crop: pymupdf.Rect, lines: bool = False
              ) -> list[tuple[pymupdf.Rect, tuple, bool]]:
    """A legend's colour keys: small filled squares or discs, and, for a line chart (`lines`), short strokes or thin
    bars of one colour that do not run on into another line (a rule drawn in pieces); in a pie the like are the
    leader lines to its labels. (rect, colour, is a line key)."""
    out: list[tuple[pymupdf.Rect, tuple, bool]] = []
    flat = [pymupdf.Rect(d["rect"]) for d in drawings if d["rect"].height <= 3] if lines else []
    for d in drawings:
        r = pymupdf.Rect(d["rect"])
        if not crop.contains(r):
            continue
        if (colour := fill_colour(dict(d))) is not None and swatch(r):
            out.append((r, colour, False))
            continue
        stroke = d.get("color")
        colour = colour or (tuple(round(v, 2) for v in stroke) if stroke else None)
        if lines and colour is not None and _line_key(r) and not any(
                o != r and abs(o.y0 - r.y0) <= 1 and (abs(o.x0 - r.x1) <= 1 or abs(o.x1 - r.x0) <= 1) for o in flat):
            out.append((r, colour, True))
    return out


def _legend(phrases: list[Phrase], swatches: list[tuple[pymupdf.Rect, tuple, bool]]
            ) -> tuple[dict[tuple, str], list[pymupdf.Rect], set[str]]:
    """(colour → the label set just right of its swatch, the swatches that are keys, the lines of two-line labels).
    A label may run over two lines beside its key ("under 30" / "years old"): the lines beside the key's height,
    aligned at its left, read as one name. A line key's label is centred on it (an underline is not a key)."""
    out: dict[tuple, str] = {}
    keys: list[pymupdf.Rect] = []
    used: set[str] = set()
    for r, colour, line in swatches:
        right = [p for p in phrases if 0 <= p.rect.x0 - r.x1 < 12 and abs((p.rect.y0 + p.rect.y1) / 2 - (r.y0 + r.y1) / 2)
                 < (p.rect.height * 0.35 if line else max(4.0, p.rect.height * 0.6))]
        if not right:
            continue
        first = min(right, key=lambda p: p.rect.x0)
        block = sorted((p for p in phrases if abs(p.rect.x0 - first.rect.x0) < 3 and p.rect.y1 > r.y0 - 2
                        and p.rect.y0 < r.y1 + 2), key=lambda p: p.rect.y0)
        label = " ".join(p.text for p in block) if len(block) > 1 else _split(first)[0].strip()
        if label and (re.search(r"[A-Za-z]", label) or _YEAR.match(label)):  # a series may be a period: "2022"
            out.setdefault(colour, label)
            keys.append(r)
            used.update(p.text.lower() for p in block if len(block) > 1)  # a one-line key may hold its value
    return out, keys, used


def _series_at(v: Phrase, drawings: list[Drawing], legend: dict[tuple, str], keys: list[pymupdf.Rect]) -> str:
    """The legend's name for the colour of the marker right beside the value (a line's point), else of the shape it
    sits on or just above, else of the shape right over it (a value printed under its segment). A shape holding a
    legend key (`keys`) is the panel the chart is drawn on, or the key itself, never a series' shape: a white panel
    is not the series of a white-filled marker."""
    if not legend:
        return ""
    c = pymupdf.Point((v.rect.x0 + v.rect.x1) / 2, (v.rect.y0 + v.rect.y1) / 2)
    below = pymupdf.Point(c.x, v.rect.y1 + max(3.0, 0.6 * v.rect.height))
    above = pymupdf.Point(c.x, v.rect.y0 - max(3.0, 0.6 * v.rect.height))
    under, over, near = "", "", []
    for d in reversed(drawings):
        r, colour = d["rect"], fill_colour(d)
        if colour not in legend or r.width > 400 or any(r.contains(k) for k in keys):
            continue
        if not under and (c in r or below in r):
            under = legend[colour]
        if not over and above in r:  # a value printed under its segment, where no shape lies under it
            over = legend[colour]
        gx, gy = _gap(v.rect, r)
        if max(r.width, r.height) <= MARKER and max(gx, gy) <= max(v.rect.height, 3.0):
            near.append((gx + gy, legend[colour]))
    return min(near)[1] if near else under or over  # a point's value is set beside it, over whatever shape lies there


def _glyph_drawings_out(words: list[tuple[float, float, float, float, str]]
                        ) -> list[tuple[float, float, float, float, str]]:
    """The words, less the text layer's glyphs that are drawings (a ring or a bar set in a symbol font): a "word" of no
    letter or digit of the Latin alphabet, more than three times as tall as the words' median height, whose box
    would lie over every label of the chart."""
    if not words:
        return words
    heights = sorted(w[3] - w[1] for w in words)
    tall = 3 * heights[len(heights) // 2]
    return [w for w in words if w[3] - w[1] <= tall or re.search(r"[A-Za-z0-9]", w[4])]


def _in_hole(p: Phrase, hole: tuple[pymupdf.Point, float]) -> bool:
    """The phrase is set in a donut's hole: its centre within the hole's inner radius of the ring's centre."""
    centre, radius = hole
    return math.dist(((p.rect.x0 + p.rect.x1) / 2, (p.rect.y0 + p.rect.y1) / 2), (centre.x, centre.y)) < radius


def _extent(words: list[tuple[float, float, float, float, str]], region: pymupdf.Rect | None) -> pymupdf.Rect:
    """The crop and every word read in it."""
    crop = pymupdf.Rect(region) if region is not None else pymupdf.Rect()
    for w in words:
        crop |= pymupdf.Rect(w[:4])
    return crop


def read_chart(words: list[tuple[float, float, float, float, str]], drawings: list[Drawing], title: str = "",
               rotated: list[str] | None = None, region: pymupdf.Rect | None = None,
               chart_type: str | None = None) -> dict:
    """A chart's reading: {"title", "legend", "axes", "values": [{"label", "value"}]} from the words inside its
    crop `region` (page coordinates) and the page's drawings; `chart_type` as classified (a pie's or a donut's
    labels may run over lines)."""
    words = _glyph_drawings_out(words)
    crop = _extent(words, region)
    inside = crop + (-1, -1, 1, 1)
    if chart_type in (None, "other") and (bars := range_bars([d for d in drawings if inside.contains(d["rect"])], crop)):
        values = [{"label": label, "value": value} for label, value in _ranges(words, bars)]
        return {"title": title, "legend": [], "axes": rotated or [], "values": values}
    swatches = _swatches(drawings, crop + (-2, -2, 2, 2), lines=family(chart_type) == "line")
    phrases = _values_apart(_phrases(words, [r for r, _, _ in swatches]))
    legend, keys, used = _legend(phrases, swatches) if phrases else ({}, [], set())
    names = {n.lower() for n in legend.values()} | used
    if family(chart_type) == "pie":
        phrases = _label_blocks(phrases, {i for i, p in enumerate(phrases) if _split(p)[0].lower() in names})
    ticks = _ticks(phrases)
    grades = _grades(phrases, ticks) if family(chart_type) == "bar" else set()
    # a category's label: short, not the chart's title, not a legend entry, not a grade
    labels = [p for i, p in enumerate(phrases) if i not in ticks and not _split(p)[1] and re.search(r"[A-Za-z0-9]", p.text)
              and len(p.words) <= 6 and not _in_title(p, title) and _split(p)[0].lower() not in names
              and i not in grades]
    reach = max(40.0, 0.25 * max(crop.width, crop.height)) if phrases else 0.0
    if family(chart_type) == "bar":
        labels = _below_header(labels, [p for i, p in enumerate(phrases) if i not in ticks and _split(p)[1]])
    rows = _axis_rows(labels)
    hole = ring_hole([d for d in drawings if "items" in d and crop.contains(d["rect"])]) \
        if chart_type == "donut" else None
    values = []
    for i, p in enumerate(phrases):
        label, value = ("", p.text) if i in grades else _split(p)
        if i in ticks or not value or len(p.words) > MAX_PHRASE_WORDS or _in_title(p, title) or \
                p.text.lower() in used:
            continue
        centre = hole is not None and _in_hole(p, hole)  # in a donut's hole: over no series
        series = "" if centre else _series_at(p, drawings, legend, keys)
        if not label:
            near = _nearest_label(p, [lab for lab in labels if lab.text != series], reach)
            axis = _axis_label(p, rows)
            if axis is not None and (near is None or not _beside(p, near)):
                near = axis
            label = near.text if near else _bar_row_label(p, drawings, labels)
        if series and series not in label:
            label = f"{series}, {label}" if label else series
        if centre and "%" not in value and "total" not in label.lower():
            label = f"total {label}".strip()
        values.append({"label": _unmarked(label), "value": value})
        if len(values) >= MAX_VALUES:
            break
    return {"title": title, "legend": list(dict.fromkeys(legend.values())), "axes": rotated or [], "values": values}


def _ranges(words: list[tuple[float, float, float, float, str]], bars: list[pymupdf.Rect]) -> list[tuple[str, str]]:
    """A range bar chart's values: each bar's row label (the phrase at the row's left, before the bar) and what is
    printed along its row after the label (its start and end: "737 MAX 7: 2011 – 2019")."""
    values = []
    for bar in bars[:MAX_VALUES]:
        mid, h = (bar.y0 + bar.y1) / 2, bar.height
        row = sorted((p for p in _phrases([w for w in words if abs((w[1] + w[3]) / 2 - mid) < 0.6 * h + 1])),
                     key=lambda p: p.rect.x0)
        if len(row) < 2 or row[0].rect.x1 > bar.x0:
            continue
        values.append((_unmarked(row[0].text), " – ".join(p.text for p in row[1:])))
    return values


def reading_text(reading: dict | None) -> str:
    """The reading as one line a search and an answer can read: "Scope 1: 1,050 t (8.0%); Scope 2: 420 t", and the
    legend's series no value names ("series: freenet, MDAX, TecDAX": a line chart's lines, printed nowhere else)."""
    if not reading:
        return ""
    pairs = [f"{v['label']}: {v['value']}" if v["label"] else v["value"] for v in reading.get("values", [])]
    named = " ".join(v["label"] for v in reading.get("values", [])).lower()
    series = [s for s in reading.get("legend", []) if s.lower() not in named]
    return "; ".join(pairs + ([f"series: {', '.join(series)}"] if series else []))


def reading_line(stored_text: str | None) -> str:
    """The reading stored in front of a chart's text (its first line, when the text has several): what a figure
    shown reads as, for the answer's JSON and the debug view."""
    head, sep, _ = (stored_text or "").partition("\n")
    return head if sep else ""
