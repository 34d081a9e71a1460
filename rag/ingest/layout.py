"""Page layout: spans → lines → reading-order rows (columns, table rows kept whole), headings, repeated
headers/footers. Pure functions over pymupdf's get_text("dict") output, so tests can feed them directly."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from rag.domain import PERIOD_END_MONTHS
from rag.quantities import scale_of
from rag.statements import statement_of_title

_NUMERIC_CELL = re.compile(r"^[\s$€£(]*[-–—]?\$?\s*\(?\d[\d,./]*\)?\s*%?\)?[\s*]*$|^[-–—]+$")
_YEARISH = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b|\b(quarter|months|weeks|fiscal|year|ended|"
                      + "|".join(PERIOD_END_MONTHS) + r"|q[1-4])\b", re.I)
_ITEM = re.compile(r"^(item\s+\d{1,2}[a-c]?\b\.?|part\s+[ivx]+\b)", re.I)
_NUMBERED = re.compile(r"^((\d{1,2})(\.\d{1,2}){0,3})\.?\s+[A-Z]")
_APPENDIX_LETTER = re.compile(r"^[A-H](\.\d{1,2})*\.?\s+[A-Z][a-z]")
_STICKY = {"$", "€", "£", "(", ")", "%", ")%"}
# What a PDF's text layer carries that no reader should see: control characters (C0 but tab and line ends, DEL,
# C1; a BEL drawn as a bullet shows as a box) and invisible format characters (zero-width space, word joiner,
# byte-order mark). Line and form feeds inside a span become spaces. Text stored before issue 36 was cleaned the same way (migration 090, now squashed into the baseline).
_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\u200b\u2060\ufeff]")
_BREAKS = re.compile("[\x0a-\x0d]")
_SOFT_HYPHEN_END = re.compile("\u00ad\\s*$")


def clean_text(text: str, line_end: bool = True) -> str:
    """Text without control or invisible characters. A soft hyphen (U+00AD) ending a line (line_end: the text is
    a line's last span) is where a word was broken, so it becomes a hyphen that the paragraph builder joins like
    any other; elsewhere it goes."""
    text = _BREAKS.sub(" ", _INVISIBLE.sub("", text))
    if "\u00ad" in text:
        text = (_SOFT_HYPHEN_END.sub("-", text) if line_end else text).replace("\u00ad", "")
    return text


@dataclass
class Line:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool
    cells: list[str] = field(default_factory=list)  # text pieces with wide gaps between them

    @property
    def width(self) -> float:
        return self.x1 - self.x0


@dataclass
class Row:
    """One reading-order line of a page: a text line, or a whole table row (label and numbers)."""

    text: str
    page: int  # 1-based
    y0: float
    y1: float
    x0: float
    size: float
    bold: bool
    cells: list[str]
    is_table: bool = False
    is_header_row: bool = False
    heading_level: float | None = None
    x1: float = 0.0

    @property
    def words(self) -> int:
        return len(self.text.split())


_RTL_CHAR = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")  # Hebrew, Arabic, Syriac, Thaana


def lines_from_dict(page_dict: dict) -> list[Line]:
    """Lines of a page from get_text('dict'); spans far apart on one line become separate cells."""
    out: list[Line] = []
    for block in page_dict.get("blocks", []):
        if block.get("type", 0) != 0:
            continue
        for ln in block.get("lines", []):
            raw = ln.get("spans", [])
            spans = [{**s, "text": clean_text(s.get("text", ""), i == len(raw) - 1)} for i, s in enumerate(raw)]
            spans = [s for s in spans if s["text"].strip()]
            if not spans:
                continue
            if abs(ln.get("dir", (1, 0))[1]) > 0.5:  # vertical text (margins, rotated labels)
                continue
            cells, cur, last_x0, last_x1 = [], "", None, None
            rtl = any(_RTL_CHAR.search(s["text"]) for s in spans)
            for s in spans:
                gap = 0.0
                if last_x1 is not None:  # spans come in logical order: right to left in Hebrew or Arabic
                    leftward = rtl and s["bbox"][0] < last_x0 - 1
                    gap = last_x0 - s["bbox"][2] if leftward else s["bbox"][0] - last_x1
                currency = s["text"].strip() in {"$", "€", "£"} and cur.strip() not in {"", "$", "€", "£"}
                if last_x1 is not None and (gap > max(6.0, s["size"] * 1.2) or (currency and gap > 1.0)):
                    cells.append(cur.strip())
                    cur = ""
                elif cur and gap > s["size"] * 0.15 and not cur.endswith(" ") and not s["text"].startswith(" "):
                    cur += " "
                cur += s["text"]
                last_x0, last_x1 = s["bbox"][0], s["bbox"][2]
            cells.append(cur.strip())
            cells = [c for c in cells if c]
            size = max(s["size"] for s in spans)
            chars = sum(len(s["text"].strip()) for s in spans) or 1
            bold_chars = sum(len(s["text"].strip()) for s in spans
                             if (s.get("flags", 0) & 16) or "bold" in s.get("font", "").lower()
                             or "black" in s.get("font", "").lower())
            x0, y0, x1, y1 = ln["bbox"]
            out.append(Line(" ".join(cells), x0, y0, x1, y1, round(size, 1), bold_chars / chars > 0.8, cells))
    return out


def is_numeric(cell: str) -> bool:
    return bool(_NUMERIC_CELL.match(cell)) and any(ch.isdigit() for ch in cell) or cell.strip() in {"—", "–", "-"}


def _join_cells(cells: list[str]) -> list[str]:
    """Glue '$' / '(' / '%' pieces to their number so '$ | 1,234' reads '$1,234'."""
    out: list[str] = []
    split: list[str] = []
    for c in cells:  # "$18,400 $" → "$18,400", "$": a currency sign belongs to the next number
        if len(c) > 2 and c[-1] in "$€£" and c[-2] == " ":
            split.extend([c[:-2].rstrip(), c[-1]])
        else:
            split.append(c)
    for c in split:
        if out and (out[-1] in _STICKY or c in {")", "%", ")%"}):
            out[-1] = (out[-1] + c) if out[-1] in {"$", "€", "£", "("} else out[-1] + c
        else:
            out.append(c)
    return out


def _mostly_rtl(parts: list[Line]) -> bool:
    letters = sum(ch.isalpha() for p in parts for ch in p.text)
    return letters > 0 and sum(len(_RTL_CHAR.findall(p.text)) for p in parts) > letters / 2


def _rows_from_lines(lines: list[Line], page_no: int) -> list[Row]:
    """Cluster lines sharing a baseline into rows (left to right)."""
    rows: list[Row] = []
    for ln in sorted(lines, key=lambda l: ((l.y0 + l.y1) / 2, l.x0)):
        mid = (ln.y0 + ln.y1) / 2
        if rows:
            r = rows[-1]
            tol = max(2.0, min(r.size, ln.size) * 0.45)
            if abs(mid - (r.y0 + r.y1) / 2) <= tol:
                r._parts.append(ln)  # type: ignore[attr-defined]
                r.y0, r.y1 = min(r.y0, ln.y0), max(r.y1, ln.y1)
                continue
        r = Row("", page_no, ln.y0, ln.y1, ln.x0, ln.size, ln.bold, [])
        r._parts = [ln]  # type: ignore[attr-defined]
        rows.append(r)
    for r in rows:
        parts = sorted(r._parts, key=lambda l: l.x0)  # type: ignore[attr-defined]
        if _mostly_rtl(parts):  # Hebrew, Arabic: a row reads from its right edge
            parts = parts[::-1]
        cells: list[str] = []
        for p in parts:
            cells.extend(p.cells)
        cells = _join_cells(cells)
        # "1 | Introduction": a section number set apart from its title is a heading, not a table row.
        if len(cells) == 2 and re.fullmatch(r"(\d{1,2}(\.\d{1,2}){0,3}|[A-H](\.\d{1,2}){0,2})\.?", cells[0]) \
                and re.match(r"[A-Z][A-Za-z]", cells[1]) and len(cells[1].split()) <= 12:
            cells = [f"{cells[0]} {cells[1]}"]
        r.cells = cells
        r.x0 = min(p.x0 for p in parts)
        r.x1 = max(p.x1 for p in parts)
        r.size = max(p.size for p in parts)
        r.bold = all(p.bold for p in parts)
        numeric = sum(is_numeric(c) for c in cells)
        years = sum(bool(re.fullmatch(r"\s*(19[5-9]\d|20[0-4]\d)\s*", c)) for c in cells)
        periodish = sum(bool(_YEARISH.search(c)) for c in cells)
        r.is_header_row = len(cells) >= 2 and periodish >= 2 and numeric == years
        r.is_table = len(cells) >= 2 and numeric >= 1 and not r.is_header_row
        if len(cells) > 6 and numeric < 0.4 * len(cells):  # justified prose set word by word, not a table
            r.is_table = r.is_header_row = False
            cells = [" ".join(cells)]
            r.cells = cells
        r.text = " | ".join(cells) if len(cells) >= 2 and (r.is_table or r.is_header_row) else " ".join(cells)
        del r._parts  # type: ignore[attr-defined]
    return rows


def reading_order(lines: list[Line], page_width: float, page_no: int) -> list[Row]:
    """Rows in reading order. Two-column pages (long lines on both sides of an empty gutter) are read
    column by column between full-width lines; everything else row by row, so table rows stay whole."""
    if not lines:
        return []
    mid = page_width / 2
    long_lines = [l for l in lines if l.width > page_width * 0.25]
    left = [l for l in long_lines if l.x1 <= mid + 5]
    right = [l for l in long_lines if l.x0 >= mid - 5]
    crossing = [l for l in long_lines if l.x0 < mid - 5 and l.x1 > mid + 5]
    two_col = len(left) >= 5 and len(right) >= 5 and len(crossing) < 0.3 * (len(left) + len(right))
    if not two_col:
        return _rows_from_lines(lines, page_no)
    full = sorted((l for l in lines if l.x0 < mid - 5 and l.x1 > mid + 5), key=lambda l: l.y0)
    rows: list[Row] = []
    cuts = [-1e9] + [l.y0 for l in full] + [1e9]
    used: set[int] = set()
    for i in range(len(cuts) - 1):
        lo, hi = cuts[i], cuts[i + 1]
        if i > 0:
            rows.extend(_rows_from_lines([full[i - 1]], page_no))
            used.add(id(full[i - 1]))
        band = [l for l in lines if id(l) not in used and lo <= l.y0 < hi and not (l.x0 < mid - 5 and l.x1 > mid + 5)]
        rows.extend(_rows_from_lines([l for l in band if (l.x0 + l.x1) / 2 < mid], page_no))
        rows.extend(_rows_from_lines([l for l in band if (l.x0 + l.x1) / 2 >= mid], page_no))
    return rows


def _norm_repeat(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower()).strip()


def repeated_margin_texts(pages: list[list[Row]], heights: list[float], margin: float = 0.09) -> set[str]:
    """Normalised texts of rows in the top/bottom margin that repeat on many pages (headers, footers). A short line
    that states a scale ("(In thousands, except per share data)" under each statement's title) is never one: it is
    the unit of the tables on its page, however often it is printed."""
    n = len(pages)
    counts: Counter[str] = Counter()
    for rows, h in zip(pages, heights, strict=False):
        seen = {_norm_repeat(r.text) for r in rows if (r.y1 < h * margin or r.y0 > h * (1 - margin))
                and not states_scale(r.text)}
        counts.update(seen)
    need = max(3, int(0.3 * n))
    return {t for t, c in counts.items() if c >= need and t}


def states_scale(text: str) -> bool:
    """A short line that gives the scale of the numbers near it: "(In thousands)", "Dollars in millions"."""
    return len(text.split()) <= 10 and scale_of(text) is not None


def is_page_number(text: str) -> bool:
    t = text.strip().lower()
    return bool(re.fullmatch(r"(page\s*)?[-–]?\s*\d{1,4}\s*[-–]?(\s*(of|/)\s*\d{1,4})?|[ivxlc]{1,6}", t))


def drop_margins(rows: list[Row], height: float, repeated: set[str], margin: float = 0.09) -> list[Row]:
    return [r for r in rows if not is_furniture(r.text, r.y0, r.y1, height, repeated, margin)]


def is_furniture(text: str, y0: float, y1: float, height: float, repeated: set[str] | frozenset[str],
                 margin: float = 0.09) -> bool:
    """A running header or footer (a text of `repeated`, repeated_margin_texts, in the page's top or bottom margin), or
    a page number."""
    in_margin = y1 < height * margin or y0 > height * (1 - margin)
    # Page numbers sit lower than running footers on many filings: look further for them.
    in_number_zone = y1 < height * 0.1 or y0 > height * 0.82
    return (in_margin and _norm_repeat(text) in repeated) or (in_number_zone and is_page_number(text))


def body_size(pages: list[list[Row]]) -> float:
    sizes: Counter[float] = Counter()
    for rows in pages:
        for r in rows:
            sizes[r.size] += len(r.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


_NOTES = re.compile(r"^(notes?\s+to\s+(the\s+)?(condensed\s+)?(consolidated\s+)?(condensed\s+)?financial\s+statements"
                    r"|note\s+\d{1,2}\b)", re.I)


def _statement_title(rows: list[Row], i: int) -> bool:
    """A financial statement's title: the title words on a line of their own, not the end of a wrapped
    sentence ("… recorded in our / Consolidated Balance Sheets."), with the statement's table within the next
    few lines."""
    r = rows[i]
    t = r.text.strip()
    if r.is_table or r.words > 14 or t.endswith((".", ",", ";")) or not t[:1].isupper() or not statement_of_title(t):
        return False
    if i > 0 and not rows[i - 1].is_table and rows[i - 1].text.rstrip()[-1:].isalpha() and \
            rows[i - 1].page == r.page and not (rows[i - 1].bold or rows[i - 1].heading_level is not None) and \
            rows[i - 1].words > 12:
        return False  # the line before runs on into this one
    return any(x.is_table for x in rows[i + 1:i + 6])


def mark_headings(pages: list[list[Row]], body: float) -> None:
    """Set heading_level on rows that look like headings: larger font, bold short lines, 'Item 7.',
    numbered sections. Levels: 0 PART, 1 Item / largest sizes ... by size rank."""
    candidates: list[Row] = []
    titles: set[int] = set()
    for rows in pages:
        for i, r in enumerate(rows):
            t = r.text.strip()
            if _statement_title(rows, i):
                titles.add(id(r))
            if not t or r.is_table or len(t) > 140 or r.words > 16 or not re.search(r"[A-Za-z]{3}", t):
                continue
            if t.endswith((",", ";")) or re.search(r"\.\s+\S+.*\.$", t):
                continue
            if not (t[0].isupper() or t[0].isdigit()):
                continue
            bigger = r.size >= body * 1.15
            item = bool(_ITEM.match(t)) and (r.bold or bigger or r.words <= 12)
            numbered = bool(_NUMBERED.match(t)) and (r.bold or bigger) and r.words <= 12
            bold_short = r.bold and r.words <= 12 and r.size >= body * 0.95 and not t.endswith(".")
            if bigger or item or numbered or bold_short or id(r) in titles:
                candidates.append(r)
    if not candidates:
        return
    sizes = sorted({r.size for r in candidates if r.size >= body * 1.15}, reverse=True)
    for r in candidates:
        t = r.text.strip()
        if re.match(r"^part\s+[ivx]+\b", t, re.I):
            r.heading_level = 0
        elif _ITEM.match(t):
            r.heading_level = 1
        elif id(r) in titles or (_NOTES.match(t) and not t.endswith(".")):
            # A financial statement's title heads its rows (their sub-headings sit under it), and the notes
            # end it; both rank below Item 8 and above everything else.
            r.heading_level = 1.5
        elif (m := _NUMBERED.match(t)) and (r.bold or r.size >= body * 1.15):
            r.heading_level = 1 + m.group(1).count(".") + (1 if sizes else 0)
        elif r.size >= body * 1.15:
            r.heading_level = 1 + sizes.index(r.size)
        else:
            r.heading_level = len(sizes) + 2  # bold at body size: the lowest level


SECTION_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("abstract", re.compile(r"^(abstract|summary of the paper)\b")),
    ("references", re.compile(r"^(references|bibliography|works cited|literature cited)\b")),
    ("appendix", re.compile(r"^(appendix|appendices|supplementary|supplemental material)\b")),
    ("related_work", re.compile(r"^(related work|prior work|previous work|background|literature review|"
                                r"related research)")),
    ("introduction", re.compile(r"^(introduction|overview|motivation)\b")),
    ("conclusion", re.compile(r"^(conclusions?|concluding|summary and|future work|limitations and future)")),
    ("discussion", re.compile(r"^(discussion|limitations?|analysis and discussion|implications)\b")),
    ("results", re.compile(r"^(results?|experiments?|experimental|evaluation|empirical|performance|findings|"
                           r"ablation|benchmark|analysis|case stud)")),
    ("methods", re.compile(r"^(methods?|methodology|approach|our approach|proposed|model|framework|architecture|"
                           r"system|design|implementation|data|dataset|corpus|materials|training|setup|"
                           r"problem (formulation|definition)|preliminar|task)")),
]


def section_type_of(heading: str) -> str | None:
    t = re.sub(r"^((\d{1,2}(\.\d{1,2})*)|[A-H](\.\d{1,2})*|[ivx]+)\.?\s+", "", heading.strip().lower())
    for name, pat in SECTION_PATTERNS:
        if pat.match(t):
            return name
    return None
