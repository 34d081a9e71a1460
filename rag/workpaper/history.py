"""Fact history: every value of an issuer's tables (or one report's) as rows of measures by columns of periods, each
value with its source, and the values a later document prints differently marked "restated".

A measure is a table row as printed: its topic (the statement it is in, else its table's title without a note
number) and its label path. Rows of two documents are one measure when their topic and label read the same, case,
punctuation and footnote marks aside; and, when their words differ ("Total net sales" / "Net sales"), when their
labels agree in meaning (the embedding model), they print the same value for a period, and no document prints both
(two rows of one document are two measures). A value is compared with another within the rounding of the coarser
of the two, so "$1.8 billion" and "1,798" in millions agree."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from rag.domain import MONTH, dates_in, month_number
from rag.records import DocumentMeta, Table, TableCell, TableRow
from rag.statements import statement_of_title

Embed = Callable[[list[str]], np.ndarray]
# Two labels in other words are one measure from this cosine up (all-MiniLM-L6-v2): "Total net sales" / "Net sales"
# 0.93, "Revenues" / "Total revenues" 0.89; "Net sales" / "Cost of sales" 0.55. A shared value is asked for too.
SAME_MEANING = 0.8
_PERIOD_RANK = {"Q1": 1, "H1": 2, "Q2": 3, "9M": 4, "Q3": 5, "Q4": 6, "FY": 7}
STATEMENTS = ("income statement", "comprehensive income", "balance sheet", "cash flows", "equity")


@dataclass(frozen=True, slots=True)
class Source:
    """Where a value is printed: the document, its page, the table's title and the row as the layout cut it."""
    document_id: int
    file_name: str
    page: int
    table_title: str
    row_text: str
    later: tuple = ()  # the document's place in time: a later document sorts higher

    def label(self) -> str:
        return f"{self.file_name}, p. {self.page}"


@dataclass(frozen=True, slots=True)
class Value:
    """A value as printed (`value` in `scale`, "in millions" → 1e6) with its unit and source."""
    value: float
    raw: str
    unit: str | None
    scale: float
    source: Source

    @property
    def scaled(self) -> float:
        return self.value * self.scale

    @property
    def precision(self) -> float:
        """The step of its last printed digit, in its unit: '1,798' in millions → 1e6; '22.4 %' → 0.1."""
        return 10.0 ** -decimals(self.raw) * self.scale


def decimals(raw: str) -> int:
    """The digits a printed number has after its decimal point: '1,798' → 0, '(4.35)%' → 2."""
    m = re.search(r"\d[\d,]*(?:\.(\d+))?", raw)
    return len(m.group(1)) if m and m.group(1) else 0


def same_value(a: Value, b: Value) -> bool:
    """Equal within the rounding of the coarser; a value printed with the opposite sign (a cost shown in parentheses
    in one table, plain in another) is the same amount presented otherwise. Units are not compared: one line read
    with two units ("$9" beside "9" of a row that names shares) is a misread of ours, not a restatement."""
    tol = 0.5 * max(a.precision, b.precision) * 1.0001
    return abs(abs(a.scaled) - abs(b.scaled)) <= tol


@dataclass
class HistoryCell:
    """One measure in one period: the latest document's value, and every other document's."""
    period: str
    value: Value
    others: list[Value] = field(default_factory=list)  # older documents' prints of it, oldest first

    @property
    def restated(self) -> list[Value]:
        """The older documents' values that differ from the latest one."""
        return [v for v in self.others if not same_value(v, self.value)]


@dataclass
class Measure:
    """A row of the history: a topic and a label path, as the latest document prints them."""
    measure_id: int
    topic: str
    label_path: str
    labels: tuple[str, ...]  # every label path a document printed it under
    cells: dict[str, HistoryCell] = field(default_factory=dict)

    @property
    def statement(self) -> str | None:
        return self.topic if self.topic in STATEMENTS else None

    @property
    def unit(self) -> str | None:
        return next((c.value.unit for c in self.cells.values() if c.value.unit), None)

    @property
    def scale(self) -> float:
        latest = max(self.cells.values(), key=lambda c: c.value.source.later, default=None)
        return latest.value.scale if latest else 1.0


