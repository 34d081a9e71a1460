"""PDF file → pages → rows → chunks + figures → embeddings → one ingest_document() call (one transaction)."""

from __future__ import annotations

import base64
import logging
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import pymupdf

from rag.config import IngestSettings, Settings
from rag.embed import Embedder
from rag.errors import IngestError, LimitExceededError
from rag.filenames import clean_file_name
from rag.ingest import chunking, figkind, gridless, layout, metadata
from rag.ingest import facts as factmod
from rag.ingest import figures as figmod
from rag.ingest.child import Text, read_in_child
from rag.ingest.ocr import OcrLine, ocr_image
from rag.ingest.overlap import EmbedStage
from rag.ingest.pdf import check_file, open_pdf, render, render_zoom, scrub_path, sha256_file
from rag.issuers import issuers_of
from rag.records import ChunkRow, DocumentMeta, FactRow, FigureRow

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
    facts: int = 0
    tables: int = 0
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


DICT_FLAGS = (pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_DEHYPHENATE) \
    & ~pymupdf.TEXT_PRESERVE_IMAGES


def is_photo(png: bytes) -> bool:
    """Photos have thousands of distinct colours; charts and diagrams a few flat ones."""
    return figkind.pixel_stats(png, sample=64)[0] > 600


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
            mentions = [c for c in chunks if pat.search(c.text)
                        and not (f.caption and c.text.startswith(f.caption[:40]))
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
                        gap = min(abs(u.y0 - f.bbox[3]), abs(u.y1 - f.bbox[1]), abs((u.y0 + u.y1) / 2 - cy))
                        cands.append((cap, gap, c))
            if cands:
                best = min(cands, key=lambda x: (x[0], x[1]))[2]
        if best is None and chunks:
            best = min(chunks, key=lambda c: min(abs(p - f.page) for p in c.pages))
        f.chunk_index = best.chunk_index if best else None


def _figure_ocr(cfg: IngestSettings) -> Callable[[bytes], list[OcrLine]]:
    """OCR of a figure's image, within the document's budget: cfg.ocr_max_figures images (a count, so a loaded
    machine reads the same figures as an idle one), and cfg.ocr_budget_s seconds as a safety net."""
    spent, read = [0.0], [0]

    def ocr_fn(png: bytes) -> list[OcrLine]:
        # Figure OCR costs 1-2 s a chart on 2 cores: photos are skipped and a per-document budget applies.
        if read[0] >= cfg.ocr_max_figures or spent[0] > cfg.ocr_budget_s or is_photo(png):
            return []
        read[0] += 1
        t = time.perf_counter()
        try:
            return ocr_image(png, cfg.ocr_engine)
        finally:
            spent[0] += time.perf_counter() - t

    return ocr_fn


@dataclass
class _Pages:
    """What reading a document gathers, page by page."""
    warnings: list[str]  # one line for each page skipped
    rows: list[list[layout.Row]] = field(default_factory=list)  # each page's rows in reading order
    heights: list[float] = field(default_factory=list)  # each page's height
    figs: list[figmod.Figure] = field(default_factory=list)
    first_pages: list[str] = field(default_factory=list)  # the text of the first 12 pages
    ocr_pages: int = 0  # pages read by OCR


def _read_text(doc: pymupdf.Document, i: int, cfg: IngestSettings, pages: _Pages) -> None:
    """Page i's rows into `pages` (OCR when it has no text layer), and its text if among the first 12.
    A page that fails keeps what was read of it before the failure (its rows, its height), with a warning."""
    page_no = i + 1
    rows: list[layout.Row] = []
    height = 792.0
    try:
        page = doc.load_page(i)
        height = page.rect.height
        lines = layout.lines_from_dict(page.get_text("dict", flags=DICT_FLAGS))
        chars = sum(len(l.text) for l in lines)
        ocr = False
        if chars < 20 and cfg.ocr and page.get_images(full=False):
            ocr_lines = _ocr_page(page, cfg.ocr_engine)
            if ocr_lines:
                lines, ocr = ocr_lines, True
                pages.ocr_pages += 1
        rows = layout.reading_order(lines, page.rect.width, page_no)
        if not ocr and cfg.grid_tables:
            rows = gridless.with_grid_tables(page, rows, page_no)  # a table the layout broke apart: its grid
        if i < 12:
            pages.first_pages.append("\n".join(r.text for r in rows))
    except Exception as exc:  # a broken page must not sink the document
        pages.warnings.append(f"page {page_no} skipped: {type(exc).__name__}: {exc}")
    pages.rows.append(rows)
    pages.heights.append(height)


def _read_figures(doc: pymupdf.Document, i: int, cfg: IngestSettings, pages: _Pages, skip_digests: set[bytes],
                  seen: set[str], ocr_fn: Callable[[bytes], list[OcrLine]] | None,
                  furniture: set[str]) -> list[figmod.Figure]:
    """Page i's figures, found with the rows read of it (the document's running headers and footers, `furniture`,
    are no figure's caption); a page whose figures fail loses only them, with a warning."""
    try:
        figs = figmod.extract_figures(doc.load_page(i), i + 1, pages.rows[i], skip_digests, cfg, seen, ocr_fn,
                                      furniture)
    except Exception as exc:
        pages.warnings.append(f"page {i + 1}: figures skipped: {type(exc).__name__}: {exc}")
        return []
    pages.figs.extend(figs)
    return figs


class _Clock:
    """The per-document time limit (RAG_INGEST__MAX_SECONDS), checked page by page."""

    def __init__(self, cfg: IngestSettings, started: float | None = None):
        self.cfg, self.started = cfg, started or time.perf_counter()

    def check(self, page_no: int, n: int) -> None:
        if time.perf_counter() - self.started > self.cfg.max_seconds:
            raise LimitExceededError(f"reading stopped after {self.cfg.max_seconds:.0f} s at page {page_no} of {n} "
                                     f"(limit RAG_INGEST__MAX_SECONDS)")


def read_text(doc: pymupdf.Document, settings: Settings, progress: Progress | None = None,
              warnings: list[str] | None = None, clock: _Clock | None = None) -> _Pages:
    """The first pass: every page's rows in reading order (pages are read one by one; a bad one is skipped)."""
    pages = _Pages(warnings=warnings if warnings is not None else [])
    clock = clock or _Clock(settings.ingest)
    n = doc.page_count
    for i in range(n):
        clock.check(i + 1, n)
        _read_text(doc, i, settings.ingest, pages)
        if progress:
            progress("pages", i + 1, n)
    return pages


def read_figures(doc: pymupdf.Document, pages: _Pages, settings: Settings, clock: _Clock | None = None):
    """The second pass, page by page: each page's figures (rendered, classified, OCR'd within the budget).
    A generator, so that the caller hands each page's figures on while the next page renders."""
    cfg = settings.ingest
    ocr_fn = _figure_ocr(cfg) if cfg.ocr else None
    skip_digests = figmod.repeated_image_digests(doc)
    furniture = layout.repeated_margin_texts(pages.rows, pages.heights)
    seen: set[str] = set()
    clock = clock or _Clock(cfg)
    for i in range(doc.page_count):
        clock.check(i + 1, doc.page_count)
        yield i + 1, _read_figures(doc, i, cfg, pages, skip_digests, seen, ocr_fn, furniture)


def first_pages_text(doc: pymupdf.Document, n: int = 12) -> list[str]:
    """The text of the first n pages in reading order, as ingestion gives it to metadata detection (no OCR)."""
    out = []
    for i in range(min(n, doc.page_count)):
        try:
            page = doc.load_page(i)
            rows = layout.reading_order(layout.lines_from_dict(page.get_text("dict", flags=DICT_FLAGS)),
                                        page.rect.width, i + 1)
            out.append("\n".join(r.text for r in rows))
        except Exception:  # a broken page reads as empty, as in ingestion
            out.append("")
    return out


def _chunk_pages(pages: _Pages, settings: Settings) -> list[chunking.Chunk]:
    """The pages' rows, less running headers and footers, with headings marked → chunks."""
    pages_rows = pages.rows
    repeated = layout.repeated_margin_texts(pages_rows, pages.heights)
    kept = [layout.drop_margins(rows, h, repeated) for rows, h in zip(pages_rows, pages.heights, strict=False)]
    # Running headers and footers go, unless they are all the text there is (short pages that open alike).
    if any(r.text.strip() for rows in kept for r in rows) or not repeated:
        pages_rows = kept
    layout.mark_headings(pages_rows, layout.body_size(pages_rows))
    units = chunking.rows_to_units(pages_rows)
    return chunking.chunk_units(units, settings.chunking)


def parse_pdf(doc: pymupdf.Document, settings: Settings, progress: Progress | None = None,
              warnings: list[str] | None = None):
    """Pages → (chunks, figures, ocr_page_count, text of the first 12 pages), both passes one after the other.
    Ingestion itself overlaps the second pass with embedding (_ingest_new)."""
    pages = read_text(doc, settings, progress, warnings)
    chunks = _chunk_pages(pages, settings)
    for _ in read_figures(doc, pages, settings):
        pass
    _link_figures(pages.figs, chunks)
    return chunks, pages.figs, pages.ocr_pages, pages.first_pages


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
    res = IngestResult(file=clean_file_name(display_name or path.name))  # CLI, upload and queue alike
    try:
        check_file(path, settings.ingest.max_file_mb)
        sha = sha256_file(path)
        existing = store.document_by_sha256(sha)
        if existing:  # the same file is in the store already
            res.document_id, res.already_ingested = existing, True
            return res
        store.check_model(embedder.model_name)
        _ingest_new(path, sha, res, store, embedder, settings, t0, password, progress)
    except IngestError as exc:
        res.error = scrub_path(str(exc), path)
    except Exception as exc:  # anything else is still one file's failure, reported in one line (trace with -v)
        log.debug("ingest failed for %s", res.file, exc_info=True)
        res.error = scrub_path(" ".join(f"{type(exc).__name__}: {exc}".split())[:400], path)
    finally:
        res.warnings = [scrub_path(w, path) for w in res.warnings]
        res.seconds = round(time.perf_counter() - t0, 2)
    return res


def read_document(path: Path, password: str | None, settings: Settings, file_name: str,
                  send: Callable[[tuple], None]) -> None:
    """Every PyMuPDF call for one new document, in the child process (rag/ingest/child.py): open and validate it,
    read its text (pass 1), detect what it says of itself, then render its figures page by page (pass 2), sending
    each step's result as it comes."""
    doc = open_pdf(path, password, settings.ingest.max_file_mb, settings.ingest.max_pages)
    try:
        clock = _Clock(settings.ingest)
        pages = read_text(doc, settings, lambda stage, done, total: send(("progress", stage, done, total)),
                          None, clock)
        chunks = _chunk_pages(pages, settings)
        if not chunks:
            raise IngestError("no text found: the PDF is blank" + ("" if settings.ingest.ocr else
                              " or scanned (OCR is switched off)"))
        meta = metadata_of(doc, pages.first_pages, file_name, "\n".join(c.text for c in chunks))
        send(("text", Text(doc.page_count, chunks, meta, pages.ocr_pages, list(pages.warnings))))
        seen = len(pages.warnings)
        for page_no, figs in read_figures(doc, pages, settings, clock):
            send(("figures", page_no, figs))
        send(("done", pages.warnings[seen:]))
    finally:
        doc.close()


def _ingest_new(path: Path, sha: str, res: IngestResult, store, embedder: Embedder, settings: Settings, t0: float,
                password: str | None, progress: Progress | None) -> None:
    """A document not in the store yet: a child process reads it (rag/ingest/child.py) while this one joins its
    issuer, embeds the chunks as soon as the text is read and the figures as they come, and writes it all in one
    call; then keeps the file."""
    events = read_in_child(read_document, path, password, settings, res.file, progress, t0)
    try:
        text = next(events)[1]
        res.pages, res.ocr_pages = text.page_count, text.ocr_pages
        res.warnings.extend(text.warnings)
        chunks = text.chunks
        meta = _join_issuer(text.meta, store)
        label = metadata.context_label(meta)
        contexts = [f"{label} | {c.heading}" if c.heading else label for c in chunks]
        vecs, figs = _embed_while_reading(events, text.page_count, chunks, contexts, embedder, settings,
                                          _Clock(settings.ingest, t0), progress, res.warnings)
    finally:
        events.close()  # the child is gone, whatever happened
    _link_figures(figs, chunks)
    if meta.doc_type == "research paper":
        from rag.ingest.sections import assign_by_content

        assign_by_content(chunks, vecs[: len(chunks)], embedder)
    tokens = embedder.count_tokens([c.text for c in chunks])
    doc_row = _document_row(res, meta, label, sha, text.page_count, embedder.model_name, path)
    doc_row["meta"]["embedding_backend"] = embedder.label  # torch fp32 / bf16 or int8 ONNX: one vector space
    tables = factmod.read_tables(factmod.lines_of_units(chunks),
                                 factmod.DocContext(meta.fiscal_year, meta.fiscal_period, meta.doc_type))
    table_facts = [f for t in tables for f in factmod.facts_of_table(t)]
    doc_row["tables"] = [t.to_json() for t in tables]
    _check_time(t0, settings, "after embedding, before writing")
    out = store.ingest_document(doc_row, _chunk_rows(chunks, contexts, tokens, vecs[: len(chunks)],
                                                     factmod.facts_by_chunk(table_facts)),
                                figure_rows(figs, vecs[len(chunks):]))
    res.document_id = out["document_id"]
    res.already_ingested = bool(out.get("already_ingested"))
    res.chunks, res.figures = int(out.get("chunks", 0)), int(out.get("figures", 0))
    res.facts, res.tables = int(out.get("facts", 0)), int(out.get("tables", 0))
    _keep_original(store, res, path, password, settings)
    res.metadata = {k: doc_row[k] for k in ("title", "company", "fiscal_year", "fiscal_period", "doc_type",
                                             "published_date")}


def metadata_of(doc: pymupdf.Document, first_pages: list[str], file_name: str,
                full_text: str | None = None) -> DocumentMeta:
    """What the document says of itself: company, year, type and date from its first pages' text (the issuer: the
    legal name its whole text uses most), then its title (and a paper's authors and year) from the layout of its
    first page (rag/ingest/titles.py)."""
    from rag.ingest import titles

    meta = metadata.detect(first_pages[:5], doc.metadata or {}, file_name, later_pages=first_pages[5:],
                           full_text=full_text)
    try:
        titles.apply(meta, doc, first_pages)
    except Exception:  # a page whose layout cannot be read keeps the text-based title
        pass
    return meta


def _join_issuer(meta: DocumentMeta, store) -> DocumentMeta:
    """A document of an issuer already in the store joins it (its key); it takes the issuer's name when its own is
    the same name written otherwise ("Best Buy Co" for "Best Buy Co., Inc."), and keeps its own when the issuer was
    renamed ("Adobe Inc." after "Adobe Systems")."""
    same = issuers_of(store, store.list_documents()).same_issuer(meta.company_key, list(meta.aliases))
    if same:
        if meta.company_key == same.key or not meta.company:
            meta.company = same.name
        meta.company_key = same.key
    return meta


def _embed_while_reading(events: Iterator[tuple], page_count: int, chunks: list[chunking.Chunk],
                         contexts: list[str], embedder: Embedder, settings: Settings, clock: _Clock,
                         progress: Progress | None, warnings: list[str]) -> tuple[np.ndarray, list[figmod.Figure]]:
    """One embedding per chunk (its context line, then its text), then one per figure, in that order, and the
    figures. The chunks embed on the stage's thread while the child renders each page's figures and this thread
    hands their texts on."""
    texts = [f"{ctx}\n{c.text}" for ctx, c in zip(contexts, chunks, strict=False)]
    figs: list[figmod.Figure] = []

    def pages_of_figures() -> Iterator[tuple[int, list[figmod.Figure]]]:
        for event in events:
            if event[0] == "figures":
                figs.extend(event[2])
                yield event[1], event[2]
            elif event[0] == "done":
                warnings.extend(event[1])

    if not settings.ingest.overlap:  # one stage after the other (the path before overlap; for comparison)
        texts += [f.embed_text() for _, page_figs in pages_of_figures() for f in page_figs]
    stage = EmbedStage(embedder, texts)
    try:
        for page_no, page_figs in pages_of_figures() if settings.ingest.overlap else ():
            stage.put([f.embed_text() for f in page_figs])
            if progress:
                progress("figures", page_no, page_count)
                progress("embedding", stage.done, stage.total)

        def tick(done: int, total: int) -> None:
            clock.check(page_count, page_count)
            if progress:
                progress("embedding", done, total)

        return stage.finish(tick), figs
    except BaseException:
        stage.cancel()
        raise


def _document_row(res: IngestResult, meta: DocumentMeta, label: str, sha: str, page_count: int,
                  model_name: str, path: Path) -> dict:
    """The documents row."""
    return {
        "file_name": res.file, "title": meta.title, "company": meta.company, "company_key": meta.company_key,
        "fiscal_year": meta.fiscal_year, "fiscal_period": meta.fiscal_period, "doc_type": meta.doc_type,
        "published_date": meta.published_date, "sha256": sha, "page_count": page_count,
        "ocr_pages": res.ocr_pages, "embedding_model": model_name,
        "meta": {"label": label, "source_path_name": clean_file_name(path.name), "warnings": res.warnings[:20],
                 "year_labels": list(meta.year_labels), "company_aliases": list(meta.aliases),
                 "authors": list(meta.authors)},
    }


def _chunk_rows(chunks: list[chunking.Chunk], contexts: list[str], tokens: list[int], vecs,
                facts: dict[int, list[FactRow]] | None = None) -> list[ChunkRow]:
    """One chunks row per chunk, with its embedding and its table facts."""
    facts = facts or {}
    return [{
        "chunk_index": c.chunk_index, "page_start": c.page_start, "page_end": c.page_end,
        "heading": c.heading, "section_type": c.section_type, "context": ctx, "content": c.text,
        "token_count": tok, "embedding": _vec(v), "facts": facts.get(c.chunk_index, []),
    } for c, ctx, tok, v in zip(chunks, contexts, tokens, vecs, strict=False)]


def figure_rows(figs: list[figmod.Figure], vecs) -> list[FigureRow]:
    """One figures row per figure: the image as base64 PNG, with its embedding."""
    return [{
        "chunk_index": f.chunk_index, "page": f.page, "bbox": list(f.bbox), "kind": f.kind,
        "caption": f.caption, "context": f.context, "ocr_text": f.ocr_text, "chart_type": f.chart_type,
        "image_b64": base64.b64encode(f.png).decode("ascii"), "sha256": f.sha256,
        "width": f.width, "height": f.height, "embedding": _vec(v),
        "figure_kind": f.figure_kind, "kind_why": f.kind_why, "signals": f.signals,
    } for f, v in zip(figs, vecs, strict=False)]


def _keep_original(store, res: IngestResult, path: Path, password: str | None, settings: Settings) -> None:
    """Store the original PDF, so the app can show the cited region of a page; failing that is only a warning.
    A password-protected PDF is not kept: its text is in the store, the file stays with its owner."""
    if settings.ingest.keep_pdf and not res.already_ingested and not password and \
            path.stat().st_size <= settings.ingest.keep_pdf_max_mb * 1024 * 1024:
        try:  # optional: the app shows the cited region of a page from it
            store.put_document_file(res.document_id, path.read_bytes())
        except Exception as exc:  # the document itself is stored; only the crops are lost
            res.warnings.append(f"original PDF not stored: {type(exc).__name__}: {exc}")


def _vec(v) -> list[float]:
    return [round(float(x), 7) for x in v]
