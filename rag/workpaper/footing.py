"""Footing checks: does a table add up as printed? Four checks, each over one column of one table (or, for the
balance sheet, its period across the document's balance-sheet tables):

- sum: the rows above a "Total …" row (those already summed by a subtotal taken as that subtotal) against it;
- balance: total assets against total liabilities and equity (or total liabilities + total equity);
- scope: Scope 1 + 2 (+ 3) against the row that prints their total;
- change: a printed change (% or amount) against the one recomputed from the two periods it compares.

A sum and a change are compared within the rounding of the values printed. A check that fails says why it most
likely failed: "as printed" when the gap is within the rounding of the printed values taken together (the filing's
own rounding), else "likely misread" with what explains the gap (a row counted twice or left out, a sign, a scale,
a row whose cells do not line up), or that nothing found does."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace

from rag.quantities import scale_name
from rag.records import DocumentMeta, Table, TableCell, TableRow
from rag.statements import statement_of_title
from rag.workpaper.history import decimals

_TOTAL = re.compile(r"^\s*(sub)?totals?\b|\btotal\s*$", re.I)
_LESS = re.compile(r"^\s*(less|minus|deduct)\b", re.I)
_SCOPE = re.compile(r"\bscopes?\s*(\d)(?:\s*(?:,|\+|and|&|/)\s*(\d))?(?:\s*(?:,|\+|and|&|/)\s*(\d))?", re.I)
_PART_OF = re.compile(r"\b(category|categories|upstream|downstream|of which|thereof|biogenic|outside of scopes)\b",
                      re.I)


@dataclass(frozen=True, slots=True)
class Part:
    """A cell a check reads: its row's label, the value as printed, and its page."""
    label: str
    raw: str
    page: int
    value: float  # in the table's unit (scale applied)


@dataclass
class Check:
    kind: str  # sum | balance | scope | change
    document_id: int | None
    file_name: str
    table_title: str
    column: str  # the column's header (its period)
    total: Part
    parts: list[Part]
    computed: float
    ok: bool
    verdict: str = "foots"  # foots | as printed | likely misread
    reason: str = ""
    pages: list[int] = field(default_factory=list)
    scale: float = 1.0  # the printed total's scale: `computed` and `gap` are in units, shown in this scale

    def shown(self, amount: float) -> str:
        """An amount in units as the table prints it: 35,000,000 in a table in millions → "35 million"."""
        name = scale_name(self.scale) if self.scale > 1 else ""
        return f"{amount / self.scale:,.6g}" + (f" {name}" if name else "")

    @property
    def gap(self) -> float:
        return self.total.value - self.computed

    def to_json(self) -> dict:
        return {"kind": self.kind, "document_id": self.document_id, "file_name": self.file_name,
                "table_title": self.table_title, "column": self.column, "printed": self.total.raw,
                "printed_label": self.total.label, "computed": self.computed, "gap": self.gap, "ok": self.ok,
                "scale": self.scale, "computed_shown": self.shown(self.computed),
                "verdict": self.verdict, "reason": self.reason, "pages": self.pages,
                "parts": [{"label": p.label, "raw": p.raw, "page": p.page} for p in self.parts]}


def _precision(cell: TableCell) -> float:
    return 10.0 ** -decimals(cell.raw) * cell.scale


def _part(row: TableRow, cell: TableCell) -> Part:
    return Part(row.label_path, cell.raw, row.page, cell.value * cell.scale)


def _cell_at(row: TableRow, col: int, ncols: int = 0) -> TableCell | None:
    """The row's cell under column `col`; with `ncols`, a row none of whose cells the reading lined up, but which
    has one cell for each of the table's `ncols` columns, has its col-th cell there."""
    found = next((c for c in row.cells if c.column == col), None)
    if found is None and ncols and len(row.cells) == ncols and all(c.column is None for c in row.cells):
        return row.cells[col]
    return found


def _units_fit(total: TableCell, cells: list[TableCell]) -> bool:
    return all(not c.unit or not total.unit or c.unit == total.unit for c in cells)


# -- sums --------------------------------------------------------------------------------------------------------------

