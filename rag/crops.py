"""The region of a page that a quote comes from: what a citation shows. `locate` finds the quote's words on its
page — across line breaks, hyphenated words and table rows — and returns their boxes; `region_png` crops the page
around them (a quote from a table shows the whole table that holds it: its title, header and rows, the cited row
highlighted), and `page_png` renders the whole page with the boxes drawn. A crop always contains every box found."""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field

TABLE_GAP = 30.0  # rows of one table follow each other closely
FOUND = 0.6  # share of the quote's words that must be found, in order, for the quote to count as found
HIGHLIGHT_FILL, HIGHLIGHT_EDGE = (1.0, 0.87, 0.2), (0.93, 0.45, 0.0)


@dataclass
class Located:
    """Where a quote is: its page (1-based), one box per line of its words, and the share of its words found."""
    page: int
    boxes: list = field(default_factory=list)
    coverage: float = 0.0

    @property
    def found(self) -> bool:
        return self.coverage >= FOUND and bool(self.boxes)


def _token(word: str) -> str:
    w = unicodedata.normalize("NFKC", word).lower()
    w = w.replace("\u2019", "'").replace("\u00ad", "")
    return re.sub(r"[^\w%.']+|(?<!\d)[.']|[.'](?!\d)", "", w)


def quote_tokens(quote: str) -> list[str]:
    """The quote's words as page words are compared: table cell bars and punctuation dropped, a word hyphenated
    across a line ('bene- fits') joined, numbers without their separators ('(1,234)' → '1234')."""
    text = re.sub(r"(\w)-\s+(\w)", r"\1\2", quote or "")
    text = text.replace("|", " ")
    return [t for t in (_token(w).replace(",", "") for w in text.split()) if t]


def _page_words(page, visual: bool) -> list[tuple[str, object]]:
    """The page's words as (token, rect), in the PDF's reading order or (visual) top to bottom, left to right; a
    word hyphenated at the end of a line is joined with the first word of the next line (both rects kept)."""
    import pymupdf

    raw = page.get_text("words", sort=visual)
    out: list[tuple[str, object]] = []
    for w in raw:
        rect = pymupdf.Rect(w[:4])
        word = w[4]
        if out and out[-1][0].endswith("\x00"):
            prev, prect = out.pop()
            out.append((prev[:-1] + _token(word).replace(",", ""), [*prect, rect]))
            continue
        tok = _token(word).replace(",", "")
        if word.endswith("-") and len(word) > 2 and word[-2].isalpha():
            out.append((tok + "\x00", [rect]))
        elif tok:
            out.append((tok, [rect]))
    return [(t.rstrip("\x00"), r) for t, r in out]


def _best_run(words: list[tuple[str, object]], quote: list[str]) -> tuple[list, float]:
    """The page words that match the quote best: matching blocks (difflib) grouped where they follow each other
    on the page; the group covering most of the quote wins. Returns the rects and the share of the quote."""
    tokens = [t for t, _ in words]
    blocks = [b for b in difflib.SequenceMatcher(None, tokens, quote, autojunk=False).get_matching_blocks()
              if b.size >= min(2, len(quote))]
    best: tuple[list, float] = ([], 0.0)
    group: list = []
    for b in blocks + [None]:
        if b is not None and group and b.a - (group[-1].a + group[-1].size) <= 12 and b.b >= group[-1].b:
            group.append(b)
            continue
        if group:
            cover = sum(g.size for g in group) / len(quote)
            if cover > best[1]:
                lo, hi = group[0].a, group[-1].a + group[-1].size
                best = ([r for _, rs in words[lo:hi] for r in rs], cover)
        group = [b] if b is not None else []
    return best


def _line_boxes(rects: list) -> list:
    """Word rects merged into one box per line."""
    lines: list = []
    for r in sorted(rects, key=lambda r: (round(r.y0), r.x0)):
        if lines and abs(lines[-1].y0 - r.y0) < 3 and abs(lines[-1].y1 - r.y1) < 3:
            lines[-1] |= r
        else:
            lines.append(type(r)(r))
    return lines


