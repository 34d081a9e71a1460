"""Where a page's vector figures are: its drawings grouped into regions, one region a figure.

Drawings are first grouped tightly (shapes that touch or nearly touch), then groups close to each other are joined,
the way a reader sees one figure in a bar chart's bars, axis and legend keys. Three things keep figures apart:
- **panels and frames**: a filled or stroked rectangle drawn behind other drawings (a coloured panel, a box around
  a text) is a background, not a part: it is left out of the grouping, so that two charts on one panel stay two;
- **prose**: a region never takes in a line of running text; groups are not joined across one;
- **two charts**: two groups that are each a chart by themselves (rag/ingest/drawn.py) are joined only when they
  nearly touch, as the halves of one chart do, or when they are bars of one chart drawn apart (two 100% bars one
  under the other, bars on one baseline)."""

from __future__ import annotations

import pymupdf

from rag.ingest.drawn import chart_of, family

__all__ = ["vector_groups"]

TIGHT = 6.0  # shapes this close are one group
JOIN_X, JOIN_Y = 20.0, 10.0  # groups this close (across, down) are one figure
CHARTS_JOIN = 6.0  # two charts this close are one (the halves of one chart)


def _backgrounds(drawings: list[dict]) -> set[int]:
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

    def is_chart(self, drawings: list[dict]) -> bool:
        return self.verdict(drawings)[0]

    def verdict(self, drawings: list[dict]) -> tuple[bool, str | None]:
        if self.chart is None:
            self.chart = chart_of([drawings[i] for i in self.members], self.rect)
        return self.chart


def _rows_of_one_chart(a: _Group, b: _Group, drawings: list[dict]) -> bool:
    """Bars of one chart drawn apart: two bar groups of one type, one under the other with the same left and right
    ends (two 100% bars), or side by side on one baseline."""
    ta, tb = a.verdict(drawings)[1], b.verdict(drawings)[1]
    if ta != tb or family(ta) != "bar":
        return False
    ra, rb = a.rect, b.rect
    return (abs(ra.x0 - rb.x0) < 2 and abs(ra.x1 - rb.x1) < 2) or abs(ra.y1 - rb.y1) < 2


def _tight_groups(drawings: list[dict], keep: list[int]) -> list[_Group]:
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


def _joinable(a: _Group, b: _Group, drawings: list[dict], prose: list[pymupdf.Rect]) -> bool:
    gx, gy = _gap(a.rect, b.rect)
    if gx > JOIN_X or gy > JOIN_Y or _holds(a.rect | b.rect, prose):
        return False
    return max(gx, gy) <= CHARTS_JOIN or not (a.is_chart(drawings) and b.is_chart(drawings)) \
        or _rows_of_one_chart(a, b, drawings)


def vector_groups(drawings: list[dict], prose: list[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """The regions of a page's drawings: tight groups joined while they are close, never across prose, never two
    charts apart; panels and frames left out."""
    backgrounds = _backgrounds(drawings)
    keep = [i for i in range(len(drawings)) if i not in backgrounds]
    groups = _tight_groups(drawings, keep)
    # a group that holds prose is a text's frame or decoration: it joins nothing
    changed = True
    while changed:
        changed = False
        for a in groups:
            for b in groups:
                if a is b or not _joinable(a, b, drawings, prose):
                    continue
                a.rect |= b.rect
                a.members += b.members
                a.chart = None
                groups.remove(b)
                changed = True
                break
            if changed:
                break
    return [g.rect for g in groups]