def sum_checks(table: Table, doc: DocumentMeta | None = None) -> list[Check]:
    """Every total row of the table against the rows it sums, column by column."""
    out: list[Check] = []
    n = len(table.columns)
    for col in range(n):
        if table.columns[col].is_change:
            continue
        items: list[int] = []  # rows not yet summed by a total, a subtotal standing for its parts
        for i, row in enumerate(table.rows):
            if _TOTAL.search(row.label) and _cell_at(row, col, n) is not None:
                check, start = _sum_check(table, doc, col, items, i)
                if check is not None:
                    out.append(check)
                items = items[:start] + [i]
            elif _cell_at(row, col, n) is not None:
                items = _subtotal(table, col, items, i)
    return out


def _subtotal(table: Table, col: int, items: list[int], i: int) -> list[int]:
    """The items with row i added: when it is the sum of two or more items right above it ("Property, plant and
    equipment — net" under the gross amount and "Less: accumulated depreciation"), it stands for them."""
    n = len(table.columns)
    cell = _cell_at(table.rows[i], col, n)
    assert cell is not None
    run = _summing_run(table, [(j, _cell_at(table.rows[j], col, n)) for j in items], cell, nonzero=True)
    return items[:run[0]] + [i] if run else items + [i]


def _summing_run(table: Table, cells: list[tuple[int, TableCell | None]], target: TableCell,
                 nonzero: bool = False) -> tuple[int, float] | None:
    """Where the shortest run of two or more cells ending at the last one starts that sums to `target` ("Less: …"
    rows subtracted), and its sum; None when none does before a cell of another unit."""
    for start in range(len(cells) - 2, -1, -1):
        window = [(j, c) for j, c in cells[start:] if c is not None]
        if not _units_fit(target, [c for _, c in window]):
            break
        got = sum(_signed(table.rows[j], c) for j, c in window)
        tol = _tolerance(target, [c for _, c in window])
        if (got or not nonzero) and abs(got - target.value * target.scale) <= tol:
            return start, got
    return None


def _sum_check(table: Table, doc, col: int, items: list[int], i: int) -> tuple[Check | None, int]:
    """The total at row i against the items before it: the shortest run of two or more ending right above it that
    sums to it (a deduction, "Less: …", subtracted); when none does, the run of the total's own group."""
    total_row = table.rows[i]
    n = len(table.columns)
    total = _cell_at(total_row, col, n)
    assert total is not None
    if total.unit == "%" and abs(total.value - 100) > 0.5:
        return None, len(items)  # rates and changes in % never add up; shares of a whole total 100%
    cells = [(j, _cell_at(table.rows[j], col, n)) for j in items]
    last = cells[-1][1] if cells else None
    if last is not None and abs(last.value * last.scale - total.value * total.scale) <= _tolerance(total, [last]):
        return None, len(items) - 1  # "Total cash" under "Cash": the one row again, not a sum to check
    if len(cells) < 2:
        return None, max(0, len(items) - 1)
    run = _summing_run(table, cells, total)
    if run is not None:
        start, got = run
        return _check("sum", table, doc, col, total_row, total, [(table.rows[j], c) for j, c in cells[start:] if c],
                      got, True), start
    start = _group_start(table, items, i)
    window = cells[start:]
    if len(window) < 2 or not _units_fit(total, [c for _, c in window if c]):
        return None, start
    if not total_row.groups and sum(1 for c in table.columns if c.fiscal_year and not c.is_change) > 3:
        return None, start  # a five-year summary's lines are not parts of one another
    got = sum(_signed(table.rows[j], c) for j, c in window if c)
    check = _check("sum", table, doc, col, total_row, total, [(table.rows[j], c) for j, c in window if c], got, False)
    others = [_part(r, c) for r in table.rows if (c := _cell_at(r, col, n)) is not None and r is not total_row]
    _explain(check, [_precision(c) for _, c in window if c] + [_precision(total)], others, table, col)
    return check, start


def _signed(row: TableRow, cell: TableCell) -> float:
    v = cell.value * cell.scale
    return -abs(v) if _LESS.search(row.label) else v


def _tolerance(total: TableCell, cells: list[TableCell]) -> float:
    return 0.5 * (sum(_precision(c) for c in cells) + _precision(total)) * 1.0001


