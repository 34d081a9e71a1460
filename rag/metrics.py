"""Computed metrics, by code: the definitions live in data tables (data/metrics.tsv: names, formula, unit and the
convention with its source; data/line_items.tsv: the row labels filings print for each input). A formula is
evaluated over verified table facts only — never over a number a model wrote."""

from __future__ import annotations

import ast
import csv
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rag.quantities import class_of_unit, scale_name
from rag.records import Fact

_DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class LineItem:
    name: str
    labels: tuple[tuple[str, str], ...]  # (label, mode: "=" whole label, "~" phrase anywhere, "" start), in order
    outflow: bool  # printed in parentheses as an outflow; used as a positive amount
    optional: bool = False  # taken as 0 (and said) when a filing has no such row
    classes: tuple[str, ...] = ()  # the unit classes it is measured in (rag/quantities.py); () = any

    def unit_fits(self, f: Fact) -> bool:
        """The fact's unit (or its table's) is of the item's class, or unknown: a "Scope 1" row of an energy table
        is not an emission."""
        if not self.classes:
            return True
        got = class_of_unit(f.unit) or class_of_unit(f.table_title)
        return got is None or got in self.classes


@dataclass(frozen=True)
class Metric:
    name: str
    pattern: re.Pattern
    formula: str
    unit: str  # % | x | days | USD | t CO2e …
    convention: str
    several: bool = False  # analysts compute it more than one way
    alternative: str = ""  # the other common formula, if any
    alternative_convention: str = ""
    defined: bool = False  # the question itself defines it ("… is defined as: revenue / average PP&E")

    def other(self) -> Metric | None:
        """The metric on its other common convention (its figure is given beside the first)."""
        if not self.alternative:
            return None
        return Metric(self.name, self.pattern, self.alternative, self.unit, self.alternative_convention, True)

    @property
    def inputs(self) -> list[str]:
        return sorted({n.id for n in ast.walk(ast.parse(self.formula, mode="eval"))
                       if isinstance(n, ast.Name) and n.id not in ("avg", "delta", "prev", "cagr")})

    @property
    def averaged(self) -> set[str]:
        return set(re.findall(r"avg\((\w+)\)", self.formula))

    @property
    def compounded(self) -> set[str]:
        """The inputs grown at a compound annual rate from the first year asked: cagr(x) = (x / x then)^(1/years) − 1."""
        return set(re.findall(r"cagr\((\w+)\)", self.formula))

    @property
    def previous(self) -> set[str]:
        """The inputs also read for the year before: prev(x) (a growth: (x − prev(x)) / prev(x))."""
        return set(re.findall(r"prev\((\w+)\)", self.formula))

    @property
    def changed(self) -> set[str]:
        """The inputs taken as their change from the previous year: delta(x) = x − x the year before."""
        return set(re.findall(r"delta\((\w+)\)", self.formula))


