"""Tables as records, and the facts derived from them. `read_tables` reads every table of a document (a financial
statement, a KPI table, a paper's results table) into a `rag.records.Table`: its title, unit and scale, its columns
with the period each reads as, and its rows with their label paths and cells (each value with the sign of its
parentheses, its unit and scale from the cell, the row, the table's header, caption or unit line). `facts_of_table`
makes each value cell a fact; `extract_facts` is the two in turn.

Pure functions over the lines of a document's chunks in order (the layout step writes a table row's cells as
"label | v1 | v2" and a header row as "(Millions) | 2023 | 2022"; `rag/ingest/gridless.py` rewrites the rows of a
table the layout broke apart), so the same code reads a document at ingestion and a stored document's chunks again
(`rag facts --rebuild --reread`). A table continued on the next page (or in the next chunk) keeps its header, unit
and parent rows until prose ends it."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from rag.domain import MONTH, dates_in, periods_in
from rag.quantities import DASH, DASHES, Cell, currency_of, read_cell, scale_of, unit_of  # noqa: F401
from rag.records import Fact, FactRow, Table, TableCell, TableColumn, TableRow
from rag.statements import statement_of_title

_PER_SHARE = re.compile(r"per (common |ordinary |diluted |basic )?share|\beps\b|dividends? (declared|paid) per", re.I)
_PERCENTISH = re.compile(r"\b(margin|rate|ratio|percent|percentage|share of|in %|as a % of|% of)\b|%", re.I)
_COUNTISH = re.compile(r"\b(number of|employees|headcount|stores|locations|shares outstanding|customers|patents?|"
                       r"(?<!per )shares\b)", re.I)
# in a table of amounts, a counted word that is the object of an amount ("Proceeds from stock issued to employees",
# "Payments to customers") does not make the row a count; "Worldwide employees", "Number of stores" stay counts
_COUNTED_OBJECT = re.compile(r"\b(?:to|from|for|by|with|under|on|of)\s+(?:\w+\s+){0,2}(?:employees|headcount|stores|"
                             r"locations|shares|customers|patents?)\b", re.I)

# -- headers -------------------------------------------------------------------------------------------------------
_DATE = re.compile(rf"\b({MONTH})\s+(\d{{1,2}}),?\s+((?:19|20)\d{{2}})\b|\b(\d{{1,2}})[./]\s?(\d{{1,2}})[./]\s?((?:19|20)\d{{2}})\b"
                   rf"|\b(\d{{1,2}})\s+({MONTH})\s+((?:19|20)\d{{2}})\b", re.I)
_YEAR = re.compile(r"(?<![\d,.])(?:fy|fiscal(?: year)?|cy)?\s?'?((?:19|20)\d{2})(?![\d,])", re.I)
_CHANGE = re.compile(r"[∆Δ]|\b(change|chg\.?|var\.?|variance|vs\.?|versus|increase|decrease|growth|delta|y/y|yoy|"
                     r"better|worse)\b|^\s*%\s*$|(?:19|20)\d{2}\s*/\s*(?:19|20)?\d{2}|^[+\-–]?\s*%", re.I)
_PERIOD_WORD = re.compile(r"\b(19|20)\d{2}\b|\bfy\s?'?\d{2}\b|\bq[1-4]\b|\b[1-4]q\b|\b(three|six|nine|twelve|thirteen|"
                          r"twenty|fifty)[- ](months|weeks)\b|\b\d{2} weeks\b|\bquarter\b|\bfiscal\b|\byear\b|\bended\b|"
                          rf"\b{MONTH}\s+\d{{1,2}}\b|\bchange\b|\bvs\.?\b|\b(ytd|h[12]|9m|ltm|ttm)\b", re.I)
_QUARTER_CTX = re.compile(r"\b(three months|thirteen weeks|13 weeks|quarter|fourth quarter|q[1-4]|[1-4]q)\b", re.I)
_HALF_CTX = re.compile(r"\b(six months|26 weeks|twenty-six weeks|first half|h1)\b", re.I)
_NINE_CTX = re.compile(r"\b(nine months|39 weeks|thirty-nine weeks|9m)\b", re.I)
_YEAR_CTX = re.compile(r"\b(twelve months|52 weeks|53 weeks|fifty-two weeks|fifty-three weeks|fiscal year|year ended|"
                       r"years ended|full year|fy)\b", re.I)
_PROSE_WORDS = 25
_GENERIC_STUB = re.compile(r"\b(key figures?|units?|kpis?|indicators?|metrics?|items?|descriptions?|ended|fiscal|"
                           r"periods?|years?|months|quarters?|weeks|as of|at|dates?|in|total|methods?|models?|approach(?:es)?|"
                           r"baselines?|datasets?|systems?)\b", re.I)
_TOTAL = re.compile(r"^\s*(total|net|sum)\b", re.I)


@dataclass
class SourceLine:
    """One line of a document's chunks, in reading order."""
    text: str
    page: int
    chunk_index: int
    heading: str = ""


@dataclass
class DocContext:
    """What the document's metadata says about its periods."""
    fiscal_year: int | None = None
    fiscal_period: str | None = None  # FY | Q1..Q4
    doc_type: str | None = None

    @property
    def quarterly(self) -> bool:
        return bool(self.fiscal_period and self.fiscal_period.startswith("Q")) and self.doc_type != "10-K"


_UNIT_LINE = re.compile(r"^\W*(?:amounts?\s+|figures?\s+|all\s+|shares\s+)?(?:(?:are\s+)?(?:stated|shown|expressed|presented)\s+)?"
                        r"(?:[$€£]\s+and\s+\w+\s+)?"
                        r"(?:(?:u\.?s\.?\s+)?dollars\s+)?(?:in\s+)?(?:[$€£]|usd|eur|gbp|chf)?\s*(?:in\s+)?"
                        r"(?:[$€£]|usd|eur|gbp|chf)?\s*"
                        r"(thousands?|millions?|billions?|mn|bn|mio|m\b|k\b|gj|tj|mwh|gwh|t\b|tonnes|t\s?co)", re.I)


def unit_line(text: str) -> bool:
    """A line that states the table's unit: '(in millions, except per share data)', '$ in thousands', 'in GJ'."""
    return len(text.split()) <= 10 and bool(_UNIT_LINE.match(text))



# -- headers -------------------------------------------------------------------------------------------------------
def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("|")]


def is_header_row(line: str) -> bool:
    """A table's header row: its cells (past the first) are periods or change columns, none a value."""
    if " | " not in line:
        return False
    cells = _cells(line)
    rest = [re.sub(r"\s?\(\d\)$|\s?\*+$", "", c) for c in cells[1:] if c]  # "2016(3)": a footnote mark
    if not rest or re.search(r"\d,\d{3}|\$\s?\d", line):
        return False
    periodish = sum(bool(_PERIOD_WORD.search(c) or _CHANGE.search(c)) for c in rest)
    values = sum(read_cell(c) is not None and not _YEAR.fullmatch(c.strip()) for c in rest)
    return values == 0 and periodish >= max(1, len(rest) - 1)