def _group_start(table: Table, items: list[int], i: int) -> int:
    """Where the total's own group starts among the items: the first of the run of items, ending right above it,
    printed under the same group labels."""
    groups = table.rows[i].groups
    start = len(items)
    while start > 0 and table.rows[items[start - 1]].groups[: len(groups)] == groups:
        start -= 1
    return start  # one row of its group: which rows it totals, the table does not show


def _check(kind: str, table: Table, doc, col: int, total_row: TableRow, total: TableCell,
           parts: list[tuple[TableRow, TableCell]], computed: float, ok: bool) -> Check:
    header = table.columns[col].header if col < len(table.columns) else ""
    rows = [total_row] + [r for r, _ in parts]
    return Check(kind, doc.document_id if doc else table.document_id, doc.file_name if doc else "",
                 table.title[:200], header, _part(total_row, total), [_part(r, c) for r, c in parts], computed, ok,
                 pages=sorted({r.page for r in rows}), scale=total.scale if total.unit != "%" else 1.0)


# -- why a check fails -------------------------------------------------------------------------------------------------

def _explain(check: Check, precisions: list[float], others: list[Part], table: Table, col: int) -> None:
    gap, tol = check.gap, 0.5 * max(precisions, default=1.0) * 1.0001
    near = sum(precisions)
    check.verdict = "likely misread"
    scales = {c.scale for r in table.rows for c in r.cells if c.column == col
              and any(p.label == r.label_path and p.raw == c.raw for p in [check.total, *check.parts])}
    if len(scales) > 1:
        check.reason = "its cells are read in different scales (some in units, some in thousands or millions)"
        return
    if abs(gap) <= near:
        check.verdict = "as printed"
        check.reason = f"off by {check.shown(gap)}: the rounding of {len(precisions)} printed values"
        return
    for p in check.parts:
        if abs(gap + 2 * p.value) <= tol * 2 or abs(gap - 2 * p.value) <= tol * 2:
            check.reason = f"the sign of '{p.label}' ({p.raw}) explains the gap: a deduction printed without one"
            return
    for p in check.parts:
        if abs(gap + p.value) <= tol * 2:
            check.reason = f"'{p.label}' ({p.raw}) explains the gap: it is not part of this total"
            return
    for p in others:
        if p not in check.parts and abs(gap - p.value) <= tol * 2:
            check.reason = f"'{p.label}' ({p.raw}, p. {p.page}) explains the gap: a row of the total left out"
            return
    if check.computed and any(abs(check.total.value / check.computed - r) < 0.01 * r for r in (1e3, 1e-3, 1e6, 1e-6)):
        check.reason = "the printed total and the sum differ by a power of a thousand: a scale misread"
        return
    labels = {p.label.split(" › ")[-1] for p in check.parts}
    if any(c.column is None for r in table.rows for c in r.cells if r.label in labels):
        check.reason = "a row of it has values that do not line up with the columns"
        return
    check.reason = f"off by {check.shown(gap)}, which no row, sign or scale explains"



# -- balance sheet -----------------------------------------------------------------------------------------------------

def _row_named(tables: list[Table], rx: re.Pattern) -> list[tuple[Table, TableRow]]:
    return [(t, r) for t in tables for r in t.rows if rx.search(r.label)]


_ASSETS = re.compile(r"^\s*total\s+assets\s*$", re.I)
_LIAB_EQ = re.compile(r"^\s*total\s+liabilities\b.*\b(equity|deficit|capital)\b", re.I)
_LIAB = re.compile(r"^\s*total\s+liabilities\s*$", re.I)
_EQUITY = re.compile(r"^\s*total\s+(?:\w+[’']?\s+){0,3}(equity|deficit)\s*$", re.I)