def _rows(name: str) -> list[dict[str, str]]:
    lines = [l for l in (_DATA / name).read_text().splitlines() if l.strip() and not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


@lru_cache(maxsize=1)
def line_items() -> dict[str, LineItem]:
    out = {}
    for r in _rows("line_items.tsv"):
        labels = tuple((l.lstrip("=~"), l[0] if l[0] in "=~" else "") for l in r["labels"].split(";") if l.strip())
        sign = (r.get("sign") or "").strip()
        out[r["item"]] = LineItem(r["item"], labels, sign == "abs", sign == "optional",
                                  tuple((r.get("class") or "").split()))
    return out


@lru_cache(maxsize=1)
def metrics() -> list[Metric]:
    return [Metric(r["metric"], re.compile(rf"\b(?:{r['names']})", re.I), r["formula"], r["unit"], r["convention"],
                   (r.get("conventions") or "").strip() == "several", (r.get("alternative") or "").strip(),
                   (r.get("alternative_convention") or "").strip()) for r in _rows("metrics.tsv")]


def metric_of(question: str) -> Metric | None:
    """The metric a question asks for (the first of the table that it names)."""
    for m in metrics():
        if m.pattern.search(question):
            return m
    return None


# a metric the question defines: "X is defined as: A / (average B between FY2018 and FY2019)", "Define X as A less B"
_DEFINED = re.compile(r"(?:\b(?:is|are)\s+defined\s+as|\bdefine\s+(?P<name>[^.?:]{2,60}?)\s+as)\s*:?\s*(?P<expr>[^?]+?)"
                      r"(?=\.\s|[.?]?\s*$|\?)", re.I)
_OPERATORS = [(r"\bdivided by\b|\bover\b|÷", " / "), (r"\bmultiplied by\b|\btimes\b|×", " * "),
              (r"\bplus\b|\badded to\b", " + "), (r"\bminus\b|\bless\b|\bsubtract(?:ed|ing)?\b", " - ")]
# accounting abbreviations → line items (a closed vocabulary, the same in every filing)
_ABBREVIATIONS = {"cogs": "cost_of_sales", "pp&e": "ppe", "ppne": "ppe", "ppe": "ppe",
                  "d&a": "depreciation_amortization", "capex": "capex", "ebit": "operating_income",
                  "cfo": "operating_cash_flow", "a/p": "accounts_payable", "a/r": "receivables"}
_OPERAND_NOISE = re.compile(r"\b(?:fy\s?'?\d{2,4}|(?:19|20)\d{2}|between|and|the|of|from|in|for|at|year[- ]end|"
                            r"year|ending|end|unadjusted|reported|gaap|statement|statements|cash flows?|income|balance "
                            r"sheet|as|shown|on|its|company'?s?)\b", re.I)


# a line item asked by an abbreviation no row prints ("COGS"): read through the item's labels (line_items.tsv)
_ITEM_ASKED = {"cogs": (_ABBREVIATIONS["cogs"], "cost of goods sold (COGS)")}


def item_metric(question: str) -> Metric | None:
    """The line item a question asks for by an abbreviation that no filing prints as a row label."""
    for abbr, (item, name) in _ITEM_ASKED.items():
        if re.search(rf"\b{abbr}\b", question, re.I) and not _DEFINED.search(question):
            return Metric(name, re.compile(rf"\b{abbr}\b", re.I), item, "USD",
                          f"the {name} line of the income statement")
    return None


def without_definition(question: str) -> str:
    """The question without the definition it gives ("… change in inventory" there asks no change)."""
    return _DEFINED.sub(" ", question)


def defined_metric(question: str) -> Metric | None:
    """The metric as the question defines it, when every operand of its definition is a line item (line_items.tsv)
    and it is the whole of what is asked (a definition of one input, "Define EBITDA as …", for a margin asked is
    not)."""
    m = _DEFINED.search(question)
    if not m:
        return None
    expr = m.group("expr")
    for rx, op in _OPERATORS:
        expr = re.sub(rx, op, expr, flags=re.I)
    parts = re.split(r"(\(|\)|\s[-+*/]\s|\s/|/\s|\*)", f" {expr} ")
    formula = []
    for part in parts:
        p = part.strip()
        if not p:
            continue
        if p in "()+-*/":
            formula.append(p)
            continue
        term = _operand(p)
        if term is None:
            return None
        formula.append(term)
    text = " ".join(formula)
    asked_share = re.search(r"%|percent|margin\b|ratio\b", question, re.I)
    if "/" not in text and asked_share:
        return None  # the definition of an input, not of the share asked
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    name = (m.group("name") or question[: m.start()].split("?")[-1].split(".")[-1]).strip(" ,:") or "the metric"
    unit = "days" if "365" in text else "%" if re.search(r"%|percent|margin\b", question, re.I) and "/" in text \
        else "x" if "/" in text else "USD"
    return Metric(name[:60], re.compile(re.escape(name[:60]), re.I), text, unit,
                  f"as the question defines it: {m.group('expr').strip()[:160]}", defined=True)


def _operand(phrase: str) -> str | None:
    """One operand of a definition: a number, a line item, avg(item) for an average, delta(item) for a change."""
    p = phrase.strip(" ,;")
    if re.fullmatch(r"\d+(?:\.\d+)?", p):
        return p
    wrap = "avg" if re.search(r"\baverage\b|\bmean\b", p, re.I) else "delta" if re.search(r"\bchange in\b", p, re.I) \
        else ""
    words = re.sub(r"\baverage\b|\bmean\b|\bchange in\b|\btotal\b", " ", p, flags=re.I)
    words = re.sub(r"\s+", " ", _OPERAND_NOISE.sub(" ", words)).strip(" ,.()").lower()
    item = _ABBREVIATIONS.get(words.replace(" ", "")) or _ABBREVIATIONS.get(words)
    if item is None:
        items = line_items()
        for key, li in items.items():
            names = {key.replace("_", " ")} | {re.sub(r"^total ", "", lab) for lab, _ in li.labels}
            if words and words in names:
                item = key
                break
    if item is None:
        return None
    return f"{wrap}({item})" if wrap else item


def norm_label(label: str) -> str:
    """A row label compared with a line item's labels: lower case, one kind of dash and apostrophe, no footnote
    marks or trailing colon."""
    t = label.lower().replace("’", "'").replace("–", "—").replace(" - ", " — ")
    t = re.sub(r"\s+", " ", re.sub(r"\(\d\)|\*", "", t))
    # "EBITDA (in €m)": the unit, not the name (a "(in %)" row stays a share, never an amount's line item)
    unit = re.search(r"\s*\((?:in\s+)?[^()]{1,16}\)\s*:?$", t)
    if unit and class_of_unit(unit.group(0).replace("(", " ").replace(")", " ")) not in (None, "percent"):
        t = t[: unit.start()]
    return t.strip(" :.")


def label_rank(item: LineItem, label: str, path: str = "") -> int | None:
    """The preference rank of the first of the item's labels the row label matches ('=': the whole label, '~': a
    phrase anywhere in the label and its parent rows, else the label's start); None when none does."""
    n, p = norm_label(label), norm_label(path or label)
    for i, (want, mode) in enumerate(item.labels):
        if n == want or (mode == "" and n.startswith(want)) or (mode == "~" and re.search(rf"\b{re.escape(want)}\b", p)):
            return i
    return None


# -- a small, safe evaluator: + - * / and parentheses over names and numbers ----------------------------------------
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def evaluate(formula: str, values: dict[str, float]) -> float:
    """The formula's value; avg(x) must already be in values as 'avg(x)'."""
    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.Name):
            return values[node.id]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("avg", "delta", "prev", "cagr"):
            return values[f"{node.func.id}({node.args[0].id})"]  # type: ignore[attr-defined]
        raise ValueError(f"not allowed in a formula: {ast.dump(node)[:40]}")

    return ev(ast.parse(formula, mode="eval"))


