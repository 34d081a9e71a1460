"""Figures already stored, read again from each document's stored PDF with the same code as ingestion: their kind
(rag/ingest/figkind.py, after the classifier changed) or their crop (rag/ingest/crop.py, after the cropper changed).
One document at a time; a document without its PDF keeps its figures as they are."""

from __future__ import annotations

import base64

import pymupdf

from rag.config import Settings
from rag.ingest import crop as cropmod
from rag.ingest import figkind, layout
from rag.ingest import figures as figmod
from rag.ingest.drawn import chart_of
from rag.ingest.ocr import ocr_image
from rag.ingest.pdf import Drawing, render
from rag.records import CropUpdate, StoredFigure


def _drawn(drawings: list[Drawing], rect: pymupdf.Rect) -> str | None:
    """The vector drawings' verdict for a region, as at ingestion."""
    ok, chart_type = chart_of(figmod.drawings_in(drawings, rect), rect)
    return (chart_type or "curve") if ok else "curve"


def page_rows(page: pymupdf.Page) -> list:
    """A page's text rows in reading order, as ingestion reads them."""
    from rag.ingest.pipeline import DICT_FLAGS

    return layout.reading_order(layout.lines_from_dict(page.get_text("dict", flags=DICT_FLAGS)), page.rect.width,
                                page.number + 1)


def document_furniture(doc: pymupdf.Document) -> set[str]:
    """A document's running headers and footers (layout.repeated_margin_texts), read from every page as ingestion
    reads them: for extract_figures on a page read alone."""
    return layout.repeated_margin_texts([page_rows(p) for p in doc], [p.rect.height for p in doc])


def classify_region(page: pymupdf.Page, rect: pymupdf.Rect, source: str, png: bytes, caption: str, rows: list,
                    settings: Settings) -> figkind.Kind:
    """A region's kind from the same signals as at ingestion: its page's text rows and drawings, its crop, and
    OCR when it is an image without a text layer (or a drawn chart whose labels are shapes); a chart's reading is
    in its signals' "reading"."""
    from rag.ingest.pipeline import is_photo

    lines = []
    text = figmod.text_inside(page, rect)
    drawings = figmod.page_drawings(page) if source == "vector" else []
    drawn = _drawn(drawings, rect) if source == "vector" else None
    inside = figmod.drawings_in(drawings, rect)
    if settings.ingest.ocr and figmod.needs_ocr(source, drawn, inside, rect, page.rect, text) and not is_photo(png):
        lines = ocr_image(png, settings.ingest.ocr_engine)
        text = " ".join(ln.text for ln in lines)
    clip = cropmod.display_crop(page, rect, source == "raster", cropmod.text_lines(page), drawings, [])
    sig = figmod.region_signals(page, rect, source, rows, png, drawn, caption, lines, drawings, clip)
    k = figkind.classify(sig, caption + " " + text)
    k.signals = sig
    if k.kind == "chart":
        k.reading = figmod.read_region(page, clip, rect, lines, drawings, caption, settings.ingest, png, k.chart_type)
    return k


def classify_stored(doc: pymupdf.Document, row: StoredFigure, settings: Settings, rows_of: dict[int, list]) -> dict:
    """One stored figure's kind, from its stored crop and its page."""
    page = doc.load_page(int(row["page"]) - 1)
    if row["page"] not in rows_of:
        rows_of[row["page"]] = page_rows(page)
    rect = pymupdf.Rect(*row["bbox"])
    png = figmod.region_pixmap(page, rect, row["kind"], settings.ingest).tobytes("png")  # not the display crop
    k = classify_region(page, rect, row["kind"], png, row["caption"] or "", rows_of[row["page"]], settings)
    signals = k.signals.to_json() if k.signals else None
    if signals is not None and k.reading:
        signals["reading"] = k.reading
    return {"id": row["id"], "figure_kind": k.kind, "chart_type": k.chart_type, "kind_why": "; ".join(k.why),
            "signals": signals}


