"""The cited page, shown the same way wherever a value or a quote is cited (Ask's citations, the Facts page's
values): the whole document in a pdf.js viewer, opened at the page with the quote marked, and the page as an image
beside it."""

from __future__ import annotations

import streamlit as st

from pages import get_store
from rag.answer.markup import neutral


@st.cache_data(max_entries=8, show_spinner=False)
def pdf_of(document_id: int) -> bytes | None:
    return get_store().document_file(document_id)  # fetched once per document, not once per citation


@st.cache_data(max_entries=32, show_spinner=False)
def _page(document_id: int, pages: tuple[int, ...], quote: str):
    from rag.crops import page_png

    pdf = pdf_of(document_id)
    out = page_png(pdf, list(pages), quote) if pdf else None
    return (out[0], out[1].page, out[1].found) if out else None


@st.cache_data(max_entries=4, show_spinner=False)
def _marked(document_id: int, pages: tuple[int, ...], quote: str):
    """The document with the quote highlighted, its page and the quote's line boxes (PDF points)."""
    from rag.crops import marked_pdf

    pdf = pdf_of(document_id)
    out = marked_pdf(pdf, list(pages), quote) if pdf else None
    return (out[0], out[1].page, [tuple(b) for b in out[1].boxes], out[1].found) if out else None


VIEWER_MAX_MB = 60  # a larger document is shown as its cited page only: the viewer gets the whole file


def _viewer(pdf: bytes, page: int, boxes: list[tuple], key: str) -> bool:
    """The whole document in a pdf.js viewer (streamlit-pdf-viewer, which bundles pdf.js: it works offline),
    scrollable, opened at the quote, each of its lines outlined (the highlight itself is in the PDF). False when
    the viewer cannot show it."""
    try:
        from streamlit_pdf_viewer import pdf_viewer
    except ImportError:
        st.caption("The document viewer (streamlit-pdf-viewer) is not installed: see the page image.")
        return False
    marks = [{"page": page, "x": x0 - 2, "y": y0 - 1, "width": x1 - x0 + 4, "height": y1 - y0 + 2,
              "color": "#ee7300"} for x0, y0, x1, y1 in boxes]
    pdf_viewer(pdf, height=720, annotations=marks, scroll_to_annotation=1 if marks else None,
               scroll_to_page=None if marks else page, scroll_behavior="instant", render_text=True, key=key)
    return True


@st.dialog("Cited document", width="large")
def open_cited_page(e) -> None:
    """The cited document, opened at the cited page with the quote highlighted; the page rendered as an image is
    the fallback, in its own tab."""
    original = pdf_of(e.document_id)
    if original is None:
        st.error("The original PDF of this document is not in the library, so its page cannot be shown.")
        return
    shot = _page(e.document_id, tuple(e.pages), e.quote)
    if len(original) > VIEWER_MAX_MB * 2**20 or shot is None:  # never copied whole: its cited page only
        st.markdown(f"**{neutral(e.document)}**, page {shot[1] if shot else e.pages[0]}")
        st.caption(f"This document is over {VIEWER_MAX_MB} MB: its cited page is shown as an image."
                   if shot else "The PDF cannot be opened, so its page cannot be shown.")
        if shot:
            st.image(shot[0], width="stretch")
        return
    got = _marked(e.document_id, tuple(e.pages), e.quote)
    pdf, page, boxes, found = got if got else (original, shot[1], [], False)
    st.markdown(f"**{neutral(e.document)}**, page {page}")
    if not found:
        st.caption("The quote could not be placed on this page exactly; the page is shown without marks.")
    document, image = st.tabs(["Document", "Page image"])
    with document:
        # the viewer draws every page before it scrolls (streamlit-pdf-viewer): a long report shows its cover first
        st.caption(f"The whole document is drawn first, then it opens at page {page}: a long report takes a few "
                   "seconds. The cited page is under 'Page image' at once.")
        _viewer(pdf, page, boxes if found else [], key=f"viewer-{e.document_id}-{page}")
    with image:
        st.image(shot[0], width="stretch")
