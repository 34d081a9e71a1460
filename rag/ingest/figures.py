"""Figures: embedded raster images and vector-drawn charts → PNG crops with caption, context and text.
Decorative images (tiny, full-page backgrounds, logos repeated across pages, duplicates) are dropped."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

import pymupdf

from rag.config import IngestSettings
from rag.ingest import crop as cropmod
from rag.ingest import figkind
from rag.ingest.layout import Row
from rag.ingest.pdf import render

CAPTION = re.compile(rf"^\s*({cropmod.FIGURE_WORDS})\s*{cropmod.FIGURE_NUMBER}\s*[:.|\-–—]?", re.I)
DISPLAY_WIDTH_PX = 520  # the width of a figure in an answer (pages/views/ask.py)
FIG_NUM = re.compile(r"\b(?:figure|fig\.?)\s*(\d+)", re.I)


@dataclass
class Figure:
    page: int  # 1-based
    bbox: tuple[float, float, float, float]
    kind: str  # raster | vector
    png: bytes
    width: int
    height: int
    sha256: str
    caption: str = ""
    context: str = ""
    ocr_text: str = ""
    chart_type: str | None = None
    number: str | None = None
    chunk_index: int | None = None
    figure_kind: str = "diagram"  # chart | diagram | table | photo | logo | decoration | map | cover (figkind.py)
    kind_why: str = ""  # the signals that decided it
    signals: dict | None = None
    crop: tuple[float, float, float, float] | None = None  # what is shown: the region's display crop (crop.py)

    def embed_text(self) -> str:
        # Caption and the surrounding paragraph carry the meaning; OCR is noisy (tick labels), so short.
        # No document label: with a small model it outweighs a short caption.
        parts = [self.caption, self.context[:400], self.ocr_text[:200]]
        return "\n".join(p for p in parts if p).strip() or "figure"


def repeated_image_digests(doc: pymupdf.Document, min_pages: int = 3) -> set[bytes]:
    """Digests of images that appear on at least min_pages pages (logos, page decorations)."""
    counts: Counter[bytes] = Counter()
    for page in doc:
        try:
            infos = page.get_image_info(hashes=True)
        except Exception:
            continue
        if len(infos) > 200:  # a page of tiny tiles; none of them is a logo worth counting
            continue
        counts.update({i["digest"] for i in infos if i.get("digest")})
    return {d for d, c in counts.items() if c >= min_pages}


def _union(rects: list[pymupdf.Rect], pad: float = 2) -> list[pymupdf.Rect]:
    rects = [pymupdf.Rect(r) for r in rects]
    changed = True
    while changed:
        changed = False
        out: list[pymupdf.Rect] = []
        for r in rects:
            for o in out:
                if (o + (-pad, -pad, pad, pad)).intersects(r):
                    o |= r
                    changed = True
                    break
            else:
                out.append(pymupdf.Rect(r))
        rects = out
    return rects


def _raster_regions(page: pymupdf.Page, skip: set[bytes], cfg: IngestSettings) -> list[pymupdf.Rect]:
    area = page.rect.width * page.rect.height
    try:
        infos = page.get_image_info(hashes=True)
    except Exception:
        return []
    rects = []
    for info in infos:
        r = pymupdf.Rect(info["bbox"]) & page.rect
        if r.is_empty or info.get("digest") in skip:
            continue
        if r.width < cfg.min_figure_pt or r.height < cfg.min_figure_pt / 2:
            continue
        if r.width * r.height > 0.85 * area:  # background or a scanned page: not a figure
            continue
        rects.append(r)
    return [r for r in _union(rects, pad=10) if r.width * r.height <= 0.9 * area]


def _varies(values: list[float]) -> bool:
    if len(values) < 3:
        return False
    m = sum(values) / len(values)
    return m > 0 and (sum((v - m) ** 2 for v in values) / len(values)) ** 0.5 / m > 0.05


def _is_chart(drawings: list[dict], rect: pymupdf.Rect) -> tuple[bool, str | None]:
    """Tell a chart from table rules and shading: charts have curves, slanted lines, or bars that share
    a baseline and differ in length (table cell shading tiles with equal row heights)."""
    curves = diag = 0
    fills: set = set()
    filled: list[pymupdf.Rect] = []
    for d in drawings:
        if d.get("fill") is not None:
            fills.add(tuple(round(c, 2) for c in d["fill"]))
        for item in d["items"]:
            op = item[0]
            if op == "c":
                curves += 1
            elif op == "l":
                p, q = item[1], item[2]
                if abs(p.x - q.x) > 1 and abs(p.y - q.y) > 1:
                    diag += 1
            elif op in ("re", "qu") and d.get("fill") is not None:
                r = pymupdf.Rect(item[1]) if op == "re" else item[1].rect
                if r.width < 0.8 * rect.width and r.width > 1.5 and r.height > 1.5:
                    filled.append(r)
        # A bar drawn as a closed, filled path of horizontal/vertical lines.
        if d.get("fill") is not None and d["items"] and all(
                it[0] == "l" and (abs(it[1].x - it[2].x) < 0.5 or abs(it[1].y - it[2].y) < 0.5) for it in d["items"]):
            r = d["rect"]
            if r.width < 0.8 * rect.width and r.width > 1.5 and r.height > 1.5:
                filled.append(r)
    if curves >= 8 and len(fills) >= 2 and _wedges(drawings):
        return True, "pie"
    if diag >= 6 or (curves >= 8 and len(fills) >= 2):
        return True, _marks(drawings, rect)
    # Vertical bars: several rects on a common bottom edge with different heights; horizontal: common left edge.
    by_bottom: dict[int, list[pymupdf.Rect]] = {}
    by_left: dict[int, list[pymupdf.Rect]] = {}
    for r in filled:
        by_bottom.setdefault(round(r.y1 / 3), []).append(r)
        by_left.setdefault(round(r.x0 / 3), []).append(r)
    if any(len(g) >= 3 and _varies([r.height for r in g]) for g in by_bottom.values()):
        return True, "bar"
    if any(len(g) >= 3 and _varies([r.width for r in g]) for g in by_left.values()):
        return True, "bar"
    return False, None


def _marks(drawings: list[dict], rect: pymupdf.Rect) -> str | None:
    """What a plot draws: many small marks (a scatter plot) or long strokes across it (a line chart)."""
    small = long = 0
    for d in drawings:
        r = d["rect"]
        if r.width < 0.04 * rect.width and r.height < 0.04 * rect.height:
            small += 1
        elif d.get("fill") is None and r.width > 0.25 * rect.width and len(d["items"]) >= 3:
            long += 1
    if small >= 12 and small > 4 * long:
        return "scatter"
    return "line" if long else None


def _wedges(drawings: list[dict]) -> bool:
    """A pie or donut: three or more filled, curved shapes of different colours around one centre."""
    shapes = [d for d in drawings if d.get("fill") is not None and any(it[0] == "c" for it in d["items"])]
    if len(shapes) < 3 or len({tuple(round(c, 2) for c in d["fill"]) for d in shapes}) < 3:
        return False
    union = pymupdf.Rect(shapes[0]["rect"])
    for d in shapes[1:]:
        union |= d["rect"]
    centre = pymupdf.Point((union.x0 + union.x1) / 2, (union.y0 + union.y1) / 2)
    near = [d for d in shapes if min(abs(d["rect"].x0 - centre.x), abs(d["rect"].x1 - centre.x)) < 0.1 * union.width
            or min(abs(d["rect"].y0 - centre.y), abs(d["rect"].y1 - centre.y)) < 0.1 * union.height]
    return 0.6 < union.width / max(1.0, union.height) < 1.7 and len(near) >= 0.6 * len(shapes)


def drawings_in(drawings: list[dict], rect: pymupdf.Rect) -> list[dict]:
    """The drawings of a region: inside it, or mostly inside it."""
    return [d for d in drawings
            if rect.contains(d["rect"]) or (d["rect"] & rect).get_area() > 0.8 * d["rect"].get_area()]


def _looks_like_table(rect: pymupdf.Rect, rows: list[Row]) -> bool:
    """Ruled or shaded tables draw boxes too; their text rows hold label + numbers across the region."""
    inside = [r for r in rows if r.y0 >= rect.y0 - 2 and r.y1 <= rect.y1 + 2]
    if len(inside) < 3:
        return False
    tabular = sum(1 for r in inside if r.is_table or r.is_header_row)
    return tabular >= 3 and tabular >= 0.4 * len(inside)


def _grow_to_labels(rect: pymupdf.Rect, rows: list[Row], reach: float = 24) -> pymupdf.Rect:
    """A vector chart's drawings exclude its text: take in short label rows (values, axis, title) next to it."""
    grown = pymupdf.Rect(rect)
    for r in rows:
        if r.words > 8 or r.y1 < rect.y0 - reach or r.y0 > rect.y1 + reach:
            continue
        if r.x0 >= rect.x0 - 10 and r.x0 <= rect.x1:
            grown.y0, grown.y1 = min(grown.y0, r.y0), max(grown.y1, r.y1)
    return grown


