"""OCR with rapidocr (models ship in the wheel); easyocr only when installed and asked for."""

from __future__ import annotations

import io
import threading
import unicodedata
from dataclasses import dataclass

# RapidOCR's detector scales an image's short side up to 736 px (its default, limit_type "min"), whatever the long
# side: a 992 x 126 strip (a progress bar, a legend) becomes 5,800 x 736, about 3 s on 2 cores. Padding the short
# side of such a strip with its own background keeps the detector's input within ASPECT x 736 and its text at no
# less than the rendered size; the recogniser reads each line from the original pixels either way.
DET_SIDE = 736
ASPECT = 3.0

_engine = None
_lock = threading.Lock()


@dataclass
class OcrLine:
    text: str
    score: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in image pixels


def _get_engine(name: str = "rapidocr"):
    global _engine
    with _lock:
        if _engine is None:
            if name == "easyocr":
                import easyocr  # optional, not installed by default

                reader = easyocr.Reader(["en"], gpu=False, download_enabled=False)
                _engine = ("easyocr", reader)
            else:
                import logging

                from rapidocr import RapidOCR

                _engine = ("rapidocr", RapidOCR())
                # "The text detection result is empty" is a warning there; an image without text is normal here.
                logging.getLogger("RapidOCR").setLevel(logging.ERROR)
        return _engine


def _plain(text: str) -> str:
    """OCR's text in its compatibility form: a full-width "９２％" (the models read CJK text too) is "92%"."""
    return unicodedata.normalize("NFKC", text).strip()


def _padded(png: bytes) -> bytes:
    """The image with its short side padded (bottom or right, so boxes keep their coordinates) when the detector
    would otherwise scale a long, thin strip far past ASPECT x DET_SIDE; the image itself otherwise."""
    try:
        from PIL import Image

        with Image.open(io.BytesIO(png)) as src:
            w, h = src.size
            short, long = min(w, h), max(w, h)
            want = min(DET_SIDE, long / ASPECT)
            if short >= DET_SIDE or short >= want:
                return png
            im = src.convert("RGB")
        out = Image.new("RGB", (w, round(want)) if w >= h else (round(want), h), _border(im))
        out.paste(im, (0, 0))
        buf = io.BytesIO()
        out.save(buf, format="PNG")
        return buf.getvalue()
    except Exception:  # an image PIL cannot read goes to the engine as it came
        return png


def _border(im) -> tuple[int, int, int]:
    """The image's background: the commonest colour of its one-pixel border."""
    w, h = im.size
    px = [im.getpixel((x, y)) for x in range(0, w, max(1, w // 64)) for y in (0, h - 1)]
    px += [im.getpixel((x, y)) for y in range(0, h, max(1, h // 64)) for x in (0, w - 1)]
    return max(set(px), key=px.count)


def ocr_image(png: bytes, engine: str = "rapidocr", min_score: float = 0.5) -> list[OcrLine]:
    kind, eng = _get_engine(engine)
    out: list[OcrLine] = []
    if kind == "easyocr":
        for box, text, score in eng.readtext(png):
            xs, ys = [p[0] for p in box], [p[1] for p in box]
            if score >= min_score and text.strip():
                out.append(OcrLine(_plain(text), float(score), (min(xs), min(ys), max(xs), max(ys))))
        return out
    res = eng(_padded(png))
    if res is None or res.txts is None:
        return out
    for box, text, score in zip(res.boxes, res.txts, res.scores, strict=False):
        xs, ys = [p[0] for p in box], [p[1] for p in box]
        if score >= min_score and text.strip():
            out.append(OcrLine(_plain(text), float(score), (min(xs), min(ys), max(xs), max(ys))))
    return out


def ocr_text(png: bytes, engine: str = "rapidocr") -> str:
    lines = ocr_image(png, engine)
    lines.sort(key=lambda l: (round(l.box[1] / 12), l.box[0]))
    return " ".join(l.text for l in lines)
