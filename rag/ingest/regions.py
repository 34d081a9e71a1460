"""Where a page's vector figures are: its drawings grouped into regions, one region a figure.

Drawings are first grouped tightly (shapes that touch or nearly touch), then groups close to each other are joined,
the way a reader sees one figure in a bar chart's bars, axis and legend keys. Three things keep figures apart:
- **panels and frames**: a filled or stroked rectangle drawn behind other drawings (a coloured panel, a box around
  a text) is a background, not a part: it is left out of the grouping, so that two charts on one panel stay two;
- **prose**: a region never takes in a line of running text; groups are not joined across one;
- **two charts**: two groups that are each a chart by themselves (rag/ingest/drawn.py) are joined only when they
  nearly touch, as the halves of one chart do, or when they are bars of one chart drawn apart (two 100% bars one
  under the other, bars on one baseline).

Bars set wide apart (thin bars of a waterfall, a few wide columns) are further apart than groups are joined: a row
of three or more single bars of one width at a regular spacing, of different heights, is one chart's series and
becomes one group."""

from __future__ import annotations

import numpy as np
import pymupdf

from rag.ingest.drawn import chart_of, family
from rag.ingest.pdf import Drawing

__all__ = ["vector_groups"]

TIGHT = 6.0  # shapes this close are one group
JOIN_X, JOIN_Y = 20.0, 10.0  # groups this close (across, down) are one figure
CHARTS_JOIN = 6.0  # two charts this close are one (the halves of one chart)


def _backgrounds(drawings: list[Drawing]) -> set[int]:
    """Rectangles (filled or stroked) that hold three or more other drawings: panels, frames, cards."""
    rects = [(i, d) for i, d in enumerate(drawings)
             if len(d["items"]) == 1 and d["items"][0][0] in ("re", "qu") and d["rect"].get_area() > 2000]
    out = set()
    for i, d in rects:
        r = d["rect"] + (-1, -1, 1, 1)
        inside = sum(1 for j, o in enumerate(drawings) if j != i and r.contains(o["rect"])
                     and o["rect"].get_area() < 0.8 * d["rect"].get_area())
        if inside >= 3:
            out.add(i)
    return out


def _gap(a: pymupdf.Rect, b: pymupdf.Rect) -> tuple[float, float]:
    return max(a.x0 - b.x1, b.x0 - a.x1, 0.0), max(a.y0 - b.y1, b.y0 - a.y1, 0.0)


def _holds(r: pymupdf.Rect, prose: list[pymupdf.Rect]) -> bool:
    return any(r.contains((p.tl + p.br) * 0.5) for p in prose)


class _Group:
    def __init__(self, rect: pymupdf.Rect, members: list[int]):
        self.rect, self.members = pymupdf.Rect(rect), members
        self.chart: tuple[bool, str | None] | None = None
        self.bar: tuple[pymupdf.Rect | None] | None = None

    def bar_of(self, drawings: list[Drawing]) -> pymupdf.Rect | None:
        if self.bar is None:
            self.bar = (_bar_of(self, drawings),)
        return self.bar[0]

    def is_chart(self, drawings: list[Drawing]) -> bool:
        return self.verdict(drawings)[0]

    def verdict(self, drawings: list[Drawing]) -> tuple[bool, str | None]:
        if self.chart is None:
            self.chart = chart_of([drawings[i] for i in self.members], self.rect)
        return self.chart


def _rows_of_one_chart(a: _Group, b: _Group, drawings: list[Drawing]) -> bool:
    """Bars of one chart drawn apart: two bar groups of one type, one under the other from the same left edge
    (two 100% bars, the rows of a horizontal bar chart), or side by side on one baseline."""
    ta, tb = a.verdict(drawings)[1], b.verdict(drawings)[1]
    if ta != tb or family(ta) != "bar":
        return False
    ra, rb = a.rect, b.rect
    return abs(ra.x0 - rb.x0) < 2 or abs(ra.y1 - rb.y1) < 2


