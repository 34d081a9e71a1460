"""What a region's vector drawings draw: a chart (and which type) or not, read from the geometry alone.

- **pie / donut**: three or more filled, curved shapes of different colours around one centre. A pie's wedges meet at
  the centre; a donut's do not (a ring), or a disc of another colour covers the centre. A ring of thick arcs drawn as
  strokes is a donut too.
- **bar / stacked_bar / waterfall / range_bar**: filled rectangles. Bars stand on a common baseline (or start from a
  common left edge) with different lengths; stacked bars are columns of touching segments of different colours; a
  waterfall's bars float, each starting where the one before it ends; a range bar chart's (a timeline's, a Gantt
  chart's) float from a start to an end, one to a row, and may be drawn as runs of touching cells of one colour.
- **line / area / scatter**: long strokes across the plot, filled polygons under them, or many small marks.

Table rules and cell shading draw rectangles too, but of equal heights and without a baseline of varying bars."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pymupdf

from rag.ingest.pdf import Drawing

__all__ = ["FAMILY", "arrowheads", "chart_of", "family", "range_bars"]

# a chart type's family: what the classifier and the crop treat alike
FAMILY = {"pie": "pie", "donut": "pie", "bar": "bar", "stacked_bar": "bar", "waterfall": "bar", "range_bar": "bar",
          "line": "line", "area": "line", "scatter": "scatter"}


def family(chart_type: str | None) -> str | None:
    return FAMILY.get(chart_type or "", chart_type)


def fill_colour(d: dict) -> tuple | None:
    """A drawing's fill colour, rounded so that one colour drawn twice compares equal; None when unfilled."""
    c = d.get("fill")
    return tuple(round(v, 2) for v in c) if c is not None else None


def swatch(r: pymupdf.Rect) -> bool:
    """A legend's key by its size: a small square, disc or short bar (2-20 pt a side)."""
    return 2 <= r.width <= 20 and 2 <= r.height <= 20 and 0.4 <= r.width / r.height <= 2.5


def _points(d: dict) -> list[pymupdf.Point]:
    out: list[pymupdf.Point] = []
    for it in d["items"]:
        if it[0] in ("l", "c"):
            out += [p for p in it[1:] if isinstance(p, pymupdf.Point)]
        elif it[0] == "re":
            r = pymupdf.Rect(it[1])
            out += [r.tl, r.br, r.tr, r.bl]
        elif it[0] == "qu":
            q = it[1]
            out += [q.ul, q.ur, q.ll, q.lr]
    return out


def _round_groups(drawings: list[Drawing]) -> Iterator[tuple[list[Drawing], bool, pymupdf.Point, float]]:
    """(shapes, is a ring of stroked arcs, centre, radius) of each group of curved shapes of two or more colours
    around one centre: filled wedges or ring segments, or thick unfilled arcs."""
    shapes = [d for d in drawings if d.get("fill") is not None and any(it[0] == "c" for it in d.get("items", ()))]
    arcs = [d for d in drawings if d.get("fill") is None and any(it[0] == "c" for it in d.get("items", ()))
            and (d.get("width") or 0) >= 3]
    for group, ring in ((shapes, False), (arcs, True)):
        if len(group) < 2:
            continue
        colours = {fill_colour(d) if not ring else tuple(round(v, 2) for v in (d.get("color") or ())) for d in group}
        if len(colours) < 2:
            continue
        union = pymupdf.Rect(group[0]["rect"])
        for d in group[1:]:
            union |= d["rect"]
        if not 0.6 < union.width / max(1.0, union.height) < 1.7:
            continue
        centre = pymupdf.Point((union.x0 + union.x1) / 2, (union.y0 + union.y1) / 2)
        tol = 0.1 * max(union.width, union.height)
        near = [d for d in group if centre in d["rect"] + (-tol, -tol, tol, tol)]  # each shape reaches the centre
        if len(near) >= 0.6 * len(group):
            yield group, ring, centre, max(union.width, union.height) / 2