def _drawings(page: pymupdf.Page) -> list[dict]:
    """The page's vector drawings, without page backgrounds and frames (they would swallow every chart)."""
    area = page.rect.width * page.rect.height
    try:
        return [d for d in page.get_drawings() if d["rect"].width * d["rect"].height < 0.5 * area]
    except Exception:
        return []


def _vector_regions(page: pymupdf.Page, taken: list[pymupdf.Rect], cfg: IngestSettings, rows: list[Row],
                    drawings: list[dict]):
    area = page.rect.width * page.rect.height
    if not drawings or len(drawings) > 5000:
        return []
    try:
        clusters = page.cluster_drawings(drawings=drawings, x_tolerance=20, y_tolerance=10)
    except Exception:
        return []
    out = []
    for rect in _union([c for c in clusters], pad=4):
        rect &= page.rect
        if rect.width < cfg.min_figure_pt * 1.5 or rect.height < cfg.min_figure_pt:
            continue
        if rect.width * rect.height > 0.85 * area:
            continue
        # Drawings around a raster image (frames, logos beside a photo) are not a chart of their own.
        if any((rect & t).get_area() > 0.5 * min(rect.get_area(), t.get_area()) for t in taken):
            continue
        ok, chart_type = _is_chart(drawings_in(drawings, rect), rect)
        # Bars are the weak signal (shaded table cells look alike): then the text must not be a table.
        if ok and (chart_type != "bar" or not _looks_like_table(rect, rows)):
            out.append((_grow_to_labels(rect, rows), chart_type))
    return out