def recrop_page(page: pymupdf.Page, rows: list[StoredFigure], settings: Settings) -> list[CropUpdate]:
    """The display crops of one page's stored figures, as ingestion crops them now."""
    lines = cropmod.text_lines(page)
    drawings = figmod.page_drawings(page) if any(r["kind"] == "vector" for r in rows) else []
    rects = [pymupdf.Rect(*r["bbox"]) for r in rows]
    out = []
    for r, rect in zip(rows, rects):
        clip = cropmod.display_crop(page, rect, r["kind"] == "raster", lines, drawings, [o for o in rects if o != rect])
        try:
            pix = render(page, figmod.crop_zoom(clip, settings.ingest), clip=clip)
        except Exception:
            continue
        if pix.width >= 20 and pix.height >= 20:
            out.append({"id": r["id"], "image_b64": base64.b64encode(pix.tobytes("png")).decode(),
                        "width": pix.width, "height": pix.height})
    return out


def _each_document(store, progress, work) -> dict[str, int]:
    """work(doc, rows) -> rows updated, for each document with figures and its stored PDF."""
    docs = store.list_documents()
    counts = {"documents": 0, "figures": 0, "skipped": 0}
    for i, d in enumerate(docs, 1):
        rows = store.admin_rpc("figures_of_document", {"p_document_id": d.document_id})
        pdf = store.document_file(d.document_id) if rows else None
        if rows and pdf is None:
            counts["skipped"] += 1
        if rows and pdf is not None:
            with pymupdf.open(stream=pdf, filetype="pdf") as doc:
                counts["figures"] += work(doc, rows)
            counts["documents"] += 1
        if progress:
            progress(i, len(docs))
    return counts


def reclassify(store, settings: Settings, progress=None) -> dict[str, int]:
    """Every stored figure's kind, document by document; documents without a stored PDF are skipped."""
    def work(doc: pymupdf.Document, rows: list[StoredFigure]) -> int:
        page_rows: dict[int, list] = {}
        items = [classify_stored(doc, r, settings, page_rows) for r in rows]
        return store.admin_rpc("set_figure_kinds", {"items": items})
    return _each_document(store, progress, work)


def recrop(store, settings: Settings, progress=None) -> dict[str, int]:
    """Every stored figure's display crop, document by document (one update per document)."""
    def work(doc: pymupdf.Document, rows: list[StoredFigure]) -> int:
        by_page: dict[int, list[StoredFigure]] = {}
        for r in rows:
            by_page.setdefault(int(r["page"]), []).append(r)
        items = [it for p, rs in by_page.items() for it in recrop_page(doc.load_page(p - 1), rs, settings)]
        return store.admin_rpc("set_figure_images", {"items": items}) if items else 0
    return _each_document(store, progress, work)


def reread(store, embedder, settings: Settings, progress=None) -> dict:
    """Every document's figures found, cropped, classified and read again from its stored PDF (after the figure
    finder changed: new charts found, separate charts split), embedded, and written in place of the stored ones,
    one document per transaction. Documents without their PDF keep their figures; a document that fails keeps its
    figures, and its one-line error is in "errors"."""
    from rag.ingest.pipeline import figure_rows, parse_pdf

    store.check_model(embedder.model_name)
    docs = store.list_documents()
    counts: dict = {"documents": 0, "figures": 0, "skipped": 0, "errors": []}
    for i, d in enumerate(docs, 1):
        pdf = store.document_file(d.document_id)
        if pdf is None:
            counts["skipped"] += 1
        else:
            try:  # one document that fails keeps its figures and stops nothing else
                with pymupdf.open(stream=pdf, filetype="pdf") as doc:
                    _, figs, _, _ = parse_pdf(doc, settings)
                vecs = embedder.encode([f.embed_text() for f in figs]) if figs else []
                counts["figures"] += store.admin_rpc("replace_figures", {"p_document_id": d.document_id,
                                                                         "figures": figure_rows(figs, vecs)})
                counts["documents"] += 1
            except Exception as exc:
                counts["errors"].append(f"{d.file_name}: {type(exc).__name__}: {str(exc)[:200]}")
        if progress:
            progress(i, len(docs))
    return counts