@dataclass
class History:
    """An issuer's (or a report's) measures by period, oldest period first."""
    title: str
    documents: list[DocumentMeta]
    periods: list[str]
    measures: list[Measure]

    def restatements(self) -> list[tuple[Measure, HistoryCell]]:
        return [(m, c) for m in self.measures for c in m.cells.values() if c.restated]

    def select(self, topic: str | None = None, text: str = "", restated_only: bool = False) -> list[Measure]:
        """The measures of a topic (None: all; "statements": the financial statements), whose label path holds
        every word of `text`, and only those with a restated value when asked."""
        words = _norm(text).split()
        out = []
        for m in self.measures:
            if topic == "statements" and m.statement is None or topic not in (None, "statements", m.topic):
                continue
            if words and not all(w in _norm(m.label_path) for w in words):
                continue
            if restated_only and not any(c.restated for c in m.cells.values()):
                continue
            out.append(m)
        return out

    def topics(self) -> list[str]:
        seen = {m.topic for m in self.measures}
        return [t for t in STATEMENTS if t in seen] + sorted(seen - set(STATEMENTS))


# -- building ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Obs:
    key: tuple[str, str]  # (topic, label) compared
    topic: str
    label_path: str
    period: str
    value: Value


def later_key(doc: DocumentMeta) -> tuple:
    """A document's place in time: fiscal year, then the period within it, then its publication, then its id."""
    return (doc.fiscal_year or 0, _PERIOD_RANK.get(doc.fiscal_period or "FY", 7), doc.published_date or "",
            doc.document_id)


def period_label(year: int, period: str | None) -> str:
    return f"FY{year}" if period in (None, "FY") else f"{period} FY{year}"


def period_order(label: str) -> tuple[int, int]:
    m = re.match(r"(?:(\w+) )?FY(\d{4})$", label)
    if not m:
        return (0, 0)
    return (int(m.group(2)), _PERIOD_RANK.get(m.group(1) or "FY", 7))


def topic_of(title: str) -> str:
    """The statement a table is, else its title without a note's number ("NOTE 5. Supplemental …" → "Supplemental
    …"), cut at 80 characters."""
    statement = statement_of_title(title)
    if statement:
        return statement
    t = re.sub(r"^\s*(note|item)\s+\d+[a-z]?\s*[.:\-–—]?\s*", "", title, flags=re.I)
    t = re.sub(r"\s+", " ", t).strip(" .:")
    return (t[:80].rsplit(" ", 1)[0] if len(t) > 80 else t) or "(untitled table)"


_TOTAL_ASSETS = re.compile(r"^\s*total\s+assets\s*$", re.I)
_TOTAL_EQUITY = re.compile(r"^\s*total\b.*\b(equity|deficit)\b", re.I)
_ACTIVITIES = ("operating activities", "investing activities", "financing activities")
STATEMENT_ROWS = 12  # a statement's page is long; an MD&A summary of its totals (4-8 rows) is not a statement
STATEMENT_PERIODS = 3  # a statement prints at most three periods; a five-year summary is selected data


def statement_of_rows(rows: list[TableRow], periods: int) -> str | None:
    """The statement rows printed on one page make, whatever their table's title: total assets and a total of
    equity make a balance sheet; operating, investing and financing activities make the cash flow statement."""
    if len(rows) < STATEMENT_ROWS or periods > STATEMENT_PERIODS:
        return None
    labels = [r.label for r in rows]
    if any(_TOTAL_ASSETS.match(x) for x in labels) and any(_TOTAL_EQUITY.match(x) for x in labels):
        return "balance sheet"
    paths = " ".join(r.label_path.lower() for r in rows)
    if all(a in paths for a in _ACTIVITIES):
        return "cash flows"
    return None


def row_topics(tables: list[Table]) -> list[list[str]]:
    """Each table row's topic: its table's statement or title, except that
    - the rows of a page that make another statement are that statement (a table read across the statements'
      pages under one title, or under the title of the page before, carried over);
    - a table that continues a statement on its page or the next, under the same periods, without a statement
      title of its own, is that statement."""
    out: list[list[str]] = []
    for i, t in enumerate(tables):
        titled = statement_of_title(t.title)
        base = titled or topic_of(t.title)
        prev = tables[i - 1] if i else None
        if titled is None and prev is not None and out[-1] and out[-1][-1] in STATEMENTS and t.columns \
                and t.page_start in (prev.page_end, prev.page_end + 1) \
                and [c.period for c in t.columns] == [c.period for c in prev.columns]:
            base = out[-1][-1]
        periods = sum(1 for c in t.columns if c.fiscal_year and not c.is_change)
        by_page = {p: statement_of_rows([r for r in t.rows if r.page == p], periods) or base
                   for p in {r.page for r in t.rows}}
        out.append([by_page[r.page] for r in t.rows])
    return out


