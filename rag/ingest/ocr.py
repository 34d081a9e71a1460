"""OCR with rapidocr (models ship in the wheel); easyocr only when installed and asked for."""

from __future__ import annotations

import threading
import unicodedata
from dataclasses import dataclass

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


def ocr_image(png: bytes, engine: str = "rapidocr", min_score: float = 0.5) -> list[OcrLine]:
    kind, eng = _get_engine(engine)
    out: list[OcrLine] = []
    if kind == "easyocr":
        for box, text, score in eng.readtext(png):
            xs, ys = [p[0] for p in box], [p[1] for p in box]
            if score >= min_score and text.strip():
                out.append(OcrLine(_plain(text), float(score), (min(xs), min(ys), max(xs), max(ys))))
        return out
    res = eng(png)
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