_GLUED = re.compile(r"((?:19|20)\d{2})(\d{1,2})")


def unglue_years(line: str) -> str:
    """A header's year with its footnote mark glued on ("20203 | 2021 | 2022": 2020, note 3) as the year: only in a
    line of years and names, and only where the next or the previous cell is the year beside it."""
    cells = _cells(line)
    if " | " not in line or re.search(r"\d,\d{3}|\d\.\d|[$€£%]", line):
        return line
    years = [int(c) if _YEAR.fullmatch(c) and c.isdigit() else None for c in cells]
    out = list(cells)
    for i, c in enumerate(cells):
        m = _GLUED.fullmatch(c)
        if m:
            y = int(m.group(1))
            near = {years[j] for j in (i - 1, i + 1) if 0 <= j < len(cells)}
            if y + 1 in near or y - 1 in near:
                out[i] = m.group(1)
    return " | ".join(out) if out != cells else line


def _lower_header(t: _Table, text: str, recent: list[str]) -> bool:
    """A header printed as stacked lines ("2023 | 2023" over "Merck thereof" over "GWh | 2020 | 2021 | 2022 | Group |
    Merck KGaA"): right under a header, with no row read since and only a few words between, a line of more
    columns — periods, then one or two columns named — is its lower level."""
    if not t.header_rows or not recent or recent[0] != t.header_rows[-1] or \
            not all(_short_plain(x) and not re.search(r"\d", x) for x in recent[1:]):
        return False
    rest = [c for c in _cells(text)[1:] if c]
    if len(rest) <= len([c for c in _cells(t.header_rows[-1])[1:] if c]) or re.search(r"\d,\d{3}|\$\s?\d", text):
        return False
    periods = [c for c in rest if _YEAR.fullmatch(c.strip())]
    names = rest[len(periods):]
    return len(periods) >= 2 and rest[: len(periods)] == periods and 1 <= len(names) <= 2 and \
        all(len(c.split()) <= 3 and c[:1].isupper() and not re.search(r"\d", c) for c in names)


_FOOTNOTE = re.compile(r"(?<=\s)\d{1,2}\)|\*+")


def plain_header(line: str) -> str | None:
    """A header printed without column gaps ('Key Figures Unit 2018 2019 1) 2020 2) Germany 2) Austria Sweden') as
    a header row ('Key Figures Unit | 2018 | 2019 | 2020 | Germany | Austria | Sweden'); None when it is not one."""
    if " | " in line or len(line.split()) > 16:
        return None
    t = _FOOTNOTE.sub(" ", " " + line).strip()
    years = list(re.finditer(r"(?<![\d,.])(?:FY\s?)?(?:19|20)\d{2}(?![\d,.%])", t))
    if len(years) < 2 or re.search(r"\d,\d{3}|\d\.\d|%|\$|€", t):
        return None
    if re.sub(r"(?:FY\s?)?(?:19|20)\d{2}", "", t).strip() and re.search(r"(?<![\w])\d", re.sub(
            r"(?:FY\s?)?(?:19|20)\d{2}", "", t)):
        return None  # other numbers: a sentence or a row, not a header
    stub = t[: years[0].start()].strip()
    tail = t[years[-1].end():].split()
    if any(not w[:1].isupper() for w in tail) or len(tail) > 5:
        return None
    between = [t[a.end(): b.start()].strip() for a, b in zip(years, years[1:])]
    if any(between):
        return None
    return " | ".join([stub] + [y.group(0) for y in years] + tail)


@dataclass
class Column:
    header: str
    period: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    is_change: bool = False
    date: dt.date | None = None
    derived: str | None = None  # "% of net sales": a ratio of the column before it


@dataclass
class Header:
    stub: str  # the first cell: often the unit ("(Millions, except per share amounts)", "in GJ")
    columns: list[Column]
    text: str


def _spread(top: list[str], n: int) -> list[str]:
    """A header row above another: each top cell spans an equal share of the n columns below, else the top cells
    sit over the rightmost columns."""
    if not top:
        return [""] * n
    if n % len(top) == 0:
        k = n // len(top)
        return [t for t in top for _ in range(k)]
    return [""] * max(0, n - len(top)) + top[-n:]


def _date_of(text: str) -> dt.date | None:
    """The first date a column's header writes ("December 31, 2022", "31.12.2023"), or None."""
    found = dates_in(text)
    return found[0] if found else None


def _kind_of(text: str) -> str | None:
    if _NINE_CTX.search(text):
        return "9M"
    if _HALF_CTX.search(text):
        return "H1"
    if _QUARTER_CTX.search(text):
        return "Q"
    if _YEAR_CTX.search(text):
        return "FY"
    return None


_BY_PART = re.compile(r"\b((?:19|20)\d{2})\s+by\s+(?:region|country|countries|segment|business|division|site|"
                      r"geograph\w*|market)", re.I)


def _period_cell(cell: str) -> bool:
    """A header cell that is only a period ("Q2 FY24", "FY2023", "2Q 2023", "H1 2023"): a column, not the stub."""
    c = cell.strip()
    return len(c.split()) <= 3 and bool(periods_in(c)) and not re.sub(
        r"\b(q[1-4]|[1-4]q|h[12]|9m|ytd|fy\s?'?\d{2}|fy|fiscal|(?:19|20)\d{2})\b", "", c, flags=re.I).strip(" '")


def _two_years(cell: str) -> list[str]:
    """A header cell of two years ("2015    2014"): two columns' years the layout glued together."""
    m = re.fullmatch(r"\s*((?:19|20)\d{2})\s+((?:19|20)\d{2})\s*", cell)
    return [m.group(1), m.group(2)] if m else [cell]


def read_header(rows: list[str], context: str, doc: DocContext) -> Header:
    """The columns of a table from its header rows (top first) and the short lines just above them
    ('Years ended December 31', 'Three Months Ended')."""
    cells = _cells(rows[-1])
    first = re.sub(r"\s?\(\d\)|\s?\d\)$|\s?\*+$", "", cells[0].strip())  # "2019(1)": a footnote mark
    first_is_column = bool(_YEAR.fullmatch(first)) or bool(_DATE.fullmatch(first)) or _period_cell(first)
    stub = "" if first_is_column else cells[0]
    cols = cells if first_is_column else cells[1:]
    while cols and re.fullmatch(r"\(\d{1,2}\)|\*+", cols[0].strip()):
        cols = cols[1:]  # "Valuation Assumptions | (1) | 2015 | 2014": the stub's footnote mark, not a column
    while cols and re.fullmatch(r"\s*units?\s*", cols[0], re.I):
        stub, cols = f"{stub} {cols[0]}".strip(), cols[1:]  # "Key Figures | Unit | 2018 | …": the unit column
    cols = [y for c in cols for y in _two_years(c)]
    texts = list(cols)
    for top in reversed(rows[:-1]):
        tc = _cells(top)
        if tc and not _PERIOD_WORD.search(tc[0]) and not _CHANGE.search(tc[0]):
            stub = f"{tc[0]} {stub}".strip()  # "($ in millions) | Three Months Ended | Six Months Ended"
            tc = tc[1:]
        tc = [c for c in tc if c] if len(tc) > len(cols) else tc
        for i, t in enumerate(_spread(tc, len(cols))):
            texts[i] = f"{t} {texts[i]}".strip() if t and t not in texts[i] else texts[i]
    columns = [Column(t) for t in texts]
    # periods
    dates = [_date_of(c.header) for c in columns]
    latest = max((d for d in dates if d), default=None)
    bare = [int(y) for c, d in zip(columns, dates) if d is None for y in _YEAR.findall(c.header)]
    for c, d in zip(columns, dates):
        _read_period(c, d, latest, context, doc, max(bare, default=None))
    by = _BY_PART.search(f"{context} {' '.join(rows)}")
    for c in columns:
        if c.period is None and not c.is_change and by and re.search(r"[A-Za-z]{3,}", c.header):
            # "2020 by region | Germany | Austria | Sweden": each region's column is of that year
            c.fiscal_year, c.fiscal_period, c.period = int(by.group(1)), "FY", f"FY{by.group(1)}"
    for i, c in enumerate(columns):
        if re.search(r"%\s*of\b|\bas a percent(age)? of\b|\bof (net )?(sales|revenues?)\b", c.header, re.I) and i > 0:
            c.derived = c.header
            prev = columns[i - 1]
            c.period, c.fiscal_year, c.fiscal_period, c.is_change = prev.period, prev.fiscal_year, \
                prev.fiscal_period, False
    return Header(stub, columns, " | ".join(rows))


