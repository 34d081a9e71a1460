"""The region of a page that a quote comes from, as a PNG: what a citation shows when it is expanded."""

from __future__ import annotations

import re


def region_png(pdf: bytes, page_no: int, quote: str, dpi: int = 110, margin: float = 18.0,
               password: str | None = None) -> bytes | None:
    """Crop of page `page_no` (1-based) around the quote's text, or the top of the page when it is not found."""
    import pymupdf

    try:
        doc = pymupdf.open(stream=pdf, filetype="pdf")
        if doc.needs_pass and not (password and doc.authenticate(password)):
            return None
        page = doc[page_no - 1]
    except Exception:
        return None
    rects = []
    text = re.sub(r"\s+", " ", quote or "").strip()
    for probe in (text[:80], " ".join(text.split()[:6]), " ".join(text.split("|")[0].split()[:4])):
        if probe and len(probe) >= 8:
            rects = page.search_for(probe)
            if rects:
                break
    if rects:
        r = rects[0]
        for x in rects[1:]:
            if abs(x.y0 - r.y1) < 40:
                r |= x
        clip = pymupdf.Rect(page.rect.x0, max(page.rect.y0, r.y0 - margin * 3), page.rect.x1,
                            min(page.rect.y1, r.y1 + margin * 4))
    else:
        clip = pymupdf.Rect(page.rect.x0, page.rect.y0, page.rect.x1, page.rect.y0 + page.rect.height / 3)
    from rag.ingest.pdf import render

    return render(page, dpi / 72, clip=clip).tobytes("png")
