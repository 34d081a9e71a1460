"""The region of a page that a quote comes from, as a PNG: what a citation shows when it is expanded. A quote from
a table shows the whole table that holds it (its title, header and rows), with the cited row highlighted; other
quotes show the band of the page around them."""

from __future__ import annotations

import re

TABLE_GAP = 30.0  # rows of one table follow each other closely


def _quote_rects(page, quote: str) -> list:
    text = re.sub(r"\s+", " ", quote or "").strip()
    for probe in (text[:80], " ".join(text.split()[:6]), " ".join(text.split("|")[0].split()[:4])):
        if probe and len(probe) >= 8:
            rects = page.search_for(probe)
            if rects:
                return rects
    return []


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


def region_png(pdf: bytes, page_no: int, quote: str, dpi: int = 110, margin: float = 18.0,
               password: str | None = None) -> bytes | None:
    """Crop of page `page_no` (1-based): the table holding the quote with the quote highlighted, else the band
    around the quote's text, or the top of the page when it is not found."""
    import pymupdf

    try:
        doc = pymupdf.open(stream=pdf, filetype="pdf")
        if doc.needs_pass and not (password and doc.authenticate(password)):
            return None
        page = doc[page_no - 1]
    except Exception:
        return None
    rects = _quote_rects(page, quote)
    if rects:
        r = rects[0]
        for x in rects[1:]:
            if abs(x.y0 - r.y1) < 40:
                r |= x
        table = None
        try:
            table = table_around(page, r)
        except Exception:
            table = None
        if table is not None:
            box, room = table
            try:
                page.add_highlight_annot(pymupdf.Rect(box.x0, r.y0 - 1, box.x1, r.y1 + 1))
            except Exception:
                pass
            clip = (box + (-8, -8, 8, 8)) & room
        else:
            clip = pymupdf.Rect(page.rect.x0, max(page.rect.y0, r.y0 - margin * 3), page.rect.x1,
                                min(page.rect.y1, r.y1 + margin * 4))
    else:
        clip = pymupdf.Rect(page.rect.x0, page.rect.y0, page.rect.x1, page.rect.y0 + page.rect.height / 3)
    from rag.ingest.pdf import render

    return render(page, dpi / 72, clip=clip).tobytes("png")