def _caption_for(rect: pymupdf.Rect, rows: list[Row]) -> tuple[str, str | None]:
    """Caption below or above the figure ('Figure 3:', 'Chart', 'Exhibit'…), else the nearest title line."""
    # Only rows that share the figure's horizontal span: the other column's prose is not its caption.
    rows = [r for r in rows if min(r.x1 or r.x0 + 1, rect.x1) - max(r.x0, rect.x0) > 0]
    below = [r for r in rows if r.y0 >= rect.y1 - 4 and r.y0 - rect.y1 < 60]
    above = [r for r in rows if r.y1 <= rect.y0 + 4 and rect.y0 - r.y1 < 60]
    inside = [r for r in rows if r.y0 >= rect.y0 - 2 and r.y1 <= rect.y1 + 2]
    for group in (sorted(below, key=lambda r: r.y0), sorted(above, key=lambda r: -r.y0),
                  sorted(inside, key=lambda r: r.y0)):
        for r in group:
            m = CAPTION.match(r.text)
            if m and len(r.text) > 4:
                text = r.text
                # A caption continues on following lines of the same paragraph.
                idx = rows.index(r)
                for nxt in rows[idx + 1: idx + 4]:
                    if nxt.y0 - r.y1 > nxt.size * 1.2 or len(text) > 300 or CAPTION.match(nxt.text) \
                            or abs(nxt.size - r.size) > 0.6 or (text.rstrip().endswith(".") and len(text) > 30):
                        break
                    text += " " + nxt.text
                    r = nxt
                num = FIG_NUM.search(text)
                return text[:400], (num.group(1) if num else None)
    # No explicit caption: a short title-like line just above, or the first line inside the chart.
    near_above = sorted(above, key=lambda r: -r.y0)[:3]
    inside_size = max((r.size for r in inside), default=0)
    emphasised = [r for r in near_above if r.bold or r.size > inside_size + 0.5]
    for r in emphasised + sorted(inside, key=lambda r: r.y0)[:6] + near_above:
        if _title_like(r):
            return r.text[:200], None
    return "", None


def _title_like(r: Row) -> bool:
    t = r.text.strip()
    return 2 <= r.words <= 14 and not r.is_table and not t.endswith((".", ",", ";")) \
        and bool(re.search(r"[A-Za-z]{3}", t)) and not t[:1].islower()


def _context_for(rect: pymupdf.Rect, rows: list[Row], caption: str) -> str:
    near = sorted(rows, key=lambda r: min(abs(r.y0 - rect.y1), abs(rect.y0 - r.y1)))
    parts, n = [], 0
    for r in near:
        if r.text in caption or (r.y0 >= rect.y0 and r.y1 <= rect.y1):
            continue
        parts.append(r.text)
        n += len(r.text)
        if n > 500:
            break
    return " ".join(parts)[:600]


def _text_inside(page: pymupdf.Page, rect: pymupdf.Rect) -> str:
    try:
        return " ".join(page.get_text("text", clip=rect, flags=pymupdf.TEXT_MEDIABOX_CLIP).split())
    except Exception:
        return ""