def _read_period(c: Column, d: dt.date | None, latest: dt.date | None, context: str, doc: DocContext,
                 latest_year: int | None = None) -> None:
    h = c.header
    years = [int(y) for y in _YEAR.findall(h)]
    if _CHANGE.search(h) and (len(years) != 1 or re.search(r"\bchange\b|%|vs\.?|/", h, re.I)):
        c.is_change = True
        c.period = f"{years[0]} vs {years[1]}" if len(years) >= 2 else "change"
        return
    kind = _kind_of(h) or _kind_of(context)
    ps = periods_in(h)
    q = next((p for p in ps if p.quarter), None)
    if q is not None:
        c.fiscal_year, c.fiscal_period = q.year, q.quarter
        c.period = f"{q.quarter} FY{q.year}"
        return
    if d is not None:
        c.date = d
        if kind in ("Q", "H1", "9M") or (kind is None and doc.quarterly):
            # a quarter's columns: the latest is the document's own period, a year before it the same period
            if doc.fiscal_year and latest is not None and doc.quarterly:
                gap = (latest - d).days
                if gap < 20:
                    c.fiscal_year = doc.fiscal_year
                elif 340 < gap < 390:
                    c.fiscal_year = doc.fiscal_year - 1
            fp = {"Q": doc.fiscal_period if doc.quarterly else None, "H1": "H1", "9M": "9M"}.get(kind or "Q")
            c.fiscal_period = fp if c.fiscal_year else None
            c.period = f"{fp} FY{c.fiscal_year}" if c.fiscal_year and fp else d.strftime("%B %-d, %Y")
            return
        if doc.fiscal_year and latest is not None and not doc.quarterly and (latest - d).days % 365 < 20 \
                or (doc.fiscal_year and latest is not None and (latest - d).days % 365 > 345):
            c.fiscal_year = doc.fiscal_year - round((latest - d).days / 365.25)
            c.fiscal_period = "FY"
            c.period = f"FY{c.fiscal_year}"
        else:
            c.period = d.strftime("%B %-d, %Y")
        return
    if len(years) == 1:
        c.fiscal_year = years[0]
        if doc.quarterly and doc.fiscal_year and latest_year and 0 < doc.fiscal_year - latest_year <= 1:
            # a quarter's columns named by calendar year ("Three Months Ended December 31, | 2022 | 2021") in an
            # issuer whose fiscal year is named after the year it ends: the latest column is the document's year
            c.fiscal_year = years[0] + doc.fiscal_year - latest_year
        c.fiscal_period = "FY" if kind in (None, "FY") else (doc.fiscal_period if kind == "Q" and doc.quarterly
                                                            else kind if kind != "Q" else None)
        c.period = f"FY{c.fiscal_year}" if c.fiscal_period == "FY" else \
            (f"{c.fiscal_period} FY{c.fiscal_year}" if c.fiscal_period else str(years[0]))


# -- the table reader ----------------------------------------------------------------------------------------------
@dataclass
class _Table:
    header: Header | None = None
    header_rows: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)  # short lines just above the header
    title: str = ""
    parent: str = ""
    pending_label: str = ""
    unit_hint: str = ""  # unit / scale text above the table ("(in millions)", "in € million")
    currency: str | None = None
    row_unit: str = ""  # the row's own unit cell
    parent_before: str = ""  # the parent before the last label-only line (restored when that line was a wrapped label)
    wrapped: str = ""  # the label-only line just read as the first line of a lower-case row's label
    group_from_siblings: str = ""  # the parent to restore when the lower-case rows under that line end
    has_rows: bool = False
    below_header: list[str] = field(default_factory=list)  # plain lines between the header and the first row
    in_blocks: bool = False  # its rows hold several cells under each period (_sub_columns)
    unit_below: bool = False  # unit_hint is a unit line between rows: it names the unit of the rows below it


@dataclass
class _Read:
    """A table's rows read under one header (a header read again part-way starts another record)."""
    state: _Table
    header: Header | None
    unit: str | None  # the table's unit and scale, as stated when its first row was read
    scale: float
    rows: list[TableRow] = field(default_factory=list)
    caption: str = ""  # a caption set below the table ("Table 5: Results on …")

    def record(self, table_no: int) -> Table:
        cols = tuple(TableColumn(c.header, c.period, c.fiscal_year, c.fiscal_period, c.is_change)
                     for c in (self.header.columns if self.header else []))
        unit = self.unit or self.state.currency  # "(in millions)" over "$ 1,577": the currency its cells print
        return Table(self.caption or self.state.title, unit, self.scale, self.header.stub if self.header else "", cols,
                     tuple(percent_between(self.rows)), table_no=table_no)


def _all_percent(r: TableRow) -> bool:
    return bool(r.cells) and all(c.unit == "%" for c in r.cells)


def percent_between(rows: list[TableRow]) -> list[TableRow]:
    """A group printed with "%" on its first row and on its total only ("Sales change analysis:" / "Organic local
    currency | (7.5)%" / "Translation | (0.6)" / "Total sales change | (8.1)%"): the rows between, in the same
    group and printed without a currency sign, are percentages too (the print convention for signs)."""
    out = list(rows)
    for i, first in enumerate(rows):
        if not first.groups or not _all_percent(first) or (i > 0 and rows[i - 1].groups == first.groups):
            continue  # the group's first row
        j = i + 1
        while j < len(rows) and rows[j].groups == first.groups and not _all_percent(rows[j]):
            j += 1
        if j >= len(rows) or j == i + 1 or not _TOTAL.match(rows[j].label) or \
                rows[j].groups not in (first.groups, ()):
            continue
        for k in range(i + 1, j):
            if all(not currency_of(c.raw) and abs(c.value) < 100 for c in rows[k].cells):
                out[k] = replace(rows[k], cells=tuple(replace(c, unit="%", scale=1.0) for c in rows[k].cells))
    return out


