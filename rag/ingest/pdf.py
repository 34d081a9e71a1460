"""Opening a PDF safely: every failure becomes one clear IngestError naming the reason."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, TypedDict

import pymupdf

from rag.errors import (
    CorruptPDFError,
    EmptyFileError,
    LimitExceededError,
    NotAPDFError,
    PasswordRequiredError,
    WrongPasswordError,
)

pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


MAX_RENDER_PIXELS = 4_000_000  # ~2000 x 2000: enough for OCR and a sharp crop, ~12 MB of RGB
MAX_RENDER_SIDE = 4000


class Drawing(TypedDict, total=False):
    """One vector path of a page, as PyMuPDF's `Page.get_drawings()` gives it (its "path dictionary"): the keys
    the figure code reads are typed; the rest are PyMuPDF's own."""
    rect: pymupdf.Rect  # the path's bounding box
    items: list[tuple[Any, ...]]  # its drawing commands: ("l", p1, p2), ("re", rect, …), ("c", p1, p2, p3, p4), ("qu", quad)
    fill: tuple[float, ...] | None  # fill colour (RGB, 0..1); None when not filled
    color: tuple[float, ...] | None  # stroke colour
    width: float | None  # stroke width
    type: str  # "f" fill, "s" stroke, "fs" both
    closePath: bool
    even_odd: bool
    fill_opacity: float | None
    stroke_opacity: float | None
    dashes: str | None
    lineCap: tuple[int, ...]
    lineJoin: float
    seqno: int
    layer: str | None
    level: int



def render(page: pymupdf.Page, zoom: float = 2.0, clip: pymupdf.Rect | None = None, rotate: int = 0,
           max_pixels: int | None = None) -> pymupdf.Pixmap:
    """A page (or a region of it) as a pixmap at `zoom`, lowered so the image never exceeds max_pixels or
    MAX_RENDER_SIDE on a side: a huge page (a 6000-pt poster, a map) renders small instead of taking gigabytes."""
    area = pymupdf.Rect(clip) & page.rect if clip is not None else page.rect
    zoom = render_zoom(area, zoom, max_pixels)
    return page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom).prerotate(rotate), clip=clip)


def render_zoom(area: pymupdf.Rect, zoom: float, max_pixels: int | None = None) -> float:
    """The zoom `render` uses for an area: the one asked for, or lower for a huge area."""
    max_pixels = max_pixels or MAX_RENDER_PIXELS
    w, h = max(area.width, 1.0), max(area.height, 1.0)
    return min(zoom, (max_pixels / (w * h)) ** 0.5, MAX_RENDER_SIDE / max(w, h))


def scrub_path(message: str, path: Path) -> str:
    """A message about a file with every spelling of its folder removed: users see the file's name, never where
    it is on the server."""
    path = Path(path)
    for p in {str(path), str(path.absolute()), str(path.resolve()) if path.exists() else str(path)}:
        if p and p != path.name:
            message = message.replace(p, path.name)
    for folder in {str(path.parent.absolute()), str(path.parent)}:
        if folder not in ("", "."):
            message = message.replace(folder.rstrip("/") + "/", "")
    return message


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_file(path: Path, max_mb: float | None = None) -> None:
    """What can be told of a file without parsing it: readable, not empty, within the size limit, a PDF header."""
    try:
        size = Path(path).stat().st_size
    except OSError as exc:
        raise CorruptPDFError(f"cannot read file: {exc.strerror}") from exc
    if size == 0:
        raise EmptyFileError("empty file (0 bytes)")
    if max_mb is not None and size > max_mb * 1024 * 1024:
        raise LimitExceededError(f"file is {size / 1048576:.0f} MB, above the {max_mb:.0f} MB limit")
    with open(path, "rb") as f:
        head = f.read(1024)
    if b"%PDF-" not in head:
        raise NotAPDFError("not a PDF (no %PDF header): " + _sniff(head))


def open_pdf(path: Path, password: str | None = None, max_mb: float | None = None,
             max_pages: int | None = None) -> pymupdf.Document:
    """Open and validate; raise an IngestError subclass with a one-line reason otherwise."""
    path = Path(path)
    check_file(path, max_mb)
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception as exc:
        raise CorruptPDFError(f"malformed PDF that could not be repaired ({exc})") from exc
    if doc.needs_pass:
        if not password:
            doc.close()
            raise PasswordRequiredError("password required: the PDF is encrypted")
        if not doc.authenticate(password):
            doc.close()
            raise WrongPasswordError("password required: the password given is wrong")
    if doc.page_count == 0:
        doc.close()
        raise CorruptPDFError("malformed PDF: no readable pages (damaged or truncated file)")
    if max_pages is not None and doc.page_count > max_pages:
        n = doc.page_count
        doc.close()
        raise LimitExceededError(f"{n} pages, above the {max_pages}-page limit")
    return doc


def _sniff(head: bytes) -> str:
    if head.startswith(b"PK"):
        return "looks like a ZIP/Office file"
    if head.lstrip()[:1] in (b"<",):
        return "looks like HTML/XML"
    if head[:3] == b"\xff\xd8\xff" or head[:8] == b"\x89PNG\r\n\x1a\n":
        return "looks like an image"
    try:
        head.decode("utf-8")
        return "looks like a text file"
    except UnicodeDecodeError:
        return "unknown binary content"