def _rows_apart(a: _Group, b: _Group, gy: float, drawings: list[Drawing]) -> bool:
    """Rows of one bar chart further apart than neighbours are joined: each a single row (one solid horizontal
    bar, at least three times as long as thick, alone in its group), one under the other, at most twice the
    thinner row apart."""
    if gy > 2 * min(a.rect.height, b.rect.height) or min(a.rect.x1, b.rect.x1) <= max(a.rect.x0, b.rect.x0):
        return False
    for g in (a, b):
        if g.rect.width < 3 * g.rect.height:
            return False
        bar = g.bar_of(drawings)
        if bar is None or bar.width < 3 * bar.height:
            return False
    return a.is_chart(drawings) and b.is_chart(drawings) and _rows_of_one_chart(a, b, drawings)


def _tight_groups(drawings: list[Drawing], keep: list[int]) -> list[_Group]:
    groups: list[_Group] = []
    for i in sorted(keep, key=lambda i: (drawings[i]["rect"].y0, drawings[i]["rect"].x0)):
        r = drawings[i]["rect"]
        hit = [g for g in groups if max(_gap(g.rect, r)) <= TIGHT]
        if not hit:
            groups.append(_Group(r, [i]))
            continue
        first = hit[0]
        first.rect |= r
        first.members.append(i)
        for g in hit[1:]:
            first.rect |= g.rect
            first.members += g.members
            groups.remove(g)
    return groups


def _joinable(a: _Group, b: _Group, drawings: list[Drawing], prose: list[pymupdf.Rect]) -> bool:
    gx, gy = _gap(a.rect, b.rect)
    if gx > JOIN_X:
        return False
    if gy > JOIN_Y:  # further apart than neighbours: only rows of one bar chart, one under the other
        return gx == 0 and _rows_apart(a, b, gy, drawings) and not _holds(a.rect | b.rect, prose)
    if _holds(a.rect | b.rect, prose):
        return False
    return max(gx, gy) <= CHARTS_JOIN or not (a.is_chart(drawings) and b.is_chart(drawings)) \
        or _rows_of_one_chart(a, b, drawings)


def _join_all(groups: list[_Group], drawings: list[Drawing], prose: list[pymupdf.Rect]) -> None:
    """Join the first joinable pair (in the groups' order, each group against every other), again and again until
    no pair is joinable."""
    apart: set[tuple[int, int, int, int]] = set()  # pairs found apart, as they were then (a group grows on a merge)
    while (pair := _first_joinable(groups, drawings, prose, apart)) is not None:
        _merge(*pair, groups)


def _first_joinable(groups: list[_Group], drawings: list[Drawing], prose: list[pymupdf.Rect],
                    apart: set[tuple[int, int, int, int]]) -> tuple[_Group, _Group] | None:
    """The first pair that _joinable joins. Pairs further apart than it ever joins (across more than JOIN_X; down
    more than JOIN_Y, unless rows of one bar chart: level across and at most twice the lower row's height apart)
    never are: the gaps of all pairs at once rule them out (a page of a thousand shapes has a million pairs), and
    the rest are tried in order."""
    if len(groups) < 2:
        return None
    r = np.array([(g.rect.x0, g.rect.y0, g.rect.x1, g.rect.y1) for g in groups])
    gx = np.maximum(np.maximum(r[:, None, 0] - r[None, :, 2], r[None, :, 0] - r[:, None, 2]), 0.0)
    gy = np.maximum(np.maximum(r[:, None, 1] - r[None, :, 3], r[None, :, 1] - r[:, None, 3]), 0.0)
    h = r[:, 3] - r[:, 1]
    near = (gx <= JOIN_X) & ((gy <= JOIN_Y) | ((gx == 0) & (gy <= 2 * np.minimum(h[:, None], h[None, :]))))
    np.fill_diagonal(near, False)
    for i, j in np.argwhere(near):  # row by row: a group against every other, in order
        a, b = groups[i], groups[j]
        key = (id(a), len(a.members), id(b), len(b.members))
        if key in apart:
            continue
        if _joinable(a, b, drawings, prose):
            return a, b
        apart.add(key)
    return None


