"""Computed metrics of a history (margins, growth, ratios, Scope 1 + 2), by the same definitions and the same code as
answers (rag/data/metrics.tsv, rag.metrics.compute), each with the cells it reads, so a workbook can write it as a
live formula over them."""

from __future__ import annotations

from dataclasses import dataclass, field

from rag.metrics import Metric, compute, label_rank, line_items, metrics
from rag.quantities import class_of_unit
from rag.records import Fact
from rag.workpaper.history import History, Measure, period_label

_PREFERRED_TOPIC = {"income statement": 0, "balance sheet": 0, "cash flows": 0}


@dataclass
class Computed:
    """A metric in one fiscal year: its value (a % in percent, an amount in the scale of `scale`) and, for each
    symbol of its formula ("revenue", "prev(revenue)", "avg(total_assets)"), the cells it reads."""
    metric: Metric
    year: int
    value: float
    scale: float  # an amount's scale (1e6: in millions); 1 for a %, a ratio or days
    cells: dict[str, list[tuple[Measure, str]]] = field(default_factory=dict)  # symbol → (measure, period)
    notes: list[str] = field(default_factory=list)


def _candidates(history: History, item_name: str) -> list[Measure]:
    item = line_items()[item_name]
    ranked = []
    for m in history.measures:
        rank = label_rank(item, m.label_path.split(" › ")[-1], m.label_path)
        got = class_of_unit(m.unit) or class_of_unit(m.topic)
        if rank is None or (item.classes and got is not None and got not in item.classes) or m.unit == "%":
            continue
        ranked.append((rank, _PREFERRED_TOPIC.get(m.topic, 1), -len(m.cells), m.measure_id, m))
    return [r[-1] for r in sorted(ranked, key=lambda r: r[:4])]


def _resolver(history: History, cache: dict[str, list[Measure]]):
    used: dict[tuple[str, int], Measure] = {}

    def resolve(name: str, year: int | None) -> Fact | None:
        if year is None or name not in line_items():
            return None
        for m in cache.setdefault(name, _candidates(history, name)):
            cell = m.cells.get(period_label(year, "FY"))
            if cell is not None:
                used[(name, year)] = m
                v = cell.value
                return Fact(0, v.source.document_id, None, v.source.page, m.label_path, m.label_path, "",
                            period_label(year, "FY"), year, "FY", False, v.value, v.raw, v.unit, v.scale,
                            v.source.table_title, v.source.row_text)
        return None

    return resolve, used


def computed_metrics(history: History) -> list[Computed]:
    """Every metric of metrics.tsv the history has the inputs of, for each fiscal year it has them (compound growth
    aside: it needs a span, not a year)."""
    years = sorted({int(p[2:]) for p in history.periods if p.startswith("FY")})
    out = []
    cache: dict[str, list[Measure]] = {}
    for metric in metrics():
        if metric.compounded:
            continue
        for year in years:
            resolve, used = _resolver(history, cache)
            comp = compute(metric, year, resolve)
            if comp is None:
                continue
            out.append(_computed(metric, year, comp.value, used, comp.notes))
    return out


def _computed(metric: Metric, year: int, value: float, used: dict, notes: list[str]) -> Computed:
    cells: dict[str, list[tuple[Measure, str]]] = {}
    for (name, y), m in used.items():
        now, before = period_label(year, "FY"), period_label(year - 1, "FY")
        if y == year:
            cells.setdefault(name, []).append((m, now))
        elif name in metric.previous:
            cells[f"prev({name})"] = [(m, before)]
        elif name in metric.averaged or name in metric.changed:
            cells.setdefault(f"with({name})", []).append((m, before))
    for name in metric.averaged:
        cells[f"avg({name})"] = cells.get(name, []) + cells.pop(f"with({name})", [])
    for name in metric.changed:
        cells[f"delta({name})"] = cells.get(name, []) + cells.pop(f"with({name})", [])
    scale = 1.0
    if metric.unit not in ("%", "x", "days") and metric.inputs and metric.inputs[0] in cells:
        scale = cells[metric.inputs[0]][0][0].scale
    return Computed(metric, year, value / scale, scale, cells, notes)