def balance_checks(tables: list[Table], doc: DocumentMeta | None = None) -> list[Check]:
    """Total assets = total liabilities and equity, per period, across a document's balance-sheet tables."""
    sheets = [t for t in tables if statement_of_title(t.title) == "balance sheet"]
    out: list[Check] = []
    for t_a, assets in _row_named(sheets, _ASSETS)[:1]:
        for cell in assets.cells:
            period = _period(t_a, cell)
            if period is None:
                continue
            side = _side(sheets, period)
            if side is None:
                continue
            parts, got = side
            check = _check("balance", t_a, doc, cell.column or 0, assets, cell, parts, got,
                           abs(got - cell.value * cell.scale) <= _tolerance(cell, [c for _, c in parts]))
            check.pages = sorted({assets.page} | {r.page for r, _ in parts})
            if not check.ok:
                _explain(check, [_precision(c) for _, c in parts] + [_precision(cell)], [], t_a, cell.column or 0)
            out.append(check)
    return out


def _period(t: Table, cell: TableCell) -> str | None:
    if cell.column is None or cell.column >= len(t.columns) or t.columns[cell.column].is_change:
        return None
    return t.columns[cell.column].period


def _side(sheets: list[Table], period: str) -> tuple[list[tuple[TableRow, TableCell]], float] | None:
    def at(found: list[tuple[Table, TableRow]]) -> tuple[TableRow, TableCell] | None:
        for t, r in found:
            for c in r.cells:
                if _period(t, c) == period:
                    return r, c
        return None

    both = at(_row_named(sheets, _LIAB_EQ))
    if both is not None:
        return [both], both[1].value * both[1].scale
    liab, eq = at(_row_named(sheets, _LIAB)), at(_row_named(sheets, _EQUITY))
    if liab is None or eq is None:
        return None
    return [liab, eq], (liab[1].value * liab[1].scale) + (eq[1].value * eq[1].scale)


# -- GHG scopes --------------------------------------------------------------------------------------------------------

def _scopes(label: str) -> frozenset[int]:
    found: set[int] = set()
    for m in _SCOPE.finditer(label):
        found |= {int(g) for g in m.groups() if g}
    return frozenset(found)


def scope_checks(table: Table, doc: DocumentMeta | None = None) -> list[Check]:
    """A row that prints the total of several scopes against the rows of each scope (any of a scope's variants,
    location- or market-based, that makes it add up)."""
    single: dict[int, list[TableRow]] = {}
    combined: list[tuple[TableRow, frozenset[int]]] = []
    for row in table.rows:
        s = _scopes(row.label_path)
        if len(s) == 1 and not _PART_OF.search(row.label):
            single.setdefault(next(iter(s)), []).append(row)
        elif len(s) > 1:
            combined.append((row, s))
    out = []
    for row, scopes in combined:
        if not all(k in single for k in scopes):
            continue
        for total in row.cells:
            if total.column is None or total.column >= len(table.columns) or table.columns[total.column].is_change:
                continue
            check = _scope_check(table, doc, row, total, [single[k] for k in sorted(scopes)])
            if check is not None:
                out.append(check)
    return out


def _scope_check(table: Table, doc, row: TableRow, total: TableCell, options: list[list[TableRow]]) -> Check | None:
    col = total.column
    assert col is not None
    first = None
    for combo in itertools.product(*options):
        cells = [(r, _cell_at(r, col)) for r in combo]
        if any(c is None for _, c in cells):
            continue
        parts = [(r, c) for r, c in cells if c is not None]
        got = sum(c.value * c.scale for _, c in parts)
        if abs(got - total.value * total.scale) <= _tolerance(total, [c for _, c in parts]):
            return _check("scope", table, doc, col, row, total, parts, got, True)
        first = first or (parts, got)
    if first is None:
        return None
    check = _check("scope", table, doc, col, row, total, first[0], first[1], False)
    _explain(check, [_precision(c) for _, c in first[0]] + [_precision(total)], [], table, col)
    return check


# -- printed changes ---------------------------------------------------------------------------------------------------

def change_checks(table: Table, doc: DocumentMeta | None = None) -> list[Check]:
    """Each printed change (a % or an amount) against the one recomputed from the two periods it compares."""
    out = []
    for cc, col in enumerate(table.columns):
        if not col.is_change:
            continue
        pair = _compared(table, cc)
        if pair is None:
            continue
        now, before = pair
        for row in table.rows:
            c_now, c_before, c_change = _cell_at(row, now), _cell_at(row, before), _cell_at(row, cc)
            if c_now is None or c_before is None or c_change is None:
                continue
            check = _change_check(table, doc, row, c_now, c_before, c_change, "%" in col.header)
            if check is not None:
                out.append(check)
    return out