def _norm(text: str) -> str:
    t = text.lower().replace("’", "'")
    t = re.sub(r"\(\d\)|\*|\[\d\]", "", t)
    return re.sub(r"[^a-z0-9%]+", " ", t).strip()


_QUARTERLY = {"Q1", "Q2", "Q3", "H1", "9M"}


def quarter_columns(t: Table, doc: DocumentMeta) -> dict[int, str]:
    """In a quarter's report, the columns dated like the quarter's own end (this year's, and the same day of an
    earlier year) are that quarter, not a fiscal year: a quarter's report cannot print a fiscal year that has not
    ended, and the balance a year before is the same quarter's. A column dated otherwise (the last fiscal year's
    end) stays a fiscal year."""
    if doc.fiscal_period not in _QUARTERLY or not doc.fiscal_year:
        return {}
    dated = _column_dates(t)
    now = [d for i, d in dated.items() if t.columns[i].fiscal_year == doc.fiscal_year]
    if not now:
        return {}

    def near(d) -> bool:
        try:
            return abs((d.replace(year=now[0].year) - now[0]).days) <= 3
        except ValueError:  # 29 February
            return False

    out = {}
    for i, d in dated.items():
        year = t.columns[i].fiscal_year or 0
        if near(d):
            out[i] = period_label(year, doc.fiscal_period)
        elif year == doc.fiscal_year:  # a year-end in a quarter's report, before the quarter: the last year's
            out[i] = period_label(year - 1, "FY")
    return out


_MONTH_DAY = re.compile(rf"\b({MONTH})\s+(\d{{1,2}})\b", re.I)


def _column_dates(t: Table) -> dict[int, dt.date]:
    """The date each fiscal-year column is headed with: in its header, or — a header set on two lines, the month
    and day above the year, read into the title — the title's month-days, one per column, with the column's year."""
    cols = {i: c for i, c in enumerate(t.columns) if not c.is_change and c.fiscal_period in (None, "FY")
            and c.fiscal_year}
    dated = {i: ds[-1] for i, c in cols.items() if (ds := dates_in(c.header))}
    if dated or not cols:
        return dated
    pairs = _MONTH_DAY.findall(t.title)
    if len(pairs) != len(t.columns):
        return {}
    out = {}
    for i, c in cols.items():
        month, day = month_number(pairs[i][0]), int(pairs[i][1])
        try:
            out[i] = dt.date(c.fiscal_year or 0, month or 0, day)
        except ValueError:
            continue
    return out


def _cell_period(table: Table, cell: TableCell, doc: DocumentMeta, quarters: dict[int, str] | None = None,
                 ) -> str | None:
    return None if cell.column is None else _column_period(table, cell.column, doc, quarters)


def _column_period(table: Table, i: int, doc: DocumentMeta, quarters: dict[int, str] | None = None) -> str | None:
    if i >= len(table.columns):
        return None
    if quarters and i in quarters:
        return quarters[i]
    col = table.columns[i]
    if col.is_change or not col.fiscal_year:
        return None
    if doc.fiscal_year and col.fiscal_year > doc.fiscal_year:
        return None  # a schedule of years to come (maturities, commitments): no period's history yet
    period = col.fiscal_period
    if period is None and doc.fiscal_period not in (None, "FY"):
        return None  # a bare year in a quarter's report: which span, it does not say
    return period_label(col.fiscal_year, period)


def observations(doc: DocumentMeta, tables: Iterable[Table]) -> list[_Obs]:
    """Every value of a document's tables that has a period, once per (topic, label, period): a row printed twice
    (a statement split over two pages) keeps its first print."""
    out: dict[tuple[tuple[str, str], str], _Obs] = {}
    tables = list(tables)
    default = document_scale(tables)
    for t, topics in zip(tables, row_topics(tables), strict=True):
        if rolls_forward(t):
            continue
        between = per_share_between(t)
        for i, (row, topic) in enumerate(zip(t.rows, topics, strict=True)):
            _row_obs(doc, t, topic, row, out, default, per_share=i in between)
    return list(out.values())


