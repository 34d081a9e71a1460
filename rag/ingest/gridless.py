"""Tables whose rows the layout could not keep whole. A results table set in two column blocks, or with cells too
close for a gap, comes out of the layout as a block of labels and, below it, rows of values without a label
("- | 0.2535 | 0.2342"). On such a page PyMuPDF's `find_tables` finds the grid from the words' alignment (and any
ruling lines); each cell's text is read again from the page's words inside the cell (PyMuPDF's own cell text loses
the spaces and decimal points of some fonts), and the table's rows replace the layout's rows in its region, in
reading order. Every other page keeps the layout's own cells.

Only a page with several label-less value rows is searched (find_tables takes about half a second a page), and
never one with more words than a table page has."""

from __future__ import annotations

import re

import pymupdf

from rag.ingest.layout import Row, is_numeric

__all__ = ["ORPHANS", "orphan_rows", "with_grid_tables"]

ORPHANS = 3  # label-less value rows that make a page worth searching
_MAX_WORDS = 4000  # a page with more words than this is not a table page: never searched
_YEARISH = re.compile(r"^\s*(19[5-9]\d|20[0-4]\d)\s*$")


def orphan_rows(rows: list[Row]) -> list[Row]:
    """Table rows without a label: every cell a value or a dash ("- | 0.2535 | 0.2342")."""
    return [r for r in rows if r.is_table and len(r.cells) >= 2 and all(is_numeric(c) for c in r.cells)
            and not all(_YEARISH.match(c) for c in r.cells)]


def _cell_text(words: list[tuple], bbox) -> str:
    if bbox is None:
        return ""
    x0, y0, x1, y1 = bbox
    got = [w for w in words if x0 - 1 <= (w[0] + w[2]) / 2 <= x1 + 1 and y0 - 1 <= (w[1] + w[3]) / 2 <= y1 + 1]
    got.sort(key=lambda w: (round((w[1] + w[3]) / 6), w[0]))  # by line, then left to right
    out, last = "", None
    for w in got:
        if last is not None and w[0] - last > 1.5:
            out += " "
        out += w[4]
        last = w[2]
    return " ".join(out.split())


def _tables(page: pymupdf.Page) -> list:
    found = []
    for strategy in ("lines", "text"):
        try:
            found = list(page.find_tables(strategy=strategy).tables)
        except Exception:  # a page find_tables cannot read keeps the layout's rows
            found = []
        if found:
            return found
    return found


def _inside(r: Row, bbox) -> bool:
    x0, y0, x1, y1 = bbox
    mid = (r.y0 + r.y1) / 2
    return y0 - 1 <= mid <= y1 + 1 and r.x0 < x1 and r.x1 > x0


def with_grid_tables(page: pymupdf.Page, rows: list[Row], page_no: int) -> list[Row]:
    """The page's rows, with each table the layout broke apart (ORPHANS or more label-less value rows inside it)
    replaced by the rows find_tables reads; the rows unchanged when there is none."""
    orphans = orphan_rows(rows)
    if len(orphans) < ORPHANS:
        return rows
    words = page.get_text("words")
    if len(words) > _MAX_WORDS:
        return rows
    out = list(rows)
    for t in _tables(page):
        if t.row_count < 3 or t.col_count < 2 or sum(_inside(r, t.bbox) for r in orphans) < 2:
            continue
        grid = [[_cell_text(words, bb) for bb in row.cells] for row in t.rows]
        boxes = [row.bbox for row in t.rows]
        used = [j for j in range(max(len(g) for g in grid)) if any(j < len(g) and g[j] for g in grid)]
        grid = [[g[j] if j < len(g) else "" for j in used] for g in grid]  # spacer columns dropped
        keep = [(cells, bb) for cells, bb in zip(grid, boxes, strict=True) if any(cells)]
        if not keep or any(sum(bool(c) for c in cells) < 2 for cells, _ in keep[1:]):
            continue  # a row that is one cell: not a grid of values
        heads = 0  # the header rows at the top: no value but a year in them
        while heads < len(keep) - 1 and all(not is_numeric(c) or _YEARISH.match(c) for c in keep[heads][0]):
            heads += 1
        for cells, _ in keep[: max(0, heads - 1)]:  # an upper header cell spans the columns to its right
            for j in range(2, len(cells)):
                cells[j] = cells[j] or cells[j - 1]
        replaced = [i for i, r in enumerate(out) if _inside(r, t.bbox)]
        if not replaced:
            continue
        size = sorted(out[i].size for i in replaced)[len(replaced) // 2]
        new = []
        for j, (cells, bb) in enumerate(keep):
            header = j < heads
            new.append(Row(" | ".join(cells), page_no, bb[1], bb[3], bb[0], size, False, cells,
                           is_table=not header, is_header_row=header, x1=bb[2]))
        at = replaced[0]
        out = out[:at] + new + [r for i, r in enumerate(out) if i > at and i not in set(replaced)]
    return out