def _compared(table: Table, cc: int) -> tuple[int, int] | None:
    """The columns a change column compares: the years its header names, else the latest two periods before it."""
    years = [int(y) for y in re.findall(r"(?:19|20)\d{2}", table.columns[cc].header)]
    cols = [(i, c) for i, c in enumerate(table.columns) if not c.is_change and c.fiscal_year]
    if len(years) >= 2:
        first = [i for i, c in cols if c.fiscal_year == years[0]]
        second = [i for i, c in cols if c.fiscal_year == years[1]]
        if first and second:
            return (first[0], second[0]) if years[0] > years[1] else (second[0], first[0])
    before = [(i, c) for i, c in cols if i < cc][-2:] or cols[:2]
    if len(before) < 2 or before[0][1].fiscal_year == before[1][1].fiscal_year:
        return None
    (i, a), (j, b) = before
    return (i, j) if (a.fiscal_year or 0) > (b.fiscal_year or 0) else (j, i)


def _change_check(table: Table, doc, row: TableRow, now: TableCell, before: TableCell, change: TableCell,
                  pct_header: bool) -> Check | None:
    a, b = now.value * now.scale, before.value * before.scale
    printed = change.value * (1 if change.unit == "%" or pct_header else change.scale)
    pct = change.unit == "%" or pct_header
    candidates = []
    if pct and b and (a * b > 0):
        rel = (a - b) / abs(b) * 100
        slack = 100 * (0.5 * _precision(now) / abs(b) + 0.5 * _precision(before) * abs(a) / b ** 2)
        candidates.append((rel, 0.5 * 10.0 ** -decimals(change.raw) + slack))
    if not pct or now.unit == "%":
        candidates.append((a - b if not pct else now.value - before.value,
                           0.5 * (_precision(now) + _precision(before) + _precision(change))))
    if not candidates:
        return None
    col = change.column or 0
    for got, tol in candidates:
        if abs(abs(printed) - abs(got)) <= tol * 1.0001 and (printed == 0 or got == 0 or (printed > 0) == (got > 0)
                                                             or _unsigned(change.raw)):
            passed = _check("change", table, doc, col, row, change, [(row, now), (row, before)], got, True)
            passed.scale = 1.0 if pct else passed.scale
            return passed
    got, tol = candidates[0]
    check = _check("change", table, doc, col, row, change, [(row, now), (row, before)], got, False)
    check.scale = 1.0 if pct else check.scale
    check.total = Part(row.label_path, change.raw, row.page, printed)
    if abs(abs(printed) - abs(got)) <= 2 * tol + 10.0 ** -decimals(change.raw):
        check.verdict = "as printed"
        check.reason = f"off by {check.shown(printed - got)}: rounding of the printed values"
    elif abs(printed + got) <= tol:
        check.verdict, check.reason = "likely misread", "the change reads with the opposite sign"
    else:
        check.verdict = "likely misread"
        check.reason = f"off by {check.shown(printed - got)}: the columns compared may not be the ones the change is of"
    return check


def _unsigned(raw: str) -> bool:
    """A change printed without a sign, its direction in words or colour: compared by size alone."""
    return not re.search(r"[-+−–(]", raw)


# -- a document ----------------------------------------------------------------------------------------------------

def check_document(doc: DocumentMeta, tables: list[Table]) -> list[Check]:
    """Every check of a document's tables, in table order; then its balance sheet's identity."""
    out: list[Check] = []
    for t in (part for table in tables for part in by_column(table)):
        out += sum_checks(t, doc) + scope_checks(t, doc) + change_checks(t, doc)
    return out + balance_checks(tables, doc)


def by_column(t: Table) -> list[Table]:
    """A table whose periods span several columns as one table per column ("Previously Reported", "Adjustment",
    "As Revised" under each date): a column's rows sum among themselves, never with another column's."""
    subs = list(dict.fromkeys(r.sub for r in t.rows))
    if subs == [""]:
        return [t]
    return [replace(t, rows=tuple(r for r in t.rows if r.sub == s)) for s in subs]