def per_share_between(t: Table) -> set[int]:
    """The rows of a reconciliation from one per-share line to another ("Diluted EPS", the adjustments, "Non-GAAP
    diluted EPS"): rows between two per-share rows whose amounts are no larger than theirs are per share too (a
    count of shares between them is not)."""
    marks = [i for i, r in enumerate(t.rows) if _PER_SHARE.search(r.label_path)]
    out: set[int] = set()
    for a, b in zip(marks, marks[1:]):
        top = max((abs(c.value) for i in (a, b) for c in t.rows[i].cells), default=0.0)
        for i in range(a + 1, b):
            r = t.rows[i]
            if r.cells and all(abs(c.value) <= top for c in r.cells) and not _SHARE_COUNT.search(r.label_path):
                out.add(i)
    return out


def rolls_forward(t: Table) -> bool:
    """A roll-forward read under columns of periods: two or more rows date themselves to different years ("Balance
    at December 31, 2020", "Balance at December 31, 2021"), so its periods are in its rows and its columns are
    components (segments, equity accounts) whose header was not read. No cell of it has the period of its column."""
    if not any(c.fiscal_year for c in t.columns):
        return False
    years = {d.year for r in t.rows for d in dates_in(r.label)}
    return len(years) >= 2


CURRENCIES = {"USD", "EUR", "GBP", "CHF"}
# a row under a per-share heading ("Net income per common share › Basic"), or a count of shares, is no amount of
# money in the table's scale even when its cell carries the currency sign: its row, with its parents, says so
_PER_SHARE = re.compile(r"\bper (?:common |ordinary |diluted |basic )?share\b|\beps\b", re.I)
_SHARE_COUNT = re.compile(r"\b(?:weighted[- ]average|number of)\b[^›]*\bshares\b|\bshares (?:outstanding|issued)\b",
                          re.I)
DEFAULT_SHARE = 0.8  # of a document's money tables that state a scale, this share states the same one


def document_scale(tables: list[Table]) -> tuple[float, float] | None:
    """The scale a document states for its money tables ("in millions" on its statements and notes) when nearly
    all that state one agree, and the largest amount those print (in units): a money table that states none (a
    note whose page prints only "$") is in that scale too, unless that would make an amount ten times the largest
    the document prints (an exhibit in whole dollars)."""
    stated = [t for t in tables if t.scale > 1 and (t.unit or "") in CURRENCIES]
    if len(stated) < 3:
        return None
    scale, n = Counter(t.scale for t in stated).most_common(1)[0]
    if n < DEFAULT_SHARE * len(stated):
        return None
    largest = max((abs(c.value * c.scale) for t in stated if t.scale == scale for r in t.rows for c in r.cells
                   if (c.unit or "") in CURRENCIES), default=0.0)
    return (scale, largest) if largest else None


def _row_obs(doc: DocumentMeta, t: Table, topic: str, row: TableRow, out: dict,
             default: tuple[float, float] | None = None, per_share: bool = False) -> None:
    key = (_norm(topic), _norm(row.label_path))
    if not key[1]:
        return
    if (dates_in(row.label_path) or _PERIOD_LABEL.fullmatch(row.label)) and \
            len({c.fiscal_year for c in t.columns if c.fiscal_year}) >= 2:
        return  # a row that dates itself ("June 30, 2023 › U.S. agency securities", "Fiscal 2024") under years
    src = Source(doc.document_id, doc.file_name, row.page, t.title[:200], row.text[:300], later_key(doc))
    quarters = quarter_columns(t, doc)
    named = same_period_columns(t, {i: _column_period(t, i, doc, quarters) for i in range(len(t.columns))})
    for cell in row.cells:
        period = _cell_period(t, cell, doc, quarters)
        if period and cell.column in named:
            # one of several columns of this period ("Level 1 | Level 2 | Total" under each year): its own measure
            sub = (_norm(topic), _norm(f"{row.label_path} ({named[cell.column]})"))
            if (sub, period) not in out:
                out[(sub, period)] = _Obs(sub, topic, f"{row.label_path} ({named[cell.column]})", period,
                                          _value(t, row, cell, src, default, per_share))
            continue
        if period and (key, period) not in out:
            out[(key, period)] = _Obs(key, topic, row.label_path, period, _value(t, row, cell, src, default, per_share))