def locate_on_page(page, quote: str) -> tuple[list, float]:
    """The quote's line boxes on a page and the share of its words found (reading order, then visual order)."""
    q = quote_tokens(quote)
    if not q:
        return [], 0.0
    best: tuple[list, float] = ([], 0.0)
    for visual in (False, True):
        rects, cover = _best_run(_page_words(page, visual), q)
        if cover > best[1] + 0.05:
            best = (rects, cover)
        if best[1] >= 0.95:
            break
    return _line_boxes(best[0]), best[1]


def locate(doc, pages: list[int], quote: str) -> Located:
    """The quote on the first of its pages (1-based) where it is found best."""
    best = Located(page=pages[0] if pages else 1)
    for p in pages or [1]:
        if not 1 <= p <= doc.page_count:
            continue
        boxes, cover = locate_on_page(doc[p - 1], quote)
        if cover > best.coverage:
            best = Located(page=p, boxes=boxes, coverage=cover)
        if best.coverage >= 0.95:
            break
    return best


def _tabular(r) -> bool:
    return r.is_table or r.is_header_row


def _label_line(r) -> bool:
    """A group label inside a table ('Current assets:', 'LIABILITIES AND EQUITY'): short, not a sentence."""
    return r.words <= 8 and not r.text.rstrip().endswith(".")


def _extend(rows: list, i: int, step: int) -> int:
    """From row i, the last row of the same table in direction step: table rows, and group labels between them."""
    j = i
    while 0 <= j + step < len(rows):
        nxt = rows[j + step]
        if abs(nxt.y0 - rows[j].y0) > TABLE_GAP:
            break
        if _tabular(nxt):
            j += step
            continue
        after = j + 2 * step
        if _label_line(nxt) and 0 <= after < len(rows) and _tabular(rows[after]) \
                and abs(rows[after].y0 - nxt.y0) < TABLE_GAP:
            j = after
            continue
        break
    return j


def table_around(page, rect):
    """The rectangle of the table whose row holds `rect`, as ingestion reads tables (rows of a label and numbers,
    their header rows and group labels), with its title line, and the free space around it (the previous and next
    lines of the page); None when the quote is not in a table."""
    import pymupdf

    from rag.ingest.refigure import page_rows

    rows = sorted(page_rows(page), key=lambda r: r.y0)
    hit = [i for i, r in enumerate(rows) if r.y0 - 2 <= (rect.y0 + rect.y1) / 2 <= r.y1 + 2]
    if not hit or not _tabular(rows[hit[0]]):
        return None
    lo, hi = _extend(rows, hit[0], -1), _extend(rows, hit[0], 1)
    # The table's title, unit line and column headers sit right above its first row, a line apart.
    for _ in range(6):
        if lo > 0 and rows[lo].y0 - rows[lo - 1].y1 < 14 and _label_line(rows[lo - 1]) and rows[lo - 1].words <= 14:
            lo -= 1
    box = pymupdf.Rect(min(r.x0 for r in rows[lo:hi + 1]), rows[lo].y0,
                       max(r.x1 or r.x0 for r in rows[lo:hi + 1]), rows[hi].y1) | rect
    top = rows[lo - 1].y1 + 1 if lo > 0 else page.rect.y0
    bottom = rows[hi + 1].y0 - 1 if hi + 1 < len(rows) else page.rect.y1
    return box, pymupdf.Rect(page.rect.x0, min(max(top, box.y0 - 10), box.y0), page.rect.x1,
                             max(min(bottom, box.y1 + 10), box.y1))


def _open_page(pdf: bytes, pages, quote: str, password: str | None):
    """The document, the located quote and its page; None when the PDF cannot be opened."""
    import pymupdf

    try:
        doc = pymupdf.open(stream=pdf, filetype="pdf")
        if doc.needs_pass and not (password and doc.authenticate(password)):
            return None
        loc = locate(doc, [pages] if isinstance(pages, int) else list(pages), quote)
        return doc, loc, doc[loc.page - 1]
    except Exception:
        return None


