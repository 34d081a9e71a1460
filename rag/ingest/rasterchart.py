"""A chart's type from its pixels, for charts that are images (a stock-performance graph pasted into a 10-K, a pie
exported from a spreadsheet, a plot in a paper): the shapes the coloured ink makes, not the words around it.

- pie / donut: the coloured ink makes one round shape of two or more colours; a ring when its centre is empty;
- bar / stacked bar: solid rectangles of one colour standing on a common baseline (or starting at a common left
  edge); stacked when rectangles of different colours sit on each other or run end to end in a row; two bars
  alone (a year against the year before) are a bar chart too;
- line: a thin trace of one colour that runs across most of the plot and moves up and down (a grid line does not);
- scatter: many small marks of similar size.

OpenCV (opencv-python-headless, which rapidocr needs anyway) does the image work: colour conversion, connected
components and contours. Every measure is relative to the image, so the rules hold at any resolution."""

from __future__ import annotations

import cv2
import numpy as np
import pymupdf

from rag.ingest.drawn import range_bars

__all__ = ["raster_chart_type", "round_chart_type", "solid_shapes"]

_MAX_SIDE = 480


def _scaled(png: bytes) -> tuple[np.ndarray, float] | None:
    """The image at most _MAX_SIDE a side, and the factor back to its own pixels."""
    arr = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if arr is None or min(arr.shape[:2]) < 24:
        return None
    scale = _MAX_SIDE / max(arr.shape[:2])
    if scale >= 1:
        return arr, 1.0
    return cv2.resize(arr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), 1 / scale


def _image(png: bytes) -> np.ndarray | None:
    scaled = _scaled(png)
    return scaled[0] if scaled else None


def _colour_masks(img: np.ndarray) -> list[np.ndarray]:
    """One mask per colour (8 levels a channel) that holds at least 0.3% of the image, the ten largest: the ink of
    bars, wedges and series, greys included (a chart's second colour is often grey), but not the white ground or
    black text."""
    light, dark = img.min(axis=2) > 225, img.max(axis=2) < 70
    q = (img.astype(np.int32) >> 5)
    code = q[:, :, 0] * 64 + q[:, :, 1] * 8 + q[:, :, 2]
    code[light | dark] = -1
    values, counts = np.unique(code[code >= 0], return_counts=True)
    least = 0.003 * code.size
    # the ten largest colours: a chart has few; a picture's shades would only cost time
    top = [v for v, c in sorted(zip(values, counts, strict=True), key=lambda vc: -vc[1])[:10] if c >= least]
    return [code == v for v in top]