def _short_plain(text: str) -> bool:
    return len(text.split()) <= 12 and not text.rstrip().endswith((".", ";", ":")) and " | " not in text


def _table_unit(t: _Table, heading: str) -> tuple[str | None, float]:
    """The table's unit and scale: from its header's first cell, the lines above it, its title or heading."""
    cols = " ".join(c.header for c in t.header.columns) if t.header else ""
    hint = " ".join(x for x in (t.header.stub if t.header else "", t.unit_hint, t.title, cols) if x)
    if t.unit_below:  # "In TJ" between the rows in GWh and the same rows in TJ
        hint = t.unit_hint
    scale = scale_of(hint) or scale_of(heading) or 1.0
    unit = currency_of(hint) or unit_of(hint)
    if unit is None and re.search(r"\bshares\s+in\s+(?:thousands|millions|billions)\b|"
                                  r"\b(?:thousands|millions|billions) of shares\b", hint, re.I):
        unit = "shares"  # "(Shares in millions)": a table of share counts
    return unit, scale


def _row_unit(label: str, cell: Cell, table_unit: str | None, table_scale: float, currency: str | None,
              col: Column | None, path: str = "") -> tuple[str | None, float]:
    if cell.unit == "%" or (col is not None and (col.derived or (col.is_change and "%" in col.header))):
        return "%", 1.0
    label_unit = None
    m = re.search(r"\(([^()]*)\)\s*$", label) or re.search(r"\bin ([^,;]+)$", label)
    span = re.fullmatch(r"\s*(?:in\s+)?(years|months|weeks|days)\s*", m.group(1), re.I) if m else None
    if span:
        return span.group(1).lower(), 1.0  # "Expected life of stock options (in years)": a span of time
    if m:
        label_unit = unit_of(m.group(1)) or currency_of(m.group(1)) or ("%" if "%" in m.group(1) else None)
    if _PER_SHARE.search(label):
        return f"{currency or table_unit or 'USD'}/share" if (currency or table_unit or "$" in cell.raw) else "per share", 1.0
    if label.rstrip().endswith("%"):
        label_unit = "%"
    unit = cell.unit or label_unit
    scale = cell.scale or (scale_of(m.group(1)) if m else None)
    if unit is None and re.search(r"\bin %|\(%\)|\bpercent", label, re.I):
        unit = "%"
    if unit == "%":
        return "%", 1.0
    if unit is None:
        amount = bool(currency or currency_of(table_unit or "")) and bool(_COUNTED_OBJECT.search(label)) and \
            not re.search(r"\bnumber of\b", label, re.I)  # in a table of amounts, an amount paid to the counted
        if _COUNTISH.search(path or label) and not currency_of(cell.raw) and not amount:
            unit = "shares" if re.search(r"shares", label, re.I) else \
                ("employees" if re.search(r"employees|headcount", label, re.I) else None)
            return unit, (scale or (table_scale if unit == "shares" else 1.0))
        unit = table_unit or currency
    return unit, scale or table_scale


def extract_facts(lines: Iterable[SourceLine], doc: DocContext | None = None) -> list[Fact]:
    """Every value of every table row in a document's lines: its tables read as records, each cell a fact."""
    return [f for tab in read_tables(lines, doc) for f in facts_of_table(tab)]


def facts_of_table(tab: Table) -> list[Fact]:
    """Each value cell of a table record as a fact: the row's label path, the column's header and period, the
    value with its unit and scale, and where it is printed."""
    out = []
    for r in tab.rows:
        for c in r.cells:
            col = tab.columns[c.column] if c.column is not None else None
            out.append(Fact(
                fact_id=0, document_id=0, chunk_id=None, label=r.label, label_path=r.label_path, col_header=col.header if col else "",
                period=col.period if col else None, fiscal_year=col.fiscal_year if col else None,
                fiscal_period=col.fiscal_period if col else None, is_change=bool(col and col.is_change),
                value=c.value, raw=c.raw, unit=c.unit, scale=c.scale, table_title=tab.title, row_text=r.text,
                page=r.page, chunk_index=r.chunk_index, col=c.position))
    return out


def read_tables(lines: Iterable[SourceLine], doc: DocContext | None = None) -> list[Table]:
    """The tables of a document's lines, in order, as records: title, unit and scale, columns with their periods,
    rows with their label paths and cells. A table continued on the next page or chunk stays one table."""
    doc = doc or DocContext()
    read: list[_Read] = []  # every table that has rows, in order
    t = _Table()
    recent: list[str] = []  # short plain lines since the last table row
    intro = ""  # the sentence that introduces the next table
    intro_scale = ""  # the scale the sentence before the next table states in brackets
    last_row = False  # the line before was a row of the table being read
    for ln in lines:
        text = ln.text.strip()
        if not text:
            continue
        after_row, last_row = last_row, False
        if after_row and read and read[-1].state is t and _CAPTION.match(text) and not _CAPTION.match(t.title):
            # "Table 5: Results on …" right under the rows of a table that has no caption above it: its caption,
            # set below it (as papers do), and the end of it; the next table's title is not this line
            read[-1].caption = text[:200]
            t, recent, intro = _Table(), [], ""
            continue
        cand = unglue_years(text) if _GLUED.search(text) else text  # changed only when it then reads as a header
        header_text = cand if is_header_row(cand) or _lower_header(t, cand, recent) else plain_header(text)
        if header_text is not None:
            # a scale the sentence before states holds for the tables that follow until prose ("The tables below …")
            t, intro = _with_scale(_on_header(t, header_text, recent, ln, doc, intro), t, intro_scale), ""
            recent = [header_text]
            continue
        if " | " in text:
            named = _named_header(text, t, recent)
            if named is not None:  # "Method Precision Recall F1" above "GPT-4o | 0.96 | 0.69 | 0.80"
                t = _on_header(t, named, recent[:-1], ln, doc, intro)
                intro = ""
                recent = [named]
            row = _row(text, t, recent)
            if row is not None:
                _add_row(read, t, row[0], row[1], text, ln)
                last_row = True
                if _TOTAL.match(row[0]):
                    t.parent = ""  # a total closes its group
            recent = [text]
            t.pending_label = ""
            continue
        inline = _inline_row(text, t)  # "Energy use 2,296,953 GJ 2,246,257 GJ …": a row without column gaps
        if inline is not None:
            _add_row(read, t, inline[0], inline[1], text, ln)
            last_row = True
            recent = [text]
            continue
        if _is_prose(text):
            t, recent = _Table(), []  # prose ends the table
            # the sentence that introduces the table: "The following unaudited pro forma …:", "Following are the
            # supplemental consolidated financial results … on an unaudited pro forma basis."
            intro = text if text.rstrip().endswith(":") or _INTRO.search(text) else ""
            intro_scale = next(iter(_bracketed_scales(text)), "")
            continue
        _on_plain(t, text)
        recent = (recent + [text])[-4:]
    return [x.record(i) for i, x in enumerate(read)]