@dataclass
class Input:
    """One input of a computation: the fact (or facts, for an average) it was read from."""
    item: str
    value: float  # in the fact's own scale (millions when the table is in millions)
    facts: list[Fact]
    note: str = ""


@dataclass
class Computation:
    metric: Metric
    year: int | None
    value: float
    inputs: dict[str, Input] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def facts(self) -> list[Fact]:
        return [f for i in self.inputs.values() for f in i.facts]

    def formatted(self) -> str:
        if self.metric.unit in ("USD", "EUR", "GBP") and self.facts:
            scale = self.facts[0].scale or 1.0  # an amount in its tables' unit ("1,623 million")
            word = scale_name(scale)
            return f"{self.value / scale:,.0f}{' ' + word if word else ''}"
        return format_metric(self.value, self.metric.unit)


Resolve = Callable[[str, int | None], Fact | None]


def compute(metric: Metric, year: int | None, resolve: Resolve, start: int | None = None) -> Computation | None:
    """The metric for a year from facts; None when an input is not found (the caller says which). A compound growth
    runs from `start` to `year`."""
    values: dict[str, float] = {}
    inputs: dict[str, Input] = {}
    notes = []
    items = line_items()
    for name in metric.inputs:
        f = resolve(name, year)
        item = items.get(name)
        if f is None and item is not None and item.optional:
            values[name] = 0.0
            notes.append(f"{name.replace('_', ' ')}: no such row in the filing, taken as 0")
            continue
        if f is None:
            return None
        v = abs(f.scaled) if item and item.outflow else f.scaled
        values[name] = v
        inputs[name] = Input(name, v, [f])
        if name in metric.changed:
            prev = resolve(name, year - 1) if year else None
            if prev is None:
                return None  # a change needs the year before
            pv = abs(prev.scaled) if item and item.outflow else prev.scaled
            values[f"delta({name})"] = v - pv
            inputs[f"delta({name})"] = Input(name, v - pv, [f, prev], "change from the previous year")
        if name in metric.compounded:
            first = resolve(name, start) if year and start and start < year else None
            if first is None or first.fiscal_year == f.fiscal_year:
                return None  # a compound growth needs the first year's figure
            fv = abs(first.scaled) if item and item.outflow else first.scaled
            if fv <= 0 or v <= 0:
                return None
            values[f"cagr({name})"] = (v / fv) ** (1 / (year - start)) - 1  # type: ignore[operator]
            inputs[f"cagr({name})"] = Input(name, fv, [first], f"FY{start}")
        if name in metric.previous:
            prev = resolve(name, year - 1) if year else None
            if prev is None or prev.fiscal_year == f.fiscal_year:
                return None  # a growth needs the year before
            pv = abs(prev.scaled) if item and item.outflow else prev.scaled
            values[f"prev({name})"] = pv
            inputs[f"prev({name})"] = Input(name, pv, [prev], "the year before")
        if name in metric.averaged:
            prev = resolve(name, year - 1) if year else None
            if prev is not None:
                pv = abs(prev.scaled) if item and item.outflow else prev.scaled
                values[f"avg({name})"] = (v + pv) / 2
                inputs[name] = Input(name, (v + pv) / 2, [f, prev], "average of the year's and the previous year's")
            else:
                values[f"avg({name})"] = v
                notes.append(f"{name.replace('_', ' ')}: the year-end balance (the previous year's was not found)")
    try:
        value = evaluate(metric.formula, values)
    except ZeroDivisionError:
        return None
    if metric.unit == "%":
        value *= 100
    if not plausible(metric, value):
        return None  # inputs from tables that do not fit together (another scale, another statement)
    return Computation(metric, year, value, inputs, notes)


def plausible(metric: Metric, value: float) -> bool:
    """A result no real filing gives means the inputs were misread: a margin beyond ±100%, a negative ratio."""
    if metric.previous and metric.unit == "%":
        return value >= -100  # a growth: never below −100%, and it may be any multiple of the year before
    if metric.unit == "%" and metric.name != "free cash flow conversion" and not -100 <= value <= 100:
        return False
    if metric.unit in ("x", "days") and not 0 <= value <= 1000:
        return False
    return True


def format_metric(value: float, unit: str) -> str:
    if unit == "%":
        return f"{value:.1f}%"
    if unit == "x":
        return f"{value:.2f}"
    if unit == "days":
        return f"{value:.1f} days"
    num = f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
    return num if unit in ("", "USD") else f"{num} {unit}"


def growth(now: float, before: float) -> float | None:
    """(now - before) / |before|, in percent."""
    if before == 0:
        return None
    return (now - before) / abs(before) * 100