def _merge(a: _Group, b: _Group, groups: list[_Group]) -> None:
    a.rect |= b.rect
    a.members += b.members
    a.chart = a.bar = None
    groups.remove(b)


def _bar_of(g: _Group, drawings: list[Drawing]) -> pymupdf.Rect | None:
    """The group's bar: its filled shapes (a bar, a rounded bar, a stack of segments), solid, and nothing else but
    thin lines (a waterfall's connectors, a tick, a bracket)."""
    members = [drawings[i] for i in g.members]
    filled = [d["rect"] for d in members if d.get("fill") is not None]
    if not filled:
        return None
    r = pymupdf.Rect(filled[0])
    for f in filled[1:]:
        r |= f
    outline = r + (-2, -2, 2, 2)
    if any(min(d["rect"].width, d["rect"].height) > 2 and not outline.contains(d["rect"])
           for d in members if d.get("fill") is None):
        return None
    solid = sum(f.get_area() for f in filled) >= 0.8 * r.get_area()
    return r if r.width >= 2 and r.height >= 2 and solid else None


def _regular(bars: list[pymupdf.Rect]) -> bool:
    """Three or more bars of one width (within 30%), centres at one spacing (within 25%) of at most eight widths,
    overlapping one band across, not all of one height and top (a table's shaded header cells are)."""
    return len(bars) >= 3 and _in_step(bars) and len({(round(b.y0), round(b.y1)) for b in bars}) >= 2


def _in_step(bars: list[pymupdf.Rect]) -> bool:
    """Bars (two or more, left to right) of one width at one spacing, in one band across."""
    width = sorted(b.width for b in bars)[len(bars) // 2]
    steps = [(b.x0 + b.x1 - a.x0 - a.x1) / 2 for a, b in zip(bars, bars[1:], strict=False)]
    band = pymupdf.Rect(bars[0])
    for b in bars[1:]:
        band |= b
    return (all(abs(b.width - width) <= 0.3 * width for b in bars) and min(steps) > width
            and max(steps) <= 1.25 * min(steps) and max(steps) <= 8 * width
            and band.height <= 3 * max(b.height for b in bars))


def _bar_series(groups: list[_Group], drawings: list[Drawing], prose: list[pymupdf.Rect]) -> None:
    """Single bars in a row at a regular spacing (too far apart to be joined as neighbours) become one group."""
    bars = sorted(((g, b) for g in groups if (b := g.bar_of(drawings)) is not None), key=lambda x: x[1].x0)
    used: set[int] = set()
    for i, (g, b) in enumerate(bars):
        if id(g) in used:
            continue
        run = [(g, b)]
        for h, c in bars[i + 1:]:
            if c.x0 - run[-1][1].x1 > 8 * max(b.width, c.width):
                break  # bars are in order across: every later one is further off
            if id(h) in used or c.y1 < b.y0 - 3 * b.height or c.y0 > b.y1 + 3 * b.height:
                continue
            if _in_step([r for _, r in run] + [c]):
                run.append((h, c))
        if len(run) < 3 or not _regular([r for _, r in run]):
            continue
        union = pymupdf.Rect(b)
        for _, r in run[1:]:
            union |= r
        if _holds(union, prose):
            continue
        for h, _ in run[1:]:
            _merge(g, h, groups)
            used.add(id(h))
        used.add(id(g))


def vector_groups(drawings: list[Drawing], prose: list[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """The regions of a page's drawings: tight groups joined while they are close, never across prose, never two
    charts apart; bars of one series set wide apart joined; panels and frames left out."""
    backgrounds = _backgrounds(drawings)
    keep = [i for i in range(len(drawings)) if i not in backgrounds]
    groups = _tight_groups(drawings, keep)
    _join_all(groups, drawings, prose)
    _bar_series(groups, drawings, prose)
    _join_all(groups, drawings, prose)
    return [g.rect for g in groups]