_STUB_WORD = re.compile(r"(?:methods?|models?|approach(?:es)?|systems?|baselines?|datasets?|tasks?|settings?|"
                        r"variants?|names?|configurations?|setup)", re.I)
_MEASURE_CELL = re.compile(r"[A-Z][\w.@\-/%]*|[a-z]*[A-Z0-9][\w.@\-/%]*|\(?[%↑↓]\)?")


def _named_header(row: str, t: _Table, recent: list[str]) -> str | None:
    """A header of measure names above a results table's first row, printed with or without column gaps ("Method
    Precision Recall F1", "Model | EM | F1"): the last cells name the row's value columns, the first the stub.
    Only for a table without a header, and only when every column name is one capitalised word or an
    abbreviation (a group label above a row is not a header)."""
    if t.header is not None or not recent or (" | " not in recent[-1] and t.pending_label != recent[-1]):
        return None
    values = [c for c in _cells(row)[1:] if c]
    above = recent[-1].strip()
    if len(values) < 2 or _PERIOD_WORD.search(above) or \
            any(read_cell(c) is None and c not in DASH for c in values):
        return None
    gapped = " | " in above
    cells = [c for c in _cells(above) if c] if gapped else above.split()
    # a header printed with column gaps may name a column in a few words ("Crawler Recall"); without gaps each
    # column's name is one word
    if len(cells) < len(values) or len(cells) > len(values) + 3 or \
            not all(read_cell(c) is None and (all(_MEASURE_CELL.fullmatch(w) for w in c.split()) if gapped
                                              else _MEASURE_CELL.fullmatch(c)) and len(c.split()) <= 3
                    for c in cells[1:]):
        return None
    if len(cells) > len(values) + 1 and _STUB_WORD.fullmatch(cells[0]):
        # "Method Crawler Recall Precision": the stub is the one word; the others name the first column
        return " | ".join([cells[0], " ".join(cells[1: len(cells) - len(values) + 1])] + cells[len(cells) - len(values) + 1:])
    return " | ".join([" ".join(cells[: len(cells) - len(values)])] + cells[-len(values):])


def _is_prose(text: str) -> bool:
    words = len(text.split())
    numeric = len(re.findall(r"(?<![\w.])\(?[$€£]?\d[\d,.]*", text))
    # a long sentence with a few dates in it ("… as of the beginning of the fiscal year 2021 (i.e., December 27,
    # 2020).") is prose too; a row has more values than that for its words
    return (numeric < 3 or (words > 30 and numeric <= words / 8)) and \
        (words > _PROSE_WORDS or (text.rstrip().endswith(".") and words > 8))


def _on_header(t: _Table, text: str, recent: list[str], ln: SourceLine, doc: DocContext, intro: str = "") -> _Table:
    """A header row: under another one (a two-level header), the same one again (the table goes on), or a new
    table."""
    if t.header_rows and recent and recent[-1] == t.header_rows[-1]:
        t.header_rows.append(text)
    elif _lower_header(t, text, recent):  # the words between are the upper level's, not a group of rows
        t.header_rows.append(text)
        t.parent = t.pending_label = ""
    elif t.header_rows and text == t.header_rows[-1] and \
            not any(x.rstrip().endswith(":") or _INTRO.search(x) for x in recent[1:]):
        return t  # the same header again: the table goes on (unless a line introduced another table)
    else:
        rows = [text]
        if recent and _upper_header(recent[-1], text):
            rows, recent = [recent[-1], text], recent[:-1]  # "| Total | Total | Non-current | …" over the periods
        t = _Table(header_rows=rows, context=recent[-3:], title=_title(recent, ln.heading, intro),
                   unit_hint=" ".join(x for x in recent[-3:] if unit_line(x)))
        stated = [s for x in recent[-3:] if not unit_line(x) for s in _bracketed_scales(x)]
        _add_scale(t, stated[-1] if stated else "")  # "Consolidated Statements of Cash Flows (In thousands)"
    t.header = read_header(t.header_rows, " ".join(t.context), doc)
    stub = t.header.stub.strip()
    if stub and re.search(r"[A-Za-z]{3,}", stub) and not (scale_of(stub) or unit_of(stub) or currency_of(stub)) \
            and len(stub.split()) <= 8 and not t.parent and not _GENERIC_STUB.search(stub) \
            and not re.match(rf"\s*{MONTH}\s+\d", stub, re.I):
        t.parent = stub.rstrip(":")  # "Adjusted non-GAAP results | 2022 | 2023": the group the rows belong to
    return t


def _with_scale(new: _Table, old: _Table, stated: str) -> _Table:
    """A new table that states no scale takes the one the sentence before it stated ("… (in thousands).")."""
    if new is not old:
        _add_scale(new, stated)
    return new


def _add_scale(t: _Table, stated: str) -> None:
    """A scale stated near the table ("(In thousands)") is its scale, unless it already has one."""
    if stated and not scale_of(t.unit_hint):
        t.unit_hint = f"{t.unit_hint} {stated}".strip()


def _bracketed_scales(text: str) -> list[str]:
    """The scales a line states in brackets: "(In thousands)", "($ in millions)", "(Amounts in millions)"."""
    return [x for x in re.findall(r"\([^()]{0,60}\)", text) if scale_of(x)]


def _upper_header(above: str, header: str) -> bool:
    """A line of column names over a header of periods, cell for cell ("| Total | Total | Non-current | …" over
    "in € million | Dec. 31, 2023 | Dec. 31, 2022 | …"): an upper level of the header, not a row."""
    top, cells = _cells(above), _cells(header)
    names = [c for c in top[1:] if c]
    return " | " in above and len(top) == len(cells) and len(names) >= 2 and \
        not any(read_cell(c) is not None or _PERIOD_WORD.search(c) for c in names)


def _on_plain(t: _Table, text: str) -> None:
    """A short line without values: a unit under the header, a group label (the parent of the rows below it), or
    the first line of a wrapped label."""
    group = group_label(text)
    named = group != text and bool(re.search(r"[A-Za-z]{3,}", group))  # "Revenue ($ in millions)"
    if t.header is not None and not t.has_rows:
        t.below_header.append(text)
        _add_scale(t, next(iter(_bracketed_scales(text)), ""))  # "(Amounts in millions) Carrying Value Fair Value"
    if t.header is not None and not named and (unit_line(text) or (scale_of(text) and len(text.split()) <= 5)):
        # "(In millions)" under the header; "In TJ" between rows: the rows below are in that unit
        t.unit_hint = text if t.has_rows else f"{t.unit_hint} {text}".strip()
        t.unit_below = t.has_rows
        return
    unit = re.search(r"\([^()]*\)\s*$", text)
    if t.header is not None and unit and group and not text.endswith(group) and re.search(r"[A-Za-z]{3,}", group) \
            and (scale_of(unit.group(0)) or unit_of(unit.group(0)) or currency_of(unit.group(0))):
        t.unit_hint = f"{t.unit_hint} {unit.group(0)}".strip()  # "Revenue ($ in millions)": a group and its unit
    if t.header is not None and group and _short_plain(group.rstrip(":")) and not re.fullmatch(r"\(.*\)", group) \
            and not re.search(r"\d[\d,.]{2,}|[$€£%]", group) \
            and not _DATE.search(group) and not re.match(rf"\s*{MONTH}\s+\d", group, re.I):
        t.parent_before, t.parent = t.parent, group.rstrip(":")
    t.pending_label = text if _short_plain(text.rstrip(":")) else ""