_PERIOD_LABEL = re.compile(r"(?:fiscal\s+(?:year\s+)?|fy\s?)?(?:19|20)\d{2}", re.I)  # "Fiscal 2024", "2025"


def same_period_columns(t: Table, periods: dict[int, str | None]) -> dict[int, str]:
    """The columns that share their period (`periods`, by column) with another column of the table, each with its
    name: the header's words beside the period ("Level 1"), else its place among them ("column 2 of 4")."""
    by: dict[str, list[int]] = defaultdict(list)
    for i, p in periods.items():
        if p:
            by[p].append(i)
    out = {}
    for cols in by.values():
        if len(cols) < 2:
            continue
        for j, i in enumerate(cols):
            words = re.sub(r"\b(?:19|20)\d{2}\b|" + MONTH + r"\s*\d{0,2},?", " ", t.columns[i].header, flags=re.I)
            words = " ".join(words.split()).strip(" ,")
            out[i] = words if words and sum(1 for k in cols if t.columns[k].header == t.columns[i].header) == 1 \
                else f"column {j + 1} of {len(cols)}"
    return out


def _value(t: Table, row: TableRow, cell: TableCell, src: Source, default: tuple[float, float] | None,
           per_share: bool) -> Value:
    """A cell as a history value: the document's scale for money a table states none for, and per-share and share
    units its row names."""
    scale = cell.scale
    if default and t.scale == 1 and scale == 1 and (cell.unit or "") in CURRENCIES \
            and abs(cell.value) * default[0] <= 10 * default[1]:
        scale = default[0]
    unit = cell.unit or (t.unit if cell.scale == t.scale else None)  # a row the scale line excepts: none
    if unit in CURRENCIES and (per_share or _PER_SHARE.search(row.label_path)):
        unit, scale = f"{unit}/share", 1.0
    elif unit in CURRENCIES and _SHARE_COUNT.search(row.label_path) and "$" not in cell.raw:
        unit = "shares"
    return Value(cell.value, cell.raw, unit, scale, src)


def build_history(title: str, docs: list[tuple[DocumentMeta, list[Table]]], embed: Embed | None = None,
                  same_meaning: float = SAME_MEANING) -> History:
    """The history of these documents' tables (one issuer's filings, or one report)."""
    obs_by_doc = {d.document_id: observations(d, ts) for d, ts in docs}
    groups: dict[tuple[str, str], list[_Obs]] = defaultdict(list)
    for obs in obs_by_doc.values():
        for o in obs:
            groups[o.key].append(o)
    groups = _merge_by_leaf(groups)
    merged = _merge_by_meaning(groups, embed, same_meaning) if embed is not None else {k: [k] for k in groups}
    measures = [_measure(i, [o for k in keys for o in groups[k]]) for i, keys in enumerate(merged.values())]
    measures.sort(key=lambda m: (_topic_rank(m.topic), min(c.value.source.page for c in m.cells.values()),
                                 m.measure_id))
    periods = sorted({p for m in measures for p in m.cells}, key=period_order)
    return History(title, sorted((d for d, _ in docs), key=later_key), periods, measures)


def _topic_rank(topic: str) -> int:
    return STATEMENTS.index(topic) if topic in STATEMENTS else len(STATEMENTS)