def ring_hole(drawings: list[Drawing]) -> tuple[pymupdf.Point, float] | None:
    """(centre, inner radius) of a donut's hole: its segments' centre, and how far their nearest point is from it
    (a ring of stroked arcs: the arcs' radius less their width, so the hole is not overstated; a pie with a disc
    painted over its centre: the disc's radius); None without a ring."""
    for group, ring, centre, radius in _round_groups(drawings):
        if ring:
            return centre, radius - max((d.get("width") or 0) for d in group)
        wedges = [d for d in group if not all(it[0] == "c" for it in d["items"])] or group
        closest = min((math.dist((p.x, p.y), (centre.x, centre.y)) for d in wedges for p in _points(d)),
                      default=0.0)
        if closest > 0.25 * radius:
            return centre, closest
        if (disc := _covered_centre(drawings, wedges, centre, radius)) is not None:
            return centre, disc
    return None


def _ring_or_pie(drawings: list[Drawing]) -> str | None:
    """'pie', 'donut' or None: filled curved shapes of three or more colours around one centre, or thick arcs."""
    for group, ring, centre, radius in _round_groups(drawings):
        colours = {fill_colour(d) for d in group}
        if ring:
            return "donut"
        wedges = [d for d in group if not all(it[0] == "c" for it in d["items"])] or group
        closest = min((math.dist((p.x, p.y), (centre.x, centre.y)) for d in wedges for p in _points(d)),
                      default=radius)
        if closest > 0.25 * radius or _covered_centre(drawings, wedges, centre, radius) is not None:
            return "donut"  # two colours make a ring (a share of a whole); a pie needs three
        if len(colours) >= 3:
            return "pie"
    return None