_CAPTION = re.compile(r"^(?:table|tab\.)\s*[A-Z]?\d{1,3}[a-z]?\s*[:.|]", re.I)  # "Table 5:", "Tab. 2.", "Table A1:"
_INTRO = re.compile(r"^(?:the )?following (?:is|are|table)|\b(?:as follows|the table below|the following)\b", re.I)
_GRI = re.compile(r"(?:\s+(?:GRI\s+)?\d{3}\s?[-–]\s?\d{1,2}(?:\s*[a-z])?,?)+\s*$")  # "… 305–1, 305–2, 305-5"


def group_label(text: str) -> str:
    """A group line's label without what is not its name: the unit in brackets at its end ("Revenue ($ in
    millions)"), reporting-standard codes ("Energy Consumption in the Portfolio 302–1, 302–3") and footnote
    marks ("Heating consumption in the portfolio 3)")."""
    s = _GRI.sub("", text.strip())
    s = re.sub(r"\s+\d{1,2}\)(?=\s|$)", "", s)
    m = re.search(r"\s*\(([^()]*)\)\s*$", s)
    if m and (scale_of(m.group(0)) or unit_of(m.group(1)) or currency_of(m.group(1))
              or m.group(1).strip() in ("%", "in %")):
        s = s[: m.start()]
    return s.strip()


def _title(recent: list[str], heading: str, intro: str = "") -> str:
    """The table's title: a financial statement's title above it or in its heading first, else the sentence that
    introduces it ('The following table presents … :'), else the nearest line above it that is not a unit or a
    period, else the heading."""
    parts = [p.strip() for p in (heading or "").split("›") if p.strip()]
    for x in reversed(recent):
        if statement_of_title(x):
            return x[:200]
    if intro:
        return intro.rstrip(" :")[:200]
    for x in reversed(recent):
        if len(x.split()) > 4 and x.rstrip().endswith(":"):
            return x.rstrip(" :")[:200]  # "Subscription revenue by segment … were as follows:"
    for x in reversed(parts):
        if statement_of_title(x):
            return x[:200]
    for x in reversed(recent):
        if x.rstrip().endswith(".") or re.search(r"https?://|www\.", x):
            continue  # the end of a sentence ("agreements."), or a footnote's link, not a title
        if re.fullmatch(r"[\W\d]*(?:change|chg\.?|variance|increase|decrease|vs\.?)[\W\d]*", x, re.I):
            continue  # "% Change": a column's name, not the table's
        if not (scale_of(x) and len(x.split()) <= 5) and not _PERIOD_WORD.fullmatch(x.strip()) and len(x) > 3 \
                and not re.fullmatch(r"[\W\d]*(years?|months?|weeks?)?[\s\w,]*ended[\w\s,]*", x, re.I):
            return x[:200]
    return parts[-1][:200] if parts else ""


def _row(text: str, t: _Table, recent: list[str]) -> tuple[str, list[Cell | None]] | None:
    cells = _cells(text)
    first = read_cell(cells[0])
    if first is not None and not re.search(r"[A-Za-z]{3,}", cells[0]):
        label = t.pending_label or (recent[-1] if recent and _short_plain(recent[-1]) else "")
        vals = cells
    else:
        label, vals = cells[0], cells[1:]
    label = re.sub(r"\s+", " ", label).strip(" :")
    if t.pending_label and label and first is None and (label[0] in "(" or label[0].islower() or re.search(
            r"\b(per|of|from|in|at|to|for|and|by|with)$", t.pending_label.rstrip(":"), re.I)):
        # a label wrapped onto a second line: "Share of electric-powered vehicles sold" / "(ITS segment) | 91.1 %"
        if t.parent == t.pending_label.rstrip(":"):
            t.parent = t.parent_before
        t.wrapped = t.pending_label.rstrip(":")
        label = (t.pending_label[:-1] + label) if re.search(r"[a-z]-$", t.pending_label) else \
            f"{t.pending_label} {label}"
    else:
        _siblings(t, label, first is None)
    if not label or not re.search(r"[A-Za-z]", label):
        return None
    parsed = [read_cell(v) if v and v not in DASH and v.lower() not in ("n/a", "na", "n.a.", "nm", "—") else None
              for v in vals]
    if parsed and parsed[0] is None and vals[0] and (unit_of(vals[0]) or currency_of(vals[0])) and len(vals[0]) < 20:
        parsed, t.row_unit = parsed[1:], vals[0]  # a unit column ("t CO2e", "GJ", "EUR m")
    else:
        t.row_unit = ""
    if not any(parsed):
        return None
    return label, parsed


def _siblings(t: _Table, label: str, labelled: bool) -> None:
    """A second lower-case row under a label-only line ("Scope 2, indirect" / "market based | …" / "location based |
    …"): that line was not the first line of a wrapped label but the group of both rows; it stays their parent until
    a row in another style ends the group."""
    lower = labelled and bool(label) and label[0].islower()
    if lower and t.wrapped and not t.pending_label:
        t.group_from_siblings, t.parent = t.parent or " ", t.wrapped
        t.wrapped = ""
    elif not lower:
        if t.group_from_siblings:
            t.parent = t.group_from_siblings.strip()
        t.wrapped = t.group_from_siblings = ""


_INLINE_VALUE = re.compile(rf"(?:[+{DASHES}]\s?)?[$€£]?\s?\(?\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?\)?|(?:[+{DASHES}]\s?)?[$€£]?\s?\(?\d+(?:\.\d+)?\)?")


_PLACEHOLDER = r"(?:n/?a\.?|n\.a\.|k\.\s?a\.?|nm|n\.m\.|[-–—]{1,2})"  # a cell with no value: "n/a", "k.A.", "–"
# numbers that name rather than measure, in a row's label: "3.1 Purchased goods", "Scope 1: Direct emissions"
_NAMING_NUMBER = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+|\b(?:scopes?|categor(?:y|ies)|tiers?|levels?|phases?|stages?|"
                            r"notes?)\s*\d{1,2}(?:\.\d{1,2})?\b", re.I)


