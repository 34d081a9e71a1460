"""OCR of a long, thin strip: the detector's input is padded, not blown up, and the words and their boxes stay."""

from __future__ import annotations

import io

import pymupdf
from PIL import Image

from rag.ingest import ocr


def _strip(width: float = 500, height: float = 60, fill=(1, 1, 1)) -> bytes:
    """A strip as a figure renders it (2x): a progress bar's label and value on a coloured panel."""
    doc = pymupdf.open()
    page = doc.new_page(width=width, height=height)
    page.draw_rect(page.rect, color=None, fill=fill)
    page.insert_text((12, 26), "Women in leadership", fontsize=13)
    page.insert_text((12, 48), "2023", fontsize=11)
    page.insert_text((width - 60, 40), "39%", fontsize=20)
    return page.get_pixmap(matrix=pymupdf.Matrix(2, 2)).tobytes("png")


def test_a_wide_strip_is_padded_with_its_own_background_to_the_detectors_aspect():
    png = _strip(fill=(0.85, 0.92, 1.0))
    im = Image.open(io.BytesIO(ocr._padded(png))).convert("RGB")
    assert im.size == (1000, round(1000 / ocr.ASPECT))
    assert im.getpixel((500, im.size[1] - 1)) == im.getpixel((2, 2)) != (255, 255, 255)
    assert im.crop((0, 0, 1000, 120)).tobytes() == Image.open(io.BytesIO(png)).convert("RGB").tobytes()


def test_an_image_of_ordinary_shape_goes_to_the_engine_as_it_came():
    square = _strip(width=300, height=200)
    assert ocr._padded(square) is square
    assert ocr._padded(b"not an image") == b"not an image"


def test_a_padded_strip_reads_the_same_words_in_the_same_places():
    lines = ocr.ocr_image(_strip())
    text = " ".join(l.text for l in lines)
    assert "Women in leadership" in text and "39%" in text and "2023" in text
    assert all(0 <= l.box[1] < l.box[3] <= 120 and 0 <= l.box[0] < l.box[2] <= 1000 for l in lines)
    value = next(l for l in lines if "39%" in l.text)
    assert value.box[0] > 800