def _covered_centre(drawings: list[Drawing], wedges: list[Drawing], centre: pymupdf.Point, radius: float
                    ) -> float | None:
    """The radius of a disc of another colour drawn over the wedges' centre (a donut drawn as a pie with a hole
    painted on), else None."""
    last = max(i for i, d in enumerate(drawings) if any(d is w for w in wedges))
    colours = {fill_colour(w) for w in wedges}
    for d in drawings[last + 1:]:
        r = d["rect"]
        if d.get("fill") is None or fill_colour(d) in colours or not any(it[0] == "c" for it in d.get("items", ())):
            continue
        c = pymupdf.Point((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2)
        if math.dist((c.x, c.y), (centre.x, centre.y)) < 0.1 * radius and 0.25 * radius < r.width / 2 < 0.9 * radius:
            return r.width / 2
    return None


def _straight(it: tuple) -> bool:
    return it[0] == "l" and (abs(it[1].x - it[2].x) < 0.5 or abs(it[1].y - it[2].y) < 0.5)


def _rounded(d: dict) -> bool:
    """A column with rounded corners: straight edges across and down, at most eight small corner curves, at least
    twice as high as wide (a diagram's rounded boxes and pills are wide, and hold words)."""
    r = d["rect"]
    if r.height < 2 * r.width:
        return False
    corner = 0.5 * min(r.width, r.height)
    curves = [it for it in d["items"] if it[0] == "c"]
    small = all(abs(it[1].x - it[4].x) <= corner and abs(it[1].y - it[4].y) <= corner for it in curves)
    edges = [it for it in d["items"] if it[0] == "l"]
    return 1 <= len(curves) <= 8 and small and len(edges) >= 2 and all(_straight(it) for it in edges) and \
        len(curves) + len(edges) == len(d["items"])


def _filled_rects(drawings: list[Drawing], rect: pymupdf.Rect) -> list[tuple[pymupdf.Rect, tuple | None]]:
    """Filled rectangles narrower than the region: drawn as rectangles, or as closed paths of straight edges; a
    chart image's solid shapes (a rectangle and its fill, no path) as they are."""
    out = []
    for d in drawings:
        if d.get("fill") is None:
            continue
        colour = fill_colour(d)
        if "items" not in d:
            r = pymupdf.Rect(d["rect"])
            if 1.5 < r.width < 0.8 * rect.width and r.height > 1.5:
                out.append((r, colour))
            continue
        for it in d["items"]:
            if it[0] in ("re", "qu"):
                r = pymupdf.Rect(it[1]) if it[0] == "re" else it[1].rect
                if 1.5 < r.width < 0.8 * rect.width and r.height > 1.5:
                    out.append((r, colour))
        if d["items"] and (all(_straight(it) for it in d["items"]) or _rounded(d)):
            r = d["rect"]
            if 1.5 < r.width < 0.8 * rect.width and r.height > 1.5:
                out.append((pymupdf.Rect(r), colour))
    return out


def cell_grid(drawings: list[Drawing], rect: pymupdf.Rect) -> int:
    """The rows of a table drawn as shaded cells: bands of three or more cells of one height whose column edges
    repeat from band to band, in at most three fills. Bars do not repeat their edges (their lengths are the data),
    nor does a heatmap keep to three colours. 0 when the shapes form no such grid."""
    cells = {(round(r.x0), round(r.y0), round(r.x1), round(r.y1)): c for r, c in _filled_rects(drawings, rect)}
    bands: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for (x0, y0, x1, y1) in cells:
        bands.setdefault((y0, y1), []).append((x0, x1))
    edges = [tuple(sorted(v)) for v in bands.values() if len(v) >= 3]
    if not edges:
        return 0
    common = max(set(edges), key=edges.count)
    rows = edges.count(common)
    fills = {tuple(round(v, 2) for v in c) if c else None for c in cells.values()}
    return rows if rows >= 3 and len(fills) <= 3 else 0


def _varies(values: list[float]) -> bool:
    if len(values) < 3:
        return False
    m = sum(values) / len(values)
    return m > 0 and (sum((v - m) ** 2 for v in values) / len(values)) ** 0.5 / m > 0.05


def _bar_group(g: list[tuple[pymupdf.Rect, tuple | None]], vertical: bool) -> bool:
    """Bars on one baseline: three or more of different lengths, or two of one thickness, one clearly longer."""
    g = list({(round(r.x0, 1), round(r.y0, 1), round(r.x1, 1), round(r.y1, 1)): (r, c) for r, c in g}.values())
    lengths = [r.height if vertical else r.width for r, _ in g]
    thick = [r.width if vertical else r.height for r, _ in g]
    if max(lengths, default=0) < 1.5 * sorted(thick)[len(thick) // 2] if thick else True:
        return False  # marks and icons: no bar is much longer than bars are thick
    if len(g) >= 3:
        return _varies(lengths)
    return len(g) == 2 and abs(thick[0] - thick[1]) < 0.5 and max(lengths) >= 1.15 * min(lengths) \
        and max(lengths) >= 1.5 * max(thick)


def _stacks(bars: list[tuple[pymupdf.Rect, tuple | None]], vertical: bool) -> int:
    """How many columns (rows, for horizontal bars) are stacks: two or more touching segments of different
    colours sharing one span."""
    def span(r):
        return (round(r.x0), round(r.x1)) if vertical else (round(r.y0), round(r.y1))
    cols: dict[tuple[int, int], list] = {}
    for r, c in bars:
        cols.setdefault(span(r), []).append((r, c))
    n = 0
    for segs in cols.values():
        if len(segs) < 2 or len({c for _, c in segs}) < 2:
            continue
        segs.sort(key=lambda s: s[0].y0 if vertical else s[0].x0)
        touching = sum(1 for a, b in zip(segs, segs[1:], strict=False)
                       if abs((b[0].y0 - a[0].y1) if vertical else (b[0].x0 - a[0].x1)) < 1.5)
        n += touching >= len(segs) - 1
    return n


def _one_long_stack(bars: list[tuple[pymupdf.Rect, tuple | None]]) -> bool:
    """One bar of two or more touching segments of different colours, long and thin (a 100% bar), among the
    region's shapes (its legend's swatches too)."""
    for horizontal in (True, False):
        bands: dict[tuple[int, int], list] = {}
        for r, c in bars:
            bands.setdefault((round(r.y0), round(r.y1)) if horizontal else (round(r.x0), round(r.x1)), []).append((r, c))
        for segs in bands.values():
            if len(segs) < 2 or len({c for _, c in segs}) < 2:
                continue
            segs.sort(key=lambda s: s[0].x0 if horizontal else s[0].y0)
            # touching or overlapping (a segment drawn over an underlay of another colour)
            touching = all(((b[0].x0 - a[0].x1) if horizontal else (b[0].y0 - a[0].y1)) < 1.5
                           for a, b in zip(segs, segs[1:], strict=False))
            whole = pymupdf.Rect(segs[0][0])
            for r, _ in segs[1:]:
                whole |= r
            long_side, short_side = (whole.width, whole.height) if horizontal else (whole.height, whole.width)
            if touching and long_side >= 4 * short_side:
                return True
    return False


def _waterfall(bars: list[tuple[pymupdf.Rect, tuple | None]]) -> bool:
    """Four or more bars of one width side by side, most of them starting at the level where the previous ends."""
    ordered = sorted((r for r, _ in bars), key=lambda r: r.x0)
    if len(ordered) < 4 or len({round(r.width) for r in ordered}) > 2:
        return False
    chained = sum(1 for a, b in zip(ordered, ordered[1:], strict=False)
                  if min(abs(b.y1 - a.y0), abs(b.y0 - a.y1), abs(b.y1 - a.y1), abs(b.y0 - a.y0)) < 1.0
                  and not (abs(b.y1 - a.y1) < 1.0))
    bottoms = {round(r.y1) for r in ordered}
    return chained >= 0.6 * (len(ordered) - 1) and len(bottoms) >= 0.5 * len(ordered)


def _bars(drawings: list[Drawing], rect: pymupdf.Rect) -> str | None:
    bars = _filled_rects(drawings, rect)
    by_bottom: dict[int, list] = {}
    by_left: dict[int, list] = {}
    for r, c in bars:
        by_bottom.setdefault(round(r.y1 / 3), []).append((r, c))
        by_left.setdefault(round(r.x0 / 3), []).append((r, c))
    vertical = [g for g in by_bottom.values() if _bar_group(g, True)]
    horizontal = [g for g in by_left.values() if _bar_group(g, False)]
    if _stacks(bars, True) >= 2 or _stacks(bars, False) >= 2 or _one_long_stack(bars):
        # stacks of segments: the bottom segments share a baseline (or left edge), the rest float
        return "stacked_bar"
    if _waterfall(bars):  # before plain bars: two floating bars of a waterfall may end on one level
        return "waterfall"
    if vertical or horizontal:
        return "bar"
    if _ranges(bars):
        return "range_bar"
    return None


def _runs(bars: list[tuple[pymupdf.Rect, tuple | None]]) -> list[pymupdf.Rect]:
    """Horizontal runs: touching rectangles of one colour on one band joined into one shape (a bar drawn as a row
    of shaded cells)."""
    bands: dict[tuple, list[pymupdf.Rect]] = {}
    for r, c in bars:
        bands.setdefault((round(r.y0), round(r.y1), c), []).append(r)
    runs = []
    for cells in bands.values():
        cells.sort(key=lambda r: r.x0)
        run = pymupdf.Rect(cells[0])
        for r in cells[1:]:
            if r.x0 - run.x1 < 1.5:
                run |= r
            else:
                runs.append(run)
                run = pymupdf.Rect(r)
        runs.append(run)
    return runs


def _ranges(bars: list[tuple[pymupdf.Rect, tuple | None]]) -> list[pymupdf.Rect]:
    """Range bars (a timeline, a Gantt chart): three or more horizontal bars of one thickness, one to a row, each
    much longer than thick, that start at two or more places and end at two or more. A table's shaded rows all
    span its width; a legend's swatches are not longer than thick. [] when the shapes are no such bars."""
    runs = [r for r in _runs(bars) if r.width >= 3 * r.height]
    if len(runs) < 3 or len({(round(r.y0), round(r.y1)) for r in runs}) < len(runs):
        return []
    thick = sorted(r.height for r in runs)
    if thick[-1] > 1.3 * thick[0]:
        return []
    if len({round(r.x0 / 3) for r in runs}) < 2 or len({round(r.x1 / 3) for r in runs}) < 2:
        return []
    return sorted(runs, key=lambda r: r.y0)


def arrowheads(drawings: list[Drawing]) -> int:
    """How many arrowheads are drawn: small filled triangles (three corners, 10 pt a side at most), the ends of a
    diagram's connectors. A table's cells and a chart's bars and wedges are no such shapes."""
    return sum(1 for d in drawings if d.get("fill") is not None and 3 <= len(d["items"]) <= 4
               and all(it[0] == "l" for it in d["items"]) and d["rect"].width <= 10 and d["rect"].height <= 10
               and len({(round(it[1].x, 1), round(it[1].y, 1)) for it in d["items"]}) == 3)


def range_bars(drawings: list[Drawing], rect: pymupdf.Rect) -> list[pymupdf.Rect]:
    """The bars of a range bar chart drawn in `rect` (top to bottom), or [] when its shapes draw none."""
    return _ranges(_filled_rects(drawings, rect))


def _area_shape(d: dict) -> bool:
    """A filled polygon over a baseline: slanted edges on top, and one straight horizontal edge along its whole
    bottom (an area chart's series filled down to the axis, or stacked on the one below)."""
    r = d["rect"]
    slanted = sum(1 for it in d["items"] if it[0] == "l" and abs(it[1].x - it[2].x) > 1 and abs(it[1].y - it[2].y) > 1)
    base = any(it[0] == "l" and abs(it[1].y - it[2].y) < 0.5 and abs(it[1].x - it[2].x) > 0.9 * r.width
               and abs(max(it[1].y, it[2].y) - r.y1) < 1 for it in d["items"])
    return slanted >= 3 and base


def _strokes(drawings: list[Drawing], rect: pymupdf.Rect) -> str | None:
    """Lines, areas or marks: long polylines, filled polygons across the plot, or many small marks."""
    small = long = area = 0
    for d in drawings:
        r = d["rect"]
        lines = sum(1 for it in d["items"] if it[0] in ("l", "c"))
        if r.width < 0.04 * rect.width and r.height < 0.04 * rect.height:
            small += 1
        elif d.get("fill") is None and r.width > 0.25 * rect.width and len(d["items"]) >= 3:
            long += 1
        elif d.get("fill") is not None and r.width > 0.25 * rect.width and lines >= 6 and _area_shape(d):
            area += 1
    if small >= 12 and small > 4 * (long + area):
        return "scatter"
    if area and area >= long / 2:
        return "area"
    return "line" if long else None


def chart_of(drawings: list[Drawing], rect: pymupdf.Rect) -> tuple[bool, str | None]:
    """(a chart?, its type) from a region's drawings: curves, slanted lines, wedges, or bars."""
    curves = diag = 0
    fills: set = set()
    for d in drawings:
        if d.get("fill") is not None:
            fills.add(fill_colour(d))
        for item in d["items"]:
            if item[0] == "c":
                curves += 1
            elif item[0] == "l":
                p, q = item[1], item[2]
                if abs(p.x - q.x) > 1 and abs(p.y - q.y) > 1:
                    diag += 1
    round_type = _ring_or_pie(drawings) if curves >= 4 else None
    if round_type:
        return True, round_type
    bar = _bars(drawings, rect)
    if bar:
        return True, bar
    if diag >= 6 or (curves >= 8 and len(fills) >= 2) or any(_series(d) for d in drawings):
        return True, _strokes(drawings, rect)
    return False, None


def _series(d: dict) -> bool:
    """A line series: one stroked path of four or more slanted segments going on from left to right."""
    segs = [it for it in d["items"] if it[0] == "l"]
    if d.get("fill") is not None or len(segs) < 4 or len(segs) < len(d["items"]):
        return False
    forward = all(it[2].x > it[1].x + 0.5 for it in segs) or all(it[2].x < it[1].x - 0.5 for it in segs)
    slanted = sum(1 for it in segs if abs(it[1].y - it[2].y) > 1)
    return forward and slanted >= 3
