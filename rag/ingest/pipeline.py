"""PDF file → pages → rows → chunks + figures → embeddings → one ingest_document() call (one transaction)."""

from __future__ import annotations

import base64
import logging
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pymupdf

from rag.config import Settings
from rag.embed import Embedder
from rag.errors import IngestError, LimitExceededError
from rag.ingest import chunking, layout, metadata
from rag.ingest import figures as figmod
from rag.ingest.ocr import ocr_image, ocr_text
from rag.ingest.pdf import open_pdf, render, render_zoom, scrub_path, sha256_file

log = logging.getLogger(__name__)

# progress(stage, done, total): stage is "pages" while parsing, "embedding" while embedding.
Progress = Callable[[str, int, int], None]


@dataclass
class IngestResult:
    file: str
    document_id: int | None = None
    pages: int = 0
    chunks: int = 0
    figures: int = 0
    ocr_pages: int = 0
    seconds: float = 0.0
    already_ingested: bool = False
    error: str | None = None
    metadata: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict:
        return asdict(self)


_DICT_FLAGS = (pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_DEHYPHENATE) \
    & ~pymupdf.TEXT_PRESERVE_IMAGES


def _is_photo(png: bytes) -> bool:
    """Photos have thousands of distinct colours; charts and diagrams a few flat ones."""
    try:
        pix = pymupdf.Pixmap(png)
        if pix.n < 3:
            return False
        step = max(1, min(pix.width, pix.height) // 64)
        arr = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[::step, ::step, :3]
        q = (arr >> 4).reshape(-1, 3).astype(np.int32)
        colours = len(np.unique(q[:, 0] * 256 + q[:, 1] * 16 + q[:, 2]))
        return colours > 600
    except Exception:
        return False


def _ocr_page(page: pymupdf.Page, engine: str) -> list[layout.Line]:
    """OCR a page without a text layer; tries 90°/270° when upright reading finds little text."""
    best: tuple[float, list, int] = (0.0, [], 0)
    zoom = render_zoom(page.rect, 2.0)  # bounded: a huge page renders small
    for rot in (0, 90, 270):
        pix = render(page, zoom, rotate=rot)
        lines = ocr_image(pix.tobytes("png"), engine)
        score = sum(len(l.text) * l.score for l in lines)
        if score > best[0]:
            best = (score, lines, rot)
        if score > 200 and rot == 0:
            break
    _, lines, rot = best
    out = []
    for l in lines:
        x0, y0, x1, y1 = (v / zoom for v in l.box)
        h = max(1.0, y1 - y0)
        out.append(layout.Line(l.text, x0, y0, x1, y1, round(h * 0.8, 1), False, [l.text]))
    return out


def _link_figures(figs: list[figmod.Figure], chunks: list[chunking.Chunk]) -> None:
    """Each figure to the chunk it belongs to: a chunk mentioning 'Figure N' on the same or a near page,
    else the chunk holding the caption, else the chunk with the unit nearest to the figure on its page."""
    for f in figs:
        best = None
        if f.number:
            pat = re.compile(rf"\b(fig(ure)?\.?)\s*{re.escape(f.number)}\b", re.I)
            mentions = [c for c in chunks if pat.search(c.text) and not (f.caption and c.text.startswith(f.caption[:40]))
                        and abs(c.page_start - f.page) <= 1]
            mentions = [c for c in mentions if not (f.caption and f.caption[:60] in c.text and
                                                    len(pat.findall(c.text)) == 1)] or mentions
            if mentions:
                best = min(mentions, key=lambda c: (abs(c.page_start - f.page), c.chunk_index))
        if best is None:
            cy = (f.bbox[1] + f.bbox[3]) / 2
            cands = []
            for c in chunks:
                for u in c.units:
                    if u.page == f.page:
                        cap = 0 if f.caption and f.caption[:30] in u.text else 1
                        cands.append((cap, min(abs(u.y0 - f.bbox[3]), abs(u.y1 - f.bbox[1]), abs((u.y0 + u.y1) / 2 - cy)), c))
            if cands:
                best = min(cands, key=lambda x: (x[0], x[1]))[2]
        if best is None and chunks:
            best = min(chunks, key=lambda c: min(abs(p - f.page) for p in c.pages))
        f.chunk_index = best.chunk_index if best else None


def parse_pdf(doc: pymupdf.Document, settings: Settings, progress: Progress | None = None,
              warnings: list[str] | None = None):
    """Pages → (chunks, figures, ocr_page_count, text of the first 12 pages). Page by page; one bad page is skipped."""
    cfg = settings.ingest
    warnings = warnings if warnings is not None else []
    spent = [0.0]

    def ocr_fn(png: bytes) -> str:
        # Figure OCR costs 1-2 s a chart on 2 cores: photos are skipped and a per-document budget applies.
        if spent[0] > cfg.ocr_budget_s or _is_photo(png):
            return ""
        t = time.perf_counter()
        try:
            return ocr_text(png, cfg.ocr_engine)
        finally:
            spent[0] += time.perf_counter() - t

    skip_digests = figmod.repeated_image_digests(doc)
    seen: set[str] = set()
    pages_rows: list[list[layout.Row]] = []
    heights: list[float] = []
    figs: list[figmod.Figure] = []
    first_pages: list[str] = []
    ocr_pages = 0
    n = doc.page_count
    started = time.perf_counter()
    for i in range(n):
        page_no = i + 1
        if time.perf_counter() - started > cfg.max_seconds:
            raise LimitExceededError(f"reading stopped after {cfg.max_seconds:.0f} s at page {page_no} of {n} "
                                     f"(limit RAG_INGEST__MAX_SECONDS)")
        rows: list[layout.Row] = []
        height = 792.0
        try:
            page = doc.load_page(i)
            height = page.rect.height
            lines = layout.lines_from_dict(page.get_text("dict", flags=_DICT_FLAGS))
            chars = sum(len(l.text) for l in lines)
            if chars < 20 and cfg.ocr and page.get_images(full=False):
                ocr_lines = _ocr_page(page, cfg.ocr_engine)
                if ocr_lines:
                    lines = ocr_lines
                    ocr_pages += 1
            rows = layout.reading_order(lines, page.rect.width, page_no)
            figs.extend(figmod.extract_figures(page, page_no, rows, skip_digests, cfg, seen, ocr_fn if cfg.ocr else None))
            if i < 12:
                first_pages.append("\n".join(r.text for r in rows))
        except Exception as exc:  # a broken page must not sink the document
            warnings.append(f"page {page_no} skipped: {type(exc).__name__}: {exc}")
        pages_rows.append(rows)
        heights.append(height)
        if progress:
            progress("pages", page_no, n)
    repeated = layout.repeated_margin_texts(pages_rows, heights)
    kept = [layout.drop_margins(rows, h, repeated) for rows, h in zip(pages_rows, heights)]
    # Running headers and footers go, unless they are all the text there is (short pages that open alike).
    if any(r.text.strip() for rows in kept for r in rows) or not repeated:
        pages_rows = kept
    layout.mark_headings(pages_rows, layout.body_size(pages_rows))
    units = chunking.rows_to_units(pages_rows)
    chunks = chunking.chunk_units(units, settings.chunking)
    _link_figures(figs, chunks)
    return chunks, figs, ocr_pages, first_pages


def _check_time(t0: float, settings: Settings, where: str) -> None:
    spent = time.perf_counter() - t0
    if spent > settings.ingest.max_seconds:
        raise LimitExceededError(f"stopped {where} after {spent:.0f} s, above the {settings.ingest.max_seconds:.0f}-s "
                                 "limit per document (RAG_INGEST__MAX_SECONDS); nothing was stored")


def ingest_file(path: str | Path, store, embedder: Embedder, settings: Settings, password: str | None = None,
                progress: Progress | None = None, display_name: str | None = None) -> IngestResult:
    """Ingest one PDF. Never raises for a bad file: the result carries a one-line error and nothing is written."""
    t0 = time.perf_counter()
    path = Path(path)
    res = IngestResult(file=display_name or path.name)
    doc = None
    try:
        doc = open_pdf(path, password, settings.ingest.max_file_mb, settings.ingest.max_pages)
        res.pages = doc.page_count
        sha = sha256_file(path)
        existing = store.document_by_sha256(sha)
        if existing:
            res.document_id, res.already_ingested = existing, True
            return res
        store.check_model(embedder.model_name)
        chunks, figs, ocr_pages, first_pages = parse_pdf(doc, settings, progress, res.warnings)
        res.ocr_pages = ocr_pages
        if not chunks:
            raise IngestError("no text found: the PDF is blank" + ("" if settings.ingest.ocr else
                              " or scanned (OCR is switched off)"))
        meta = metadata.detect(first_pages[:5], doc.metadata or {}, res.file, later_pages=first_pages[5:])
        known = {d["company_key"]: d["company"] for d in store.list_documents() if d.get("company_key")}
        same = metadata.match_known_company(meta.company_key, known)
        if same:
            meta.company_key, meta.company = same
        label = meta.label()
        contexts = [f"{label} | {c.heading}" if c.heading else label for c in chunks]
        texts = [f"{ctx}\n{c.text}" for ctx, c in zip(contexts, chunks)]
        fig_texts = [f.embed_text() for f in figs]
        if progress:
            progress("embedding", 0, len(texts) + len(fig_texts))
        _check_time(t0, settings, "before embedding")
        vecs = embedder.encode(texts + fig_texts)
        _check_time(t0, settings, "after embedding, before writing")
        if progress:
            progress("embedding", len(texts) + len(fig_texts), len(texts) + len(fig_texts))
        if meta.doc_type == "research paper":
            from rag.ingest.sections import assign_by_content

            assign_by_content(chunks, vecs[: len(chunks)], embedder)
        tokens = embedder.count_tokens([c.text for c in chunks])
        doc_row = {
            "file_name": res.file, "title": meta.title, "company": meta.company, "company_key": meta.company_key,
            "fiscal_year": meta.fiscal_year, "fiscal_period": meta.fiscal_period, "doc_type": meta.doc_type,
            "published_date": meta.published_date, "sha256": sha, "page_count": doc.page_count,
            "ocr_pages": ocr_pages, "embedding_model": embedder.model_name,
            "meta": {"label": label, "source_path_name": path.name, "warnings": res.warnings[:20],
                     "year_labels": meta.year_labels or []},
        }
        chunk_rows = [{
            "chunk_index": c.chunk_index, "page_start": c.page_start, "page_end": c.page_end,
            "heading": c.heading, "section_type": c.section_type, "context": ctx, "content": c.text,
            "token_count": tok, "embedding": _vec(v),
        } for c, ctx, tok, v in zip(chunks, contexts, tokens, vecs[: len(chunks)])]
        fig_rows = [{
            "chunk_index": f.chunk_index, "page": f.page, "bbox": list(f.bbox), "kind": f.kind,
            "caption": f.caption, "context": f.context, "ocr_text": f.ocr_text, "chart_type": f.chart_type,
            "image_b64": base64.b64encode(f.png).decode("ascii"), "sha256": f.sha256,
            "width": f.width, "height": f.height, "embedding": _vec(v),
        } for f, v in zip(figs, vecs[len(chunks):])]
        out = store.ingest_document(doc_row, chunk_rows, fig_rows)
        res.document_id = out["document_id"]
        res.already_ingested = bool(out.get("already_ingested"))
        res.chunks, res.figures = int(out.get("chunks", 0)), int(out.get("figures", 0))
        # a password-protected PDF is not kept: its text is in the store, the file stays with its owner
        if settings.ingest.keep_pdf and not res.already_ingested and not password and \
                path.stat().st_size <= settings.ingest.keep_pdf_max_mb * 1024 * 1024:
            try:  # optional: the app shows the cited region of a page from it
                store.put_document_file(res.document_id, path.read_bytes())
            except Exception as exc:  # the document itself is stored; only the crops are lost
                res.warnings.append(f"original PDF not stored: {type(exc).__name__}: {exc}")
        res.metadata = {k: doc_row[k] for k in ("title", "company", "fiscal_year", "fiscal_period", "doc_type",
                                                 "published_date")}
    except IngestError as exc:
        res.error = scrub_path(str(exc), path)
    except Exception as exc:  # anything else is still one file's failure, reported in one line (trace with -v)
        log.debug("ingest failed for %s", res.file, exc_info=True)
        res.error = scrub_path(" ".join(f"{type(exc).__name__}: {exc}".split())[:400], path)
    finally:
        res.warnings = [scrub_path(w, path) for w in res.warnings]
        if doc is not None:
            doc.close()
        res.seconds = round(time.perf_counter() - t0, 2)
    return res


def _vec(v) -> list[float]:
    return [round(float(x), 7) for x in v]
