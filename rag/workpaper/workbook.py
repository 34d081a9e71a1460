"""The workpaper as an Excel workbook (XlsxWriter): the history (each value's source in its cell comment, restated
values marked), the sources, the restatements, the footing checks, and the computed metrics as live formulas over
the history's cells, each with the value the app computes stored as its cached result.

XlsxWriter rather than openpyxl: it writes a formula together with its result, so a viewer that does not
recalculate (a preview, a mail client, pandas) shows the number, and Excel still recalculates it from the cells;
it writes comments and formats in a single pass, and it has no dependencies."""

from __future__ import annotations

import ast
import io
from typing import IO

import xlsxwriter
from xlsxwriter.utility import xl_rowcol_to_cell

from rag.metrics import line_items
from rag.quantities import scale_name
from rag.workpaper.computed import Computed
from rag.workpaper.footing import Check
from rag.workpaper.history import History, HistoryCell, Measure, Value

HISTORY = "History"
FIRST_ROW = 4  # the history's header row (0-based); measures start below it
FIRST_PERIOD_COL = 4  # Topic, Measure, Unit, Scale, then the periods


def unit_label(m: Measure) -> str:
    scale = scale_name(m.scale)
    return " ".join(x for x in (m.unit or "", scale + "s" if scale else "") if x)


def _source_note(v: Value) -> str:
    return f"{v.source.file_name}, p. {v.source.page}\n{v.source.table_title[:120]}\nprinted: {v.raw}"


def _cell_note(cell: HistoryCell) -> str:
    note = _source_note(cell.value)
    if cell.restated:
        older = "\n".join(f"{v.raw} in {v.source.file_name}, p. {v.source.page}" for v in cell.restated)
        note = f"RESTATED: {cell.value.raw} in the later {cell.value.source.file_name}, p. {cell.value.source.page};" \
               f" earlier:\n{older}\n\n{note}"
    return note


def write_workbook(history: History, checks: list[Check], computed: list[Computed], out: str | IO[bytes]) -> None:
    """The workbook, to a path or a binary stream."""
    wb = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False})
    fmt = {"bold": wb.add_format({"bold": True}), "title": wb.add_format({"bold": True, "font_size": 14}),
           "num": wb.add_format({"num_format": "#,##0.###"}),
           "restated": wb.add_format({"num_format": "#,##0.###", "bg_color": "#FCE4D6"}),
           "pct": wb.add_format({"num_format": '0.0"%"'}), "x": wb.add_format({"num_format": "0.00"}),
           "wrap": wb.add_format({"text_wrap": True, "valign": "top"})}
    where = _history_sheet(wb, history, fmt)
    _metrics_sheet(wb, history, computed, where, fmt)
    _sources_sheet(wb, history, fmt)
    _restatements_sheet(wb, history, fmt)
    _footing_sheet(wb, checks, fmt)
    wb.close()


def workbook_bytes(history: History, checks: list[Check], computed: list[Computed]) -> bytes:
    buf = io.BytesIO()
    write_workbook(history, checks, computed, buf)
    return buf.getvalue()


def _text(ws, row: int, col: int, value: str, f=None) -> None:
    """A string written as a string: document text is never a formula, a link or a number to Excel."""
    ws.write_string(row, col, value or "", f) if f else ws.write_string(row, col, value or "")


def _history_sheet(wb, history: History, fmt) -> dict[tuple[int, str], str]:
    ws = wb.add_worksheet(HISTORY)
    _text(ws, 0, 0, f"{history.title}: every table value by period", fmt["title"])
    _text(ws, 1, 0, "Values as printed, in each row's unit and scale. Each value's source (document, page, table) "
                    "is its comment, and a row of the Sources sheet. Shaded: restated (a later document prints "
                    "another value; its comment names both).")
    heads = ["Topic", "Measure", "Unit", "Scale", *history.periods]
    for c, h in enumerate(heads):
        _text(ws, FIRST_ROW, c, h, fmt["bold"])
    where: dict[tuple[int, str], str] = {}
    col_of = {p: FIRST_PERIOD_COL + i for i, p in enumerate(history.periods)}
    for r, m in enumerate(history.measures, start=FIRST_ROW + 1):
        _text(ws, r, 0, m.topic)
        _text(ws, r, 1, m.label_path)
        _text(ws, r, 2, unit_label(m))
        ws.write_number(r, 3, m.scale)
        for period, cell in m.cells.items():
            c = col_of[period]
            ws.write_number(r, c, cell.value.scaled / m.scale, fmt["restated" if cell.restated else "num"])
            ws.write_comment(r, c, _cell_note(cell), {"x_scale": 2.5, "y_scale": 2})
            where[(m.measure_id, period)] = xl_rowcol_to_cell(r, c)
    ws.set_column(0, 0, 22)
    ws.set_column(1, 1, 60)
    ws.set_column(2, 3, 12)
    ws.freeze_panes(FIRST_ROW + 1, FIRST_PERIOD_COL)
    ws.autofilter(FIRST_ROW, 0, FIRST_ROW + max(1, len(history.measures)), len(heads) - 1)
    return where