def _inline_row(text: str, t: _Table) -> tuple[str, list[Cell | None]] | None:
    """A row printed without column gaps ('Energy use 2,296,953 GJ 2,246,257 GJ 2,290,522 GJ +2.3 %') under a
    header: as many values (with their units) as the header has columns; a cell with no value ("k.A.", "n/a", "–")
    holds its column's place."""
    if t.header is None:
        return None
    n = len(t.header.columns)
    unit_alt = r"(?:\s?(?:%|million|billion|thousand|kt CO₂e|kt CO2e|t CO₂e|t CO2e|t|GJ|MWh|GWh|liters|litres|m³|m3)" \
               r"(?:\s(?:liters|litres|t|tonnes))?)?"
    rx = re.compile(rf"\s((?:{_INLINE_VALUE.pattern}){unit_alt}|{_PLACEHOLDER})(?=\s|$)", re.I)
    vals = [m for m in rx.finditer(" " + text)]
    if len(vals) < max(2, n - 1):
        return None
    vals = vals[-n:] if len(vals) >= n else vals
    rest = (" " + text)[vals[0].start():]
    if re.sub(rx, " ", rest).strip():
        return None  # words between the values: a sentence, not a row
    label = clean_label((" " + text)[: vals[0].start()].strip(" :"))
    if not re.search(r"[A-Za-z]{3,}", label) or len(label.split()) > 10 or \
            re.search(r"\d", _NAMING_NUMBER.sub(" ", label)[:-3]):
        return None
    cells = [None if re.fullmatch(_PLACEHOLDER, m.group(1).strip(), re.I) else read_cell(m.group(1).strip())
             for m in vals]
    values = sum(c is not None for c in cells)
    if values < max(2, n - 1) and not (values >= 1 and len(cells) == n):
        return None
    return label, cells


def clean_label(label: str) -> str:
    """A row label without its footnote marks and dot leaders: 'Number of employees6, *' → 'Number of employees',
    'Greenhouse gas emissions (Scope 3)5' → '… (Scope 3)', 'Data Center . . . .' → 'Data Center'."""
    label = re.sub(r"(?:\s?\.){3,}\s*$|(?:\s?\.){3,}(?=\s)", "", label)
    prev = None
    while prev != label:
        prev = label
        label = re.sub(r"(?<=[a-z]{3})\d{1,2}$|(?<=\))\s?\d{1,2}$|\s?\*+$|\s?,$|\s?\(\d\)$", "", label.strip())
        if label.count("(") < label.count(")"):
            label = re.sub(r"\s\d{1,2}\)$", "", label)  # "Emissions from communal areas 4)"
    return label.strip()


def _add_row(read: list[_Read], t: _Table, label: str, cells: list[Cell | None], row_text: str,
             ln: SourceLine) -> None:
    """A row of the table being read: its cells under their columns, each with its unit and scale."""
    table_unit, table_scale = _table_unit(t, ln.heading)
    for sub_label, sub_cells, sub in _sub_columns(label, cells, t):
        row = _row_record(sub_label, sub_cells, row_text, t, ln, table_unit, table_scale, sub)
        if row.cells:
            t.has_rows = True
            if not read or read[-1].state is not t or read[-1].header is not t.header or \
                    (t.unit_below and (read[-1].unit, read[-1].scale) != (table_unit, table_scale)):
                read.append(_Read(t, t.header, table_unit, table_scale))
            read[-1].rows.append(row)


_EXCEPT = re.compile(r"\bexcept(?:\s+for)?\s+([^()]+)", re.I)
_EXCEPT_FILLER = {"data", "amounts", "amount", "and", "the", "figures", "information", "where", "noted",
                  "otherwise", "stated", "indicated"}


def excepted(unit_text: str, label: str) -> bool:
    """A row the table's scale line leaves out by name: "(in thousands, except revenue per membership and
    percentages)" over "Average monthly revenue per paying membership", "(Amounts in millions, except per share
    and unit count data)" over "Unit counts › Walmart U.S.": every word of one excepted kind begins a word of the
    row's label."""
    m = _EXCEPT.search(unit_text)
    if not m:
        return False
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", label)]
    for kind in re.split(r",|\band\b|\bor\b", m.group(1)):
        need = [w.lower() for w in re.findall(r"[A-Za-z]+", kind) if w.lower() not in _EXCEPT_FILLER and len(w) > 2]
        if need and all(any(x.startswith(w[:5]) for x in words) for w in need):
            return True
    return False


def _with_shares(cells: list[Cell | None], n: int) -> bool:
    """Each of n values with its share beside it ("$3,642 | 100.0 % | $3,507 | 100.0 %")."""
    return n > 0 and len(cells) == 2 * n and all(c is not None and c.unit == "%" for c in cells[1::2]) and \
        any(c is not None and c.unit != "%" for c in cells[0::2])


def _blocks(cells: list[Cell | None], n: int) -> tuple[int, int] | None:
    """(k, m) when a row's cells are m leading cells (a range of useful lives, of maturities) then k under each of
    the header's n periods ("2022 | 2021" over "Gross | Accumulated amortization | Net" twice): the periods span k
    columns each. Every period's block must hold the same kinds of value (amounts, percentages) in the same
    places: "100 | 90 | 10 | 11 %" under "2022 | 2021" is two years and a change, not two blocks of two."""
    if n < 2 or _with_shares(cells, n):
        return None
    for m in (0, 1) if cells and cells[0] is None else (0,):  # a leading range ("9 - 20") reads as no value
        rest = cells[m:]
        if len(rest) <= n or len(rest) % n:
            continue
        k = len(rest) // n
        kinds = [tuple(None if c is None else c.unit == "%" for c in rest[p * k:(p + 1) * k]) for p in range(n)]
        if all(all(a is None or b is None or a == b for a, b in zip(kinds[0], x, strict=True)) for x in kinds[1:]):
            return k, m
    return None


def sub_column_names(lines: list[str], k: int, n: int) -> list[str]:
    """The names of the k columns under each of n periods, from the line(s) printed between the periods and the
    first row ("Carrying Value Fair Value Carrying Value Fair Value"): the words repeat once per period and split
    evenly into k names. Else the names are their places ("column 2 of 3"): a line whose words the layout
    interleaved cannot be split by reading it."""
    text = re.sub(r"\([^()]*\)", " ", " ".join(lines))
    words = text.split()
    if words and len(words) % n == 0:
        per = len(words) // n
        block = words[:per]
        if all(words[p * per:(p + 1) * per] == block for p in range(n)) and per % k == 0:
            w = per // k
            return [" ".join(block[j * w:(j + 1) * w]) for j in range(k)]
    # a stacked header glued line after line ("Accumulated Accumulated" over "Cost Amortization Net Cost
    # Amortization Net"): its last line names each column in a word, once per period
    tail = words[len(words) - k * n:] if len(words) >= k * n else []
    if tail and all(tail[p * k:(p + 1) * k] == tail[:k] for p in range(n)) and len(set(tail[:k])) == k:
        return tail[:k]
    return [f"column {j + 1} of {k}" for j in range(k)]


def _sub_columns(label: str, cells: list[Cell | None], t: _Table) -> list[tuple[str, list[Cell | None], str]]:
    """A row's cells as one row per column under each period (_blocks), each labelled with that column's name;
    else the row as it is."""
    periods = [c for c in (t.header.columns if t.header else []) if not c.is_change]
    if not t.header or len(periods) != len(t.header.columns):
        return [(label, cells, "")]
    # the columns under the periods are named between them and the first row; rows that spill past the periods
    # after rows that did not are another table's, read under this header
    found = _blocks(cells, len(periods)) if t.below_header and (t.in_blocks or not t.has_rows) else None
    if found is None:
        return [(label, cells, "")]
    t.in_blocks = True
    k, m = found
    names = sub_column_names(t.below_header, k, len(periods))
    if t.parent and any(group_label(x).rstrip(":") == t.parent for x in t.below_header[:1]):
        t.parent = ""  # the columns' names, read as a group of rows
    rest = cells[m:]
    return [(f"{clean_label(label)} ({names[j]})", [rest[p * k + j] for p in range(len(periods))], names[j])
            for j in range(k)]