def extract_figures(page: pymupdf.Page, page_no: int, rows: list[Row], skip_digests: set[bytes],
                    cfg: IngestSettings, seen_hashes: set[str], ocr=None) -> list[Figure]:
    """Figures of one page, largest first, at most cfg.max_figures_per_page."""
    raster = _raster_regions(page, skip_digests, cfg)
    drawings = _drawings(page)  # once per page: regions and crops both read them
    vector = _vector_regions(page, raster, cfg, rows, drawings)
    regions = [(r, "raster", None) for r in raster] + [(r, "vector", t) for r, t in vector]
    # Panels of one figure ("Figure 3" over four heatmaps) become one figure: same numbered caption.
    merged: dict[str, list] = {}
    singles = []
    for rect, kind, chart_type in regions:
        caption, number = _caption_for(rect, rows)
        if number:
            key = number
            if key in merged:
                merged[key][0] |= rect
                continue
            merged[key] = [pymupdf.Rect(rect), kind, chart_type, caption, number]
        else:
            singles.append([rect, kind, chart_type, caption, number])
    regions = list(merged.values()) + singles
    regions.sort(key=lambda x: -x[0].get_area())
    figures: list[Figure] = []
    lines = cropmod.text_lines(page) if regions else []
    for rect, kind, chart_type, caption, number in regions[: cfg.max_figures_per_page]:
        display = cropmod.display_crop(page, rect, kind == "raster", lines, drawings,
                                       [r[0] for r in regions if r[0] != rect])
        fig = _figure_of(page, page_no, rect, kind, chart_type, caption, number, rows, cfg, seen_hashes, ocr,
                         display)
        if fig is not None:
            figures.append(fig)
    return figures


def crop_of(page: pymupdf.Page, rect: pymupdf.Rect) -> pymupdf.Rect:
    return (rect + (-6, -6, 6, 6)) & page.rect


def region_pixmap(page: pymupdf.Page, rect: pymupdf.Rect, source: str, cfg: IngestSettings) -> pymupdf.Pixmap:
    """The region as the classifier reads it (colours, white, OCR of an image): an image at the crop resolution
    (OCR needs it), drawings at the figure resolution (only their colours are read). Ingestion, re-reading stored
    figures and the labelled-figure bench all read a region through this one function."""
    clip = crop_of(page, rect)
    return render(page, crop_zoom(clip, cfg) if source == "raster" else cfg.figure_dpi / 72, clip=clip)


def crop_zoom(clip: pymupdf.Rect, cfg: IngestSettings) -> float:
    """At least twice the width an answer shows a figure at, so that it stays legible when enlarged."""
    return max(cfg.figure_dpi / 72, 2 * DISPLAY_WIDTH_PX / max(clip.width, 1.0))


def _band_caption(page: pymupdf.Page, rect: pymupdf.Rect) -> str:
    """A label set in the same row as its neighbours' labels: the band just below or above the region."""
    for band in (pymupdf.Rect(rect.x0 - 4, rect.y1, rect.x1 + 4, rect.y1 + 22),
                 pymupdf.Rect(rect.x0 - 4, rect.y0 - 22, rect.x1 + 4, rect.y0)):
        t = _text_inside(page, band & page.rect)
        if 1 <= len(t.split()) <= 10 and re.search(r"[A-Za-z]{3}", t) and not t.endswith(".") \
                and not t[:1].islower():
            return t
    return ""


def _figure_of(page: pymupdf.Page, page_no: int, rect: pymupdf.Rect, kind: str, drawn: str | None, caption: str,
               number: str | None, rows: list[Row], cfg: IngestSettings, seen_hashes: set[str],
               ocr, display: pymupdf.Rect) -> Figure | None:
    """One region rendered, read (its text layer, else OCR) and classified, and shown as its display crop
    (rag/ingest/crop.py); None when it is a duplicate."""
    clip = display if not display.is_empty else crop_of(page, rect)
    try:
        pix = region_pixmap(page, rect, kind, cfg)  # bounded size
        shown = render(page, crop_zoom(clip, cfg), clip=clip)
    except Exception:
        return None
    if shown.width < 20 or shown.height < 20:
        return None
    png, shown_png = pix.tobytes("png"), shown.tobytes("png")
    digest = hashlib.sha256(shown_png).hexdigest()
    if digest in seen_hashes:
        return None
    seen_hashes.add(digest)
    caption = caption or _band_caption(page, rect)
    text = _text_inside(page, rect)
    lines = ocr(png) if kind == "raster" and len(text) < 20 and ocr is not None else []
    if lines:
        text = " ".join(ln.text for ln in sorted(lines, key=lambda ln: (round(ln.box[1] / 12), ln.box[0])))
    drawn = (drawn or "curve") if kind == "vector" else None
    sig = figkind.signals_of(page, rect, kind, rows, png, drawn, caption=caption, ocr=lines)
    k = figkind.classify(sig, caption + " " + text)
    return Figure(page_no, tuple(round(v, 1) for v in rect), kind, shown_png, shown.width, shown.height, digest,
                  caption=caption, context=_context_for(rect, rows, caption), ocr_text=text[:2000],
                  chart_type=k.chart_type, number=number, figure_kind=k.kind,
                  kind_why="; ".join(k.why), signals=sig.to_json(),
                  crop=tuple(round(v, 1) for v in clip))