def excel_formula(c: Computed, where: dict[tuple[int, str], str]) -> str:
    """The metric's formula over the history's cells: each input its cell × its scale (an outflow as ABS), prev(x)
    the year before's cell, avg(x) AVERAGE of both years' cells; × 100 for a %, ÷ the result's scale for an amount."""
    items = line_items()

    def ref(symbol: str, name: str) -> list[str]:
        refs = []
        for m, period in c.cells.get(symbol, []):
            term = f"{HISTORY}!{where[(m.measure_id, period)]}*{m.scale:g}"
            refs.append(f"ABS({term})" if items[name].outflow else f"({term})")
        return refs

    def ex(node: ast.AST) -> str:
        if isinstance(node, ast.Expression):
            return ex(node.body)
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(node.op)]
            return f"({ex(node.left)}{op}{ex(node.right)})"
        if isinstance(node, ast.UnaryOp):
            return f"(-{ex(node.operand)})"
        if isinstance(node, ast.Constant):
            return repr(node.value)
        if isinstance(node, ast.Name):
            return (ref(node.id, node.id) or ["0"])[0]  # an optional item the filing lacks is 0
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.args[0].id  # type: ignore[attr-defined]
            refs = ref(f"{node.func.id}({name})", name)
            if node.func.id == "avg":
                return f"AVERAGE({','.join(refs)})"
            if node.func.id == "delta":
                return f"({refs[0]}-{refs[1]})"
            return refs[0]
        raise ValueError(f"not in a formula: {ast.dump(node)[:40]}")

    body = ex(ast.parse(c.metric.formula, mode="eval"))
    if c.metric.unit == "%":
        return f"={body}*100"
    return f"={body}/{c.scale:g}" if c.scale != 1 else f"={body}"


def _metrics_sheet(wb, history: History, computed: list[Computed], where, fmt) -> None:
    ws = wb.add_worksheet("Metrics")
    _text(ws, 0, 0, "Computed metrics: live formulas over the History sheet's cells (click a cell to see them)",
          fmt["title"])
    years = sorted({c.year for c in computed})
    heads = ["Metric", "Unit", "Convention", *[f"FY{y}" for y in years]]
    for col, h in enumerate(heads):
        _text(ws, 2, col, h, fmt["bold"])
    names = list(dict.fromkeys(c.metric.name for c in computed))
    for r, name in enumerate(names, start=3):
        rows = [c for c in computed if c.metric.name == name]
        unit = rows[0].metric.unit
        _text(ws, r, 0, name)
        _text(ws, r, 1, unit if rows[0].scale == 1 else f"{unit} {scale_name(rows[0].scale)}s")
        _text(ws, r, 2, rows[0].metric.convention)
        for c in rows:
            f = fmt["pct"] if unit == "%" else fmt["x"] if unit in ("x", "days") else fmt["num"]
            ws.write_formula(r, 3 + years.index(c.year), excel_formula(c, where), f, c.value)
    ws.set_column(0, 0, 26)
    ws.set_column(2, 2, 50)
    ws.set_column(3, 3 + len(years), 12)


def _sources_sheet(wb, history: History, fmt) -> None:
    ws = wb.add_worksheet("Sources")
    heads = ["Topic", "Measure", "Period", "Value as printed", "Unit", "Scale", "Document", "Page", "Table",
             "Row as printed", "Shown in History", "Differs from the latest"]
    for c, h in enumerate(heads):
        _text(ws, 0, c, h, fmt["bold"])
    r = 1
    for m in history.measures:
        for period, cell in m.cells.items():
            for v in [cell.value, *reversed(cell.others)]:
                vals = [m.topic, m.label_path, period, v.raw, v.unit or "", v.scale, v.source.file_name,
                        v.source.page, v.source.table_title, v.source.row_text, "yes" if v is cell.value else "no",
                        "yes" if v in cell.restated else "no"]
                for c, x in enumerate(vals):
                    ws.write_number(r, c, x) if isinstance(x, (int, float)) else _text(ws, r, c, str(x))
                r += 1
    ws.freeze_panes(1, 0)
    ws.autofilter(0, 0, max(1, r - 1), len(heads) - 1)
    ws.set_column(1, 1, 50)
    ws.set_column(6, 6, 28)
    ws.set_column(8, 9, 50)


def _restatements_sheet(wb, history: History, fmt) -> None:
    ws = wb.add_worksheet("Restatements")
    heads = ["Topic", "Measure", "Period", "Later value", "Later document", "Page", "Earlier value",
             "Earlier document", "Page"]
    for c, h in enumerate(heads):
        _text(ws, 0, c, h, fmt["bold"])
    r = 1
    for m, cell in history.restatements():
        for v in cell.restated:
            vals = [m.topic, m.label_path, cell.period, cell.value.raw, cell.value.source.file_name,
                    cell.value.source.page, v.raw, v.source.file_name, v.source.page]
            for c, x in enumerate(vals):
                ws.write_number(r, c, x) if isinstance(x, int) else _text(ws, r, c, str(x))
            r += 1
    ws.set_column(1, 1, 50)
    ws.set_column(4, 4, 28)
    ws.set_column(7, 7, 28)


def _footing_sheet(wb, checks: list[Check], fmt) -> None:
    ws = wb.add_worksheet("Footing")
    heads = ["Check", "Result", "Class", "Reason", "Document", "Pages", "Table", "Column", "Printed line",
             "Printed", "Recomputed (printed scale)", "Gap (printed scale)", "Cells read"]
    for c, h in enumerate(heads):
        _text(ws, 0, c, h, fmt["bold"])
    for r, k in enumerate(checks, start=1):
        vals = [k.kind, "foots" if k.ok else "fails", k.verdict, k.reason, k.file_name,
                ", ".join(str(p) for p in k.pages), k.table_title, k.column, k.total.label, k.total.raw]
        for c, x in enumerate(vals):
            _text(ws, r, c, x)
        ws.write_number(r, 10, k.computed / k.scale, fmt["num"])
        ws.write_number(r, 11, k.gap / k.scale, fmt["num"])
        _text(ws, r, 12, "; ".join(f"{p.label}: {p.raw} (p. {p.page})" for p in k.parts))
    ws.freeze_panes(1, 0)
    ws.autofilter(0, 0, max(1, len(checks)), len(heads) - 1)
    ws.set_column(3, 3, 50)
    ws.set_column(6, 6, 40)
    ws.set_column(8, 8, 40)