def _index(columns: list[Column], col: Column) -> int:
    return next(j for j, c in enumerate(columns) if c is col)


def _align(cells: list[Cell | None], cols: list[Column]) -> tuple[list[Cell | None], list[Column], bool]:
    """A row's cells and the columns they are under, one for one, and whether they line up at all."""
    aligned = len(cells) == len(cols)
    periods = [c for c in cols if not c.is_change]
    if not aligned and periods and len(cells) == len(periods) < len(cols):
        cols = periods  # the change columns left empty
        aligned = True
    if not aligned and _with_shares(cells, len(cols)):
        # "Net sales | $3,642 | 100.0 % | $3,507 | 100.0 %" under "2022 | 2021": each value with its share of sales
        cells = cells[0::2]
        aligned = True
    changes = [c for c in cols if c.is_change]
    if not aligned and periods and changes and cols == periods + changes and \
            len(cells) == len(periods) + 2 * len(changes) and \
            _with_shares(cells[len(periods):], len(changes)):
        # "Revenues | $4,180 | $3,431 | $2,751 | $748 | 22 % | $680 | 25 %" under "2015 | 2014 | 2013 | 2015 vs.
        # 2014 | 2014 vs. 2013": each change column spans its amount and its percentage
        cols = periods + [c for c in changes for _ in range(2)]
        aligned = True
    if not aligned and cols and len(cells) > len(cols) and \
            all(c is None or _FOOTNOTE_MARK.fullmatch(c.raw.strip()) for c in cells[:len(cells) - len(cols)]):
        # stray pieces (a footnote mark read as a cell): keep the rightmost values under the columns. Amounts
        # beyond the columns are another table's, read under this header: they stay unplaced
        cells = cells[-len(cols):]
        aligned = True
    return cells, cols, aligned


_FOOTNOTE_MARK = re.compile(r"\(\d{1,2}\)|\d|\*+|\([a-z]\)")


def _row_record(label: str, cells: list[Cell | None], row_text: str, t: _Table, ln: SourceLine,
                table_unit: str | None, table_scale: float, sub: str = "") -> TableRow:
    cells, cols, aligned = _align(cells, t.header.columns if t.header is not None else [])
    currency = t.currency or next((c.unit for c in cells if c and c.unit in ("USD", "EUR", "GBP", "CHF")), None)
    if currency and not t.currency:
        t.currency = currency
    clean = clean_label(label)
    groups = (t.parent,) if t.parent and t.parent.lower() != clean.lower() else ()
    bracketed = clean.startswith("(") and clean.endswith(")")  # "(GHG emissions, market-based) | (146,107)"
    out = []
    for i, cell in enumerate(cells):
        if cell is None:
            continue
        if bracketed and cell.value < 0 and cell.raw.lstrip().startswith("("):
            cell = Cell(-cell.value, cell.raw, cell.unit, cell.scale)  # an alternative figure, not a negative one
        col = cols[i] if aligned else None
        if t.row_unit:
            unit, scale = (unit_of(t.row_unit) or currency_of(t.row_unit) or t.row_unit), (scale_of(t.row_unit) or 1.0)
            if "%" in t.row_unit or cell.unit == "%":
                unit, scale = "%", 1.0
        else:
            unit, scale = _row_unit(clean, cell, table_unit, table_scale, currency, col, " › ".join((*groups, clean)))
            if scale == table_scale != 1 and unit != "%" and not (unit or "").endswith("share") and \
                    excepted(" ".join((t.header.stub if t.header else "", t.unit_hint)), " ".join((*groups, clean))):
                unit, scale = (cell.unit or currency_of(cell.raw)), 1.0  # "(in thousands, except unit counts)"
        out.append(TableCell(cell.raw, cell.value, unit, scale, _index(t.header.columns, col) if col else None, i))
    return TableRow(clean, groups, tuple(out), ln.page, ln.chunk_index, row_text, sub)


def lines_of_chunks(chunks: Iterable) -> list[SourceLine]:
    """The lines of a document's chunks (objects with chunk_index, page_start, heading and content or text), in
    order. A line's page is its chunk's first page."""
    out = []
    for c in sorted(chunks, key=lambda c: c.chunk_index):
        text = getattr(c, "content", None) or getattr(c, "text", "")
        for line in text.splitlines():
            out.append(SourceLine(line, c.page_start, c.chunk_index, c.heading or ""))
    return out


def lines_of_units(chunks: Iterable) -> list[SourceLine]:
    """The lines of freshly cut chunks (rag.ingest.chunking.Chunk), each with the page of its unit; a table header
    repeated at the top of a chunk keeps the page of the chunk's first unit."""
    out = []
    for c in chunks:
        if not c.units:
            continue
        heading = " › ".join(c.heading_path)
        first = c.text.split("\n", 1)[0]
        if first != c.units[0].text.split("\n", 1)[0]:
            out.append(SourceLine(first, c.units[0].page, c.chunk_index, heading))
        for u in c.units:
            for line in u.text.splitlines():
                out.append(SourceLine(line, u.page, c.chunk_index, heading))
    return out


def _with_chunk(f: Fact) -> FactRow:
    row = f.to_row()
    row["chunk_index"] = f.chunk_index
    return row


def facts_by_chunk(facts: list[Fact]) -> dict[int, list[FactRow]]:
    """Facts as rows grouped by chunk index (the shape ingest_document reads)."""
    out: dict[int, list[FactRow]] = {}
    for f in facts:
        out.setdefault(f.chunk_index, []).append(f.to_row())
    return out


def rebuild(store, documents=None, progress=None, reread: bool = False) -> dict[str, int]:
    """Every stored document's table facts derived again from its stored tables (after the derivation changes), or,
    with `reread` or for a document stored before tables were (sql/migrations/001_baseline.sql (doc_tables)), its tables read again from its chunks'
    rows first (after the table reader improves). Each document's tables and facts are replaced in one
    transaction."""
    from types import SimpleNamespace

    docs = documents if documents is not None else store.list_documents()
    total = tables_read = 0
    for i, d in enumerate(docs):
        tables = [] if reread else store.document_tables(d.document_id)
        if not tables:
            chunks = [SimpleNamespace(**r) for r in store.document_chunks(d.document_id)]
            tables = read_tables(lines_of_chunks(chunks), DocContext(d.fiscal_year, d.fiscal_period, d.doc_type))
            tables_read += 1
        rows = [_with_chunk(f) for t in tables for f in facts_of_table(t)]
        total += store.replace_document_tables(d.document_id, tables, rows)
        if progress:
            progress(i + 1, len(docs))
    return {"documents": len(docs), "facts": total, "tables_read_from_text": tables_read}