def _measure(i: int, obs: list[_Obs]) -> Measure:
    obs = sorted(obs, key=lambda o: o.value.source.later)
    latest = obs[-1]
    m = Measure(i, latest.topic, latest.label_path, tuple(dict.fromkeys(o.label_path for o in reversed(obs))))
    by_period: dict[str, list[Value]] = defaultdict(list)
    for o in obs:
        by_period[o.period].append(o.value)
    scales = Counter(o.value.scale for o in obs)
    usual = scales.most_common(1)[0][0]
    sizes = sorted(abs(o.value.scaled) for o in obs if o.value.scale == usual and o.value.value)
    typical = sizes[len(sizes) // 2] if sizes else 0.0
    for period, values in by_period.items():
        values = _usual_scale(values, usual, typical)
        m.cells[period] = HistoryCell(period, values[-1], values[:-1])
    return m


def _usual_scale(values: list[Value], usual: float, typical: float) -> list[Value]:
    """A value that states no scale is in the measure's usual scale when its own table's unit line was misread:
    it has the same digits as a value in the usual scale ("30,274" in units beside "30,274" in millions is not a
    restatement), or only the usual scale puts it within ×10 of the measure's typical size
    (one line's values over a few years are of one order of magnitude: 30,871 dollars of net sales beside 31,821
    million is 30,871 million)."""
    digits = {v.value for v in values if v.scale == usual}

    def fits(size: float) -> bool:
        return typical > 0 and 0.1 <= size / typical <= 10

    # only a value that states no scale takes the usual one: a scale the table states is kept
    return [replace(v, scale=usual) if v.scale == 1 and usual > 1 and v.value and
            (v.value in digits or (fits(abs(v.value * usual)) and not fits(abs(v.scaled)))) else v for v in values]


def _leaf(key: tuple[str, str], obs: list[_Obs]) -> str:
    return _norm(obs[0].label_path.split(" › ")[-1])


def _merge_by_leaf(groups: dict[tuple[str, str], list[_Obs]]) -> dict[tuple[str, str], list[_Obs]]:
    """A statement's rows of two documents with the same label under other parent rows (a parent row read as the
    table's title in one year) are one measure — unless some document prints that label twice in the statement
    (an "Other" under assets and under liabilities): then the label alone does not name one line."""
    by_leaf: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for k, obs in groups.items():
        if obs[0].topic in STATEMENTS:
            by_leaf[(k[0], _leaf(k, obs))].append(k)
    out = dict(groups)
    for keys in by_leaf.values():
        if len(keys) < 2:
            continue
        per_doc = Counter(d for k in keys for d in {o.value.source.document_id for o in groups[k]})
        if max(per_doc.values()) > 1:
            continue
        first = max(keys, key=lambda k: max(o.value.source.later for o in groups[k]))  # the latest print's path
        out[first] = [o for k in keys for o in groups[k]]
        for k in keys:
            if k != first:
                del out[k]
    return out


# -- merging by meaning --------------------------------------------------------------------------------------------

def _significant(v: Value) -> bool:
    """A value that two rows share by coincidence rarely: three or more digits, not zero."""
    return v.value != 0 and len(re.sub(r"\D", "", v.raw)) >= 3


def _merge_by_meaning(groups: dict[tuple[str, str], list[_Obs]], embed: Embed,
                      same_meaning: float) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Union of groups whose labels agree in meaning, that share a value in a period, and that no document prints
    both of."""
    keys = list(groups)
    docs = {k: {o.value.source.document_id for o in groups[k]} for k in keys}
    by_value: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    for i, k in enumerate(keys):
        for o in groups[k]:
            if _significant(o.value):
                by_value[(o.topic if o.topic in STATEMENTS else "", o.period, round(abs(o.value.scaled)))].append(i)
    pairs = {(a, b) for ids in by_value.values() for a in set(ids) for b in set(ids) if a < b}
    pairs = {(a, b) for a, b in pairs if not docs[keys[a]] & docs[keys[b]]}
    parent = list(range(len(keys)))
    if pairs:
        texts = [groups[k][0].label_path for k in keys]
        used = sorted({i for p in pairs for i in p})
        vec = dict(zip(used, _unit(embed([texts[i] for i in used])), strict=True))
        scored = sorted(((float(vec[a] @ vec[b]), a, b) for a, b in pairs), reverse=True)
        members = {i: {i} for i in range(len(keys))}
        for cos, a, b in scored:
            ra, rb = _root(parent, a), _root(parent, b)
            if cos < same_meaning or ra == rb:
                continue
            if any(docs[keys[x]] & docs[keys[y]] for x in members[ra] for y in members[rb]):
                continue
            parent[rb] = ra
            members[ra] |= members.pop(rb)
    out: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for i, k in enumerate(keys):
        out[keys[_root(parent, i)]].append(k)
    return out


def _root(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