def _mark(page, boxes: list, row_span=None) -> None:
    """The quote's boxes drawn on the page, translucent so the text stays readable; a table row is marked across
    the table's width (row_span: its x0, x1)."""
    import pymupdf

    for b in boxes:
        r = pymupdf.Rect(row_span[0], b.y0, row_span[1], b.y1) if row_span else pymupdf.Rect(b)
        try:
            page.draw_rect(r + (-1.5, -1, 1.5, 1), color=HIGHLIGHT_EDGE, fill=HIGHLIGHT_FILL, fill_opacity=0.35,
                           width=0.7, overlay=True)
        except Exception:
            pass


def _crop(page, loc: Located, margin: float):
    """The region shown for a located quote: its table (with title and header), else the band of the page around
    it; always holding every box of the quote."""
    import pymupdf

    if not loc.found:
        return pymupdf.Rect(page.rect.x0, page.rect.y0, page.rect.x1, page.rect.y0 + page.rect.height / 3), None
    quote = pymupdf.Rect(loc.boxes[0])
    for b in loc.boxes[1:]:
        quote |= b
    try:
        table = table_around(page, loc.boxes[0])
    except Exception:
        table = None
    if table is not None:
        box, room = table
        clip = ((box + (-8, -8, 8, 8)) & room) | (quote + (-4, -4, 4, 4))
        return clip, (box.x0, box.x1)
    return pymupdf.Rect(page.rect.x0, quote.y0 - margin * 3, page.rect.x1, quote.y1 + margin * 4) & page.rect, None


def region_png(pdf: bytes, pages, quote: str, dpi: int = 110, margin: float = 18.0,
               password: str | None = None) -> bytes | None:
    """Crop of the quote's page (pages: a 1-based page or the chunk's pages): the table holding the quote with the
    cited row highlighted, else the band around the quote with its words highlighted, or the top of the page when
    the quote is not found there."""
    from rag.ingest.pdf import render

    opened = _open_page(pdf, pages, quote, password)
    if opened is None:
        return None
    doc, loc, page = opened
    clip, row_span = _crop(page, loc, margin)
    if loc.found:
        _mark(page, loc.boxes, row_span)
    png = render(page, dpi / 72, clip=clip).tobytes("png")
    doc.close()
    return png


def page_png(pdf: bytes, pages, quote: str, dpi: int = 100,
             password: str | None = None) -> tuple[bytes, Located] | None:
    """The whole page the quote is on, rendered with its words highlighted, and where it was found."""
    from rag.ingest.pdf import render

    opened = _open_page(pdf, pages, quote, password)
    if opened is None:
        return None
    doc, loc, page = opened
    if loc.found:
        _mark(page, loc.boxes)
    png = render(page, dpi / 72).tobytes("png")
    doc.close()
    return png, loc


def marked_pdf(pdf: bytes, pages, quote: str, password: str | None = None) -> tuple[bytes, Located] | None:
    """The whole document with the quote highlighted where it was found (a real PDF highlight annotation, which
    any PDF viewer draws), and where: its page and line boxes in PDF points, top-left origin. The document's own
    bytes when the quote is not found; None when the PDF cannot be opened."""
    opened = _open_page(pdf, pages, quote, password)
    if opened is None:
        return None
    doc, loc, page = opened
    if not loc.found:
        doc.close()
        return pdf, loc
    try:
        annot = page.add_highlight_annot([b for b in loc.boxes])
        annot.set_colors(stroke=HIGHLIGHT_FILL)
        annot.update(opacity=0.45)
        out = doc.tobytes(garbage=0, deflate=False)
    except Exception:  # a PDF that cannot be written back: its own bytes, the boxes still drawn by the viewer
        out = pdf
    doc.close()
    return out, loc