def _round(masks: list[np.ndarray], shape: tuple[int, ...]) -> str | None:
    """pie or donut: the coloured ink (thin strokes such as leader lines taken off) fills a circle all round its
    rim, the circle covers at least 4% of the image, and two colours or more lie in it; a donut when the middle of
    the circle holds no ink."""
    if len(masks) < 2:
        return None
    union = np.zeros(shape[:2], np.uint8)
    for m in masks:
        union[m] = 255
    union = cv2.morphologyEx(union, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    union = cv2.morphologyEx(union, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))  # white gaps between wedges
    contours, _ = cv2.findContours(union, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:2]:
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)
        (cx, cy), r = cv2.minEnclosingCircle(hull)
        if area < 0.04 * union.size or area < 0.8 * np.pi * r * r:  # round: its hull fills its enclosing circle
            continue
        ys, xs = np.nonzero(union)
        dist, angle = np.hypot(xs - cx, ys - cy), np.arctan2(ys - cy, xs - cx)
        rim = (dist >= 0.7 * r) & (dist <= 1.02 * r)
        if len(np.unique((angle[rim] + np.pi) * 36 // (2 * np.pi + 1e-9))) < 32:  # ink all round the rim
            continue
        disc = np.zeros_like(union)
        cv2.circle(disc, (int(cx), int(cy)), int(r), 255, -1)
        if sum(bool((m & (disc > 0)).sum() > 0.01 * area) for m in masks) < 2:
            continue
        middle = dist < 0.35 * r
        return "donut" if middle.sum() < 0.2 * np.pi * (0.35 * r) ** 2 else "pie"
    return None


def _rectangles(mask: np.ndarray, least: int = 6) -> list[tuple[int, int, int, int]]:
    """The solid rectangles of a mask, at least 3 pixels thick and `least` long."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=4)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if min(w, h) >= 3 and max(w, h) >= least and area >= 0.9 * w * h:
            out.append((x, y, w, h))
    return out


def _bars(masks: list[np.ndarray]) -> str | None:
    """bar or stacked bar: at least three solid bars (longer than thick) standing on one baseline (bottoms within 2%
    of the image height) or starting at one left edge, or two alone of one thickness; stacked when a rectangle of
    another colour sits right on one, or segments run end to end in a row."""
    rects = [(r, i) for i, m in enumerate(masks) for r in _rectangles(m)]
    if len(rects) < 2:
        return None
    height, width = masks[0].shape
    # a bar is longer than it is thick (a legend's swatches and a matrix's squares are not bars)
    bars = [r for r, _ in rects if max(r[2], r[3]) >= 1.5 * min(r[2], r[3])]
    if _abutting(rects, height, width):
        return "stacked_bar"
    big = [r for r in bars if max(r[2], r[3]) >= min(height, width) / 6]
    if len(big) == 2 and _pair(big[0], big[1], height, width):
        return "bar"
    if len(bars) < 3:
        return None
    bottoms = sorted(y + h for x, y, w, h in bars)
    lefts = sorted(x for x, y, w, h in bars)
    tol_y, tol_x = max(2, 0.02 * height), max(2, 0.02 * width)
    on_base = max(sum(1 for b in bottoms if abs(b - b0) <= tol_y) for b0 in bottoms)
    on_left = max(sum(1 for v in lefts if abs(v - v0) <= tol_x) for v0 in lefts)
    if max(on_base, on_left) < 3:
        return None
    for (x, y, w, h), i in rects:
        for (x2, y2, w2, h2), j in rects:
            if i != j and abs(x - x2) <= max(2, 0.15 * w) and abs(w - w2) <= max(2, 0.15 * w) \
                    and abs(y + h - y2) <= max(2, 0.02 * height):
                return "stacked_bar"
    return "bar"


def _abutting(rects: list[tuple[tuple[int, int, int, int], int]], height: int, width: int) -> bool:
    """A bar laid flat in segments: two rectangles of different colours, one thickness, set end to end in a row,
    together at least a third of the image wide and three times as long as thick (a 100% bar, or one bar of a
    horizontal stacked bar chart)."""
    for (x, y, w, h), i in rects:
        for (x2, y2, w2, h2), j in rects:
            if i != j and abs(x + w - x2) <= max(2, 0.01 * width) and abs(y - y2) <= 2 and abs(h - h2) <= 2 \
                    and x2 + w2 - x >= max(width / 3, 3 * h):
                return True
    return False


def _pair(a: tuple[int, int, int, int], b: tuple[int, int, int, int], height: int, width: int) -> bool:
    """Two bars alone (a year against the year before): one thickness, one baseline or left edge, different
    lengths, and each at least a sixth of the image long (a legend's swatches are not)."""
    (ax, ay, aw, ah), (bx, by, bw, bh) = a, b
    upright = ah > aw and bh > bw
    thick, other = (aw, bw) if upright else (ah, bh)
    long, long2 = (ah, bh) if upright else (aw, bw)
    base = abs((ay + ah) - (by + bh)) <= max(2, 0.02 * height) if upright else abs(ax - bx) <= max(2, 0.02 * width)
    span = height if upright else width
    return bool(abs(thick - other) <= max(2, 0.15 * thick) and base and abs(long - long2) >= 0.05 * max(long, long2)
                and min(long, long2) >= span / 6)


def _mark(stat, area: int) -> bool:
    """A solid mark of a scatter plot: 9 px up to 0.5% of the image, about as wide as high, at least half filled."""
    w, h, px = stat[2], stat[3], stat[4]
    return 9 <= px <= 0.005 * area and 0.5 <= w / max(1, h) <= 2 and px >= 0.5 * w * h


def _trace(mask: np.ndarray) -> bool:
    """A thin trace across the plot that moves: one stroke with ink in at least 40% of the columns, at most 6% of
    the height a column, and its height along the columns varies by more than 3% of the image (a grid line's does
    not)."""
    height, width = mask.shape
    cols = np.flatnonzero(mask.any(axis=0))
    if len(cols) < 0.4 * width:
        return False
    sub = mask[:, cols]
    per_col = sub.sum(axis=0)
    if np.median(per_col) > 0.06 * height:
        return False
    # one stroke, not a cloud of marks: its largest piece (gaps of a pixel bridged) spans 30% of the width
    n, _, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(mask.astype(np.uint8), np.ones((3, 3), np.uint8)))
    if n < 2 or stats[1:, 2].max() < 0.3 * width:
        return False
    ys = np.arange(height)[:, None]
    centre = (sub * ys).sum(axis=0) / np.maximum(1, per_col)
    return float(np.std(centre)) > 0.03 * height


def _marks(img: np.ndarray, masks: list[np.ndarray]) -> bool:
    """Many small marks: at least 15 solid, compact blobs of a colour (not grey: the grey rim of letters is not a
    mark), each under 0.5% of the image."""
    small = 0
    for m in masks:
        rgb = img[m].astype(np.int32)
        if len(rgb) == 0 or np.median(rgb.max(axis=1) - rgb.min(axis=1)) < 24:
            continue
        n, _, stats, _ = cv2.connectedComponentsWithStats(m.astype(np.uint8), connectivity=8)
        small += sum(1 for i in range(1, n) if _mark(stats[i], m.size))
    return small >= 15


def _dark_trace(img: np.ndarray) -> bool:
    """A black or grey series line (stock graphs draw the company in black): the dark ink less its text and grid
    lines, still a trace."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    dark = grey < 110
    # text is short runs; a series is one long connected stroke
    n, labels, stats, _ = cv2.connectedComponentsWithStats(dark.astype(np.uint8), connectivity=8)
    long = [i for i in range(1, n) if stats[i][2] >= 0.4 * img.shape[1] and stats[i][3] >= 0.05 * img.shape[0]]
    return any(_trace(labels == i) for i in long)


def _range_rows(masks: list[np.ndarray]) -> bool:
    """A timeline's bars: the solid rectangles of the image, of each colour, make range bars (drawn.py: three or more
    horizontal bars of one thickness, one to a row, starting and ending at two or more places), not each touching an
    axis that two other bars laid flat touch too (the bars of a diverging bar chart, of one panel or several, all
    do: each starts or ends at its panel's zero)."""
    shapes = [(pymupdf.Rect(x, y, x + w, y + h), i) for i, m in enumerate(masks) for x, y, w, h in _rectangles(m)]
    height, width = masks[0].shape[:2] if masks else (0, 0)
    bars = range_bars([{"rect": r, "fill": (float(i), 0.0, 0.0)} for r, i in shapes], pymupdf.Rect(0, 0, width, height))
    tol = max(2.0, 0.01 * width)

    flat = [r for r, _ in shapes if r.width > r.height]  # every bar laid flat, short ones too

    def on_axis(x: float) -> bool:
        return sum(1 for o in flat if min(abs(o.x0 - x), abs(o.x1 - x)) <= tol) >= 3
    return bool(bars) and not all(on_axis(b.x0) or on_axis(b.x1) for b in bars)


def raster_chart_type(png: bytes) -> tuple[str | None, str]:
    """(chart type or None, why) of a chart image, from the shapes of its ink."""
    try:
        img = _image(png)
        if img is None:
            return None, ""
        masks = _colour_masks(img)
        kind = _round(masks, img.shape)
        if kind:
            return kind, "a round shape of several colours in the image"
        if _range_rows(masks):
            return "range_bar", "bars from a start to an end, one to a row, in the image"
        kind = _bars(masks)
        if kind:
            return kind, "solid bars on a common baseline in the image"
        if any(_trace(m) for m in masks) or _dark_trace(img):
            return "line", "a series traced across the image"
        if _marks(img, masks):
            return "scatter", "many small marks in the image"
    except cv2.error:
        return None, ""
    return None, ""


def solid_shapes(png: bytes) -> list[tuple[float, float, float, float, tuple[float, float, float]]]:
    """The solid rectangles of a chart image (bars, segments, a legend's swatches) as (x0, y0, x1, y1, colour) in
    the image's pixels, the colour as RGB in 0..1, one colour for all the shapes of one ink: what a legend's
    swatch and the bar it names share."""
    try:
        scaled = _scaled(png)  # decoded once
        if scaled is None:
            return []
        img, k = scaled
        out = []
        for m in _colour_masks(img):
            b, g, r = (float(v) / 255 for v in np.median(img[m], axis=0))
            out += [(x * k, y * k, (x + w) * k, (y + h) * k, (round(r, 2), round(g, 2), round(b, 2)))
                    for x, y, w, h in _rectangles(m, least=3)]  # a legend's swatch, made small by the scaling
        return out
    except cv2.error:
        return []


def round_chart_type(png: bytes) -> str | None:
    """pie, donut or None: the one shape the vector drawings may hide (a ring drawn as many curved pieces)."""
    try:
        img = _image(png)
        return _round(_colour_masks(img), img.shape) if img is not None else None
    except cv2.error:
        return None
