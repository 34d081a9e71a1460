"""The answer's first sentence, from the table facts: what the question asks (the measure, the entity, the period),
the fact that answers it (a table row's cell, scored by its label, its period and whether retrieval found its page),
or the metric computed from facts, with its formula. What it could not match is said, not guessed."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from rag.answer.fit import column_group
from rag.answer.labels import short_company
from rag.domain import month_number
from rag.metrics import Computation, format_metric, growth, label_rank, line_items, norm_label
from rag.quantities import SCALE_WORDS, numbers, scale_name
from rag.records import DocumentMeta, Fact
from rag.retrieve.measure import END_DATE, STATEMENT_WORDS, Ask, label_terms, synonyms
from rag.statements import statement_of_title
from rag.words import STOP as _STOP
from rag.words import terms as _all_terms

_PART_WORDS = set(_all_terms("""other others domestic international foreign restricted unrestricted non-current
noncurrent subscription product products services discontinued pro-forma forma intersegment eliminations corporate
unallocated""", set()))
_SEGMENT = re.compile(r"\b(segments?|divisions?|business units?|reportable)\b", re.I)
_SEGMENT_GENERIC = set(_all_terms("segment segments division divisions business unit units reportable results result "
                                  "operations operating information financial data summary total", set()))
BALANCES = {"total_assets", "current_assets", "current_liabilities", "cash", "short_term_investments",
             "receivables", "inventory", "accounts_payable", "total_equity"}
_EXCLUSIVE = [("location-bas", "market-bas"), ("basic", "dilut")]  # qualifiers that make another figure
_HYPOTHETICAL = re.compile(r"pro ?forma|supplemental|obligor|guarantor|as if|hypothetical", re.I)
_SHARE_Q = re.compile(r"\b(percent|percentage|share|ratio|rate|margin|%|proportion|portion)\b", re.I)
_OUTFLOW = re.compile(r"^(purchases?|payments?|repayments?|dividends|acquisitions?|additions?|capital expend)", re.I)


def _header_end(header: str) -> tuple[int, int, int | None] | None:
    m = END_DATE.search(header or "")
    month = month_number(m.group(1)) if m else None
    if not m or not month:
        return None
    return int(m.group(3)), month, int(m.group(2)) if m.group(2) else None


def _span_ok(f: Fact, span: str | None) -> bool:
    h = f.col_header or ""
    if span == "Q":
        return (f.fiscal_period or "").startswith("Q") or bool(re.search(r"three months|13 weeks|quarter", h, re.I))
    if span == "H1":
        return f.fiscal_period == "H1" or bool(re.search(r"six months|26 weeks", h, re.I))
    if span == "9M":
        return f.fiscal_period == "9M" or bool(re.search(r"nine months|39 weeks", h, re.I))
    return True


def dated_period_ok(f: Fact, ends: list[tuple[int, int, int | None]], span: str | None) -> bool | None:
    """Whether a fact's column is the dated period asked: its header's date is the one named (a few days either
    way: "June 2" and "June 3" end the same fiscal quarter a year apart), and its length the one asked. None when
    the column names no date."""
    end = _header_end(f.col_header)
    if end is None:
        return None
    same = any(end[0] == y and end[1] == mo and (d is None or end[2] is None or abs(end[2] - d) <= 3)
               for y, mo, d in ends)
    return same and _span_ok(f, span)


def _unit_covers(term: str, unit: str | None) -> bool:
    """A question's word that the fact's unit says: "CO2e" in "t CO2e", "MWh"."""
    return unit is not None and term.lower().replace("₂", "2") in {w.lower() for w in unit.split()}




@dataclass
class Scored:
    fact: Fact
    score: float
    recall: float  # the share of the measure's words the label has (or of the filings' words for them)
    period_ok: bool | None  # None: no period asked
    exact: bool = False  # every word of the measure, or the filings' words for it, is in the label
    reasons: list[str] = field(default_factory=list)


@lru_cache(maxsize=65536)
def spells(label: str, term: str) -> bool:
    """The label is the abbreviation spelled out: "Research and development" for R&D, "Selling, general and
    administrative" for SG&A."""
    letters = re.sub(r"[^a-z]", "", term.lower())
    if len(letters) < 2 or "&" not in term and len(letters) > 4:
        return False
    words = [w for w in re.findall(r"[A-Za-z]+", label) if w.lower() not in ("and", "of", "the", "expenses",
                                                                               "expense", "costs", "total", "net")]
    return "".join(w[0].lower() for w in words) == letters


def breakdown_column(f: Fact) -> bool:
    """A column that names a part (a region, a segment), not a period."""
    h = (f.col_header or "").strip()
    return bool(h) and not f.is_change and not re.search(r"(19|20)\d{2}|\b(fy|q[1-4]|h[12]|months?|weeks?|year|"
                                                          r"quarter|ended|change|%)\b", h, re.I)


def _names(text: str, part: str) -> bool:
    return bool(re.search(rf"\b{re.escape(part)}\b", text, re.I))


def _label_terms(f: Fact) -> tuple[set[str], set[str], set[str]]:
    """The row's own words, its parent rows' and its table title's."""
    own = set(label_terms(f.label))
    parents = set(label_terms(f.label_path)) - own
    return own, parents, set(label_terms(f.table_title)) - own - parents


def _period_fit(f: Fact, ask: Ask) -> tuple[bool | None, float]:
    """Whether the fact's column is the period asked (None: none asked), and what that adds to its score."""
    ends = ask.target_ends
    dated = dated_period_ok(f, ends, ask.span) if ends else None
    if dated is not None:
        return dated, (0.25 if dated else -0.4)  # "three months ended June 2, 2023": that date's column and length
    if not ask.years:
        return None, (-0.1 if f.is_change or f.fiscal_year is None else 0.0)
    targets = ask.years[-1:] if ask.change and len(ask.years) == 2 else ask.years
    if ask.dated and ask.span:  # a quarter named by its end date, in a column without one: its fiscal year
        targets = sorted(set(targets) | {y + 1 for y in targets})  # may be the next (Best Buy's July quarter)
    elif ask.dated and any(mo <= 3 for _, mo, _ in ask.ends):
        targets = sorted(set(targets) | {y - 1 for y in targets})  # a year ended in January: named either way
    ok = f.fiscal_year in targets and (ask.quarter is None or f.fiscal_period == ask.quarter) \
        and ((ask.quarter is not None or f.fiscal_period in ("FY", None)) if not ask.span or ask.quarter
             else _span_ok(f, ask.span))
    if ask.dated_as:  # the filings' dated columns say which fiscal period the date ends
        ok = (f.fiscal_year, f.fiscal_period) in ask.dated_as
        return ok, (0.25 if ok else -0.4)
    if ask.dated:  # a period named by its date, a column named by its fiscal period: which one it is is inferred
        return (None, 0.1) if ok else (False, -0.4)
    return ok, (0.25 if ok else -0.4)


def _kind_fit(f: Fact, ask: Ask, own: set[str], parents: set[str], title: set[str]) -> float:
    """Whether the row is the kind of figure asked: the part named (or the whole), not a change column, not a
    segment's or a pro forma table, not another Scope, the unit asked."""
    s = 0.0
    if breakdown_column(f):  # "Germany" beside "2020": a part of the year's figure
        s += 0.3 if any(_names(f.col_header, p) for p in ask.parts) else -0.15
    if ask.parts and any(_names(f"{f.label_path} {f.table_title}", p) for p in ask.parts):
        s += 0.15  # the part asked ("Commercial Airplanes", "Europe") in the row or its table
    if f.is_change and not ask.change:
        s -= 0.3
    if re.match(r"total\b", f.label, re.I):
        s += 0.05  # the whole, unless a part is asked (a part's own words then win on recall)
    asked_all = set(ask.terms) | ask.expansion
    parts = {t for t in own if t in _PART_WORDS} - asked_all
    if parts:
        s -= 0.1  # a part the question does not ask for: "Direct energy use", "restricted cash", "Subscription"
    elif {t for t in title | parents if t in _PART_WORDS} - asked_all:
        s -= 0.05  # … or a table of parts ("Subscription revenue by segment")
    if _SEGMENT.search(f"{f.table_title} {f.label_path}") and not _SEGMENT.search(ask.question) and \
            not (set(label_terms(f"{f.table_title} {f.label_path}")) - own - _SEGMENT_GENERIC) & asked_all:
        s -= 0.15  # a segment's table ("Flexibles Segment", "Domestic Segment Results") when the whole is asked
    for a, b in _EXCLUSIVE:
        if (a in asked_all and b in own) or (b in asked_all and a in own):
            s -= 0.5  # market-based when location-based is asked, basic when diluted is
    numbered = {t for t in own if re.fullmatch(r"(scope|tier|level|category)\d", t)} - asked_all
    if numbered:
        s -= 1.0  # Scope 2 when Scope 1 is asked: another measure
    asked_numbered = {t for t in ask.terms if re.fullmatch(r"(scope|tier|level|category)\d", t)}
    if asked_numbered and not asked_numbered & (own | parents):
        s -= 0.2  # Scope 1 asked, a row that names no Scope: all Scopes together, or another measure
    if statement_of_title(f.table_title):
        s += 0.05  # a primary statement's figure before a discussion table's
    if _HYPOTHETICAL.search(f.table_title) or _HYPOTHETICAL.search(f.label_path):
        s -= 0.3  # pro forma, supplemental, guarantor tables: not the reported figure
    if f.unit == "%" and not _SHARE_Q.search(ask.question) and not ask.metric:
        s -= 0.2  # a share when a quantity is asked
    if ask.unit and f.unit and f.unit != "%":
        s += 0.1 if f.unit == ask.unit else -0.2  # "in MWh": not the kWh/m² intensity
    return s


def score_fact(f: Fact, ask: Ask, retrieved: dict[int, float], docs: dict[int, DocumentMeta]) -> Scored:
    """How well a fact answers: its label against the measure's words, its period against the one asked, whether
    retrieval found its passage, the statement named, the issuer asked."""
    own, parents, title = _label_terms(f)
    if ask.parts and breakdown_column(f):
        own = own | set(label_terms(f.col_header))  # "Germany" in its column: the row's figure for that part
    want = [t for t in ask.terms]
    if not want:
        return Scored(f, 0.0, 0.0, None)
    # the filings' words for a finance term ("capex" → "purchases of property, plant and equipment") stand in for
    # the question's jargon that no label writes
    exp = len(own & ask.expansion) / len(ask.expansion) if ask.expansion else 0.0
    jargon = ask.jargon_terms
    w = lambda t: ask.weights.get(t, 1.0)
    hit = sum(w(t) * (1.0 if t in own or _unit_covers(t, f.unit) else
                      0.85 if synonyms(t) & own else
                      0.5 if t in parents or synonyms(t) & parents else
                      0.25 if t in title else (1.0 if spells(f.label, t) else 0.8 * exp) if t in jargon else 0.0)
              for t in want)
    recall = hit / sum(w(t) for t in want)
    label_words = [t for t in own if t not in _STOP]
    asked = set(want) | ask.expansion | {w for t in want for w in synonyms(t)}
    precision = len([t for t in label_words if t in asked]) / max(1, len(label_words))
    s = recall + 0.15 * precision
    reasons = [f"label covers {recall:.0%} of the measure's words"]
    period_ok, ds = _period_fit(f, ask)
    s += ds
    s += _kind_fit(f, ask, own, parents, title)
    if f.chunk_id in retrieved:
        s += 0.1 * retrieved[f.chunk_id]
        reasons.append("its page was retrieved")
    if ask.statement and STATEMENT_WORDS[ask.statement].search(f.table_title):
        s += 0.1
    d = docs.get(f.document_id)
    if ask.companies and d is not None and d.company_key not in ask.companies:
        s -= 0.5
    if d is not None and f.fiscal_year is not None and d.fiscal_year == f.fiscal_year:
        s += 0.03  # the period's own filing before a later one's comparative column
    exact = recall >= 0.79
    return Scored(f, s, recall, period_ok, exact=exact, reasons=reasons)


def own_recall(f: Fact, ask: Ask) -> float:
    """The share of the question's own words (or their synonyms) in the row's label and its parents."""
    own = set(label_terms(f.label_path))
    return sum(1 for t in ask.terms if t in own or synonyms(t) & own) / max(1, len(ask.terms))


def best_facts(facts: list[Fact], ask: Ask, retrieved: dict[int, float], docs: dict[int, DocumentMeta]
               ) -> list[Scored]:
    # jargon that some row's label writes itself ("EBITDA") is matched as written, not by the words for it
    labels = [set(label_terms(f.label)) for f in facts]
    # … unless another row's label is the spelled-out term itself ("Research and development" beside
    # "Capitalized R&D"): then both count
    jargon = [g for g in ask.jargon if any(spells(f.label, t) for t in g for f in facts)
              or not any(g <= lab for lab in labels)]
    # a word most rows have ("expense", "net") says less than one few rows have ("research")
    n = max(1, len(facts))
    df = {t: sum(1 for f in facts if t in set(label_terms(f.label_path + " " + f.table_title))) for t in ask.terms}
    weights = {t: math.log(1 + n / (1 + df[t])) for t in ask.terms if df[t]}
    # a word no candidate row has tells no row from another: it weighs a little more than the others (its absence
    # still counts), not most of all
    mean = sum(weights.values()) / len(weights) if weights else 1.0
    weights.update({t: 1.5 * mean for t in ask.terms if not df[t]})
    ends = ask.target_ends
    dated_as = frozenset((f.fiscal_year, f.fiscal_period) for f in facts if ends and f.fiscal_year
                         and dated_period_ok(f, ends, ask.span))
    ask = replace(ask, jargon=jargon, weights=weights, dated_as=dated_as)
    scored = [score_fact(f, ask, retrieved, docs) for f in facts]
    # the whole is larger than its parts: among rows of one table and period, and among rows of one label and
    # period in one document (a segment's total revenue before its subscription revenue)
    company = lambda f: docs[f.document_id].company_key if f.document_id in docs else f.document_id
    for key in (lambda f: (f.chunk_id, f.fiscal_year, f.fiscal_period, f.unit),
                lambda f: (company(f), norm_label(f.label), f.fiscal_year, f.fiscal_period, f.unit)):
        biggest: dict[tuple, float] = {}
        for x in scored:
            biggest[key(x.fact)] = max(biggest.get(key(x.fact), 0.0), abs(x.fact.scaled))
        for x in scored:
            if biggest[key(x.fact)]:
                x.score += (0.03 if len(key(x.fact)) == 4 else 0.1) * abs(x.fact.scaled) / biggest[key(x.fact)]
    scored.sort(key=lambda x: (-x.score, x.fact.document_id, x.fact.fact_id))
    return scored


def same_row(f: Fact, facts: list[Fact]) -> list[Fact]:
    """The other cells of a fact's row in its own series (other periods, the change column): under a column named
    like the fact's ("Germany 2022" for "Germany 2023"). A column named right after the run of bare periods
    continues it ("2020 | 2021 | 2022 | 2023 Group"); a column further on is a part ("2023 thereof Parent AG") and
    is never compared with the whole's earlier years."""
    row = [x for x in facts if x.chunk_id == f.chunk_id and x.row_text == f.row_text and x.fact_id != f.fact_id]
    group = column_group(f.col_header)
    mine = [x for x in row if column_group(x.col_header) == group]
    bare = [x for x in row if not column_group(x.col_header) and not x.is_change]
    if group and bare and not any(x.fiscal_year for x in mine) and f.col == max(x.col for x in bare) + 1:
        mine += bare
    return mine


# -- wording ----------------------------------------------------------------------------------------------------------
def money(f: Fact, value: float | None = None) -> str:
    """A fact's value as an analyst writes it: '$66,608 million', '2,296,953 GJ', '15.9%', '$8.89 per share'."""
    v = f.value if value is None else value
    unit = f.unit or ""
    neg = v < 0
    v = abs(v)
    printed = [n for n in (numbers(f.raw) if value is None else []) if abs(n.value / n.scale - v) <= 1e-9 * max(1.0, v)]
    if printed:  # the value as the document prints it: its decimals kept ("0.5798", "1,772.6", "15.02")
        num = f"{v:,.{min(printed[0].decimals, 6)}f}"
    else:
        num = f"{v:,.0f}" if v == int(v) and v >= 100 else f"{v:,.2f}".rstrip("0").rstrip(".") if v < 100 \
            else f"{v:,.1f}"
    scale = f" {scale_name(f.scale)}".rstrip()
    sign = "-" if neg else ""
    if unit == "%":
        return f"{sign}{num}%"
    cur = {"USD": "$", "EUR": "€", "GBP": "£"}.get(unit.split("/")[0], "")
    if unit.endswith("/share"):
        return f"{sign}{cur}{num} per share"
    if cur:
        return f"{sign}{cur}{num}{scale}"
    tail = f" {unit}" if unit and unit not in ("shares",) else (" shares" if unit == "shares" else "")
    return f"{sign}{num}{scale}{tail}"


def period_words(f: Fact) -> str:
    if f.period and f.period.startswith(("FY", "Q", "H1", "9M")):
        return f"in {f.period}"
    if f.period:
        return f"at {f.period}" if re.match(r"[A-Z][a-z]+ \d", f.period) else f"in {f.period}"
    return f"({f.col_header})" if f.col_header else ""


def who(d: DocumentMeta | None) -> str:
    return short_company(d.company) if d is not None and d.company else ""


def fact_sentence(f: Fact, d: DocumentMeta | None, marker: int, row: list[Fact], ask: Ask,
                  computed: list[str] | None = None) -> str:
    """'Boeing's total revenues were $66,608 million in FY2022, up 6.9% from $62,286 million in FY2021 [1].' An amount
    is written in the scale the question asks ("in USD millions": $5,466 million for $5,466,312 thousand)."""
    f, row = in_scale_asked(f, ask.question), [in_scale_asked(r, ask.question) for r in row]
    if f.raw.startswith("≈") and computed is not None:
        computed.append(f.raw[1:])  # rescaled by code: not printed in the passage
    label = measure_phrase(f, ask)
    shown = abs(f.value) if _OUTFLOW.match(f.label) and f.value < 0 else f.value
    owner = possessive(who(d))
    head = label.split("(")[0].strip()  # plural by its ending, or an irregular plural ("women", "people", "data")
    verb = "were" if (re.search(r"s\b|\bsales\b", head) and not label.endswith("ss")) or \
        re.search(r"\b(?:women|men|people|children|data|criteria)$", head, re.I) else "was"
    text = f"{owner}{label} {verb} {money(f, shown)} {period_words(f)}".strip()
    prior = _prior(f, row)
    if prior is not None:
        pv = abs(prior.value) if _OUTFLOW.match(prior.label) and prior.value < 0 else prior.value
        g = growth(shown, pv)
        plausible = pv and shown and (pv > 0) == (shown > 0) and 0.1 <= abs(shown / pv) <= 10
        diff = shown - pv
        direction = "up" if diff > 0 else "down" if diff < 0 else "unchanged"
        if (f.unit or "") == "%" and ask.change and direction != "unchanged":
            # a rate's change is a difference in percentage points (a relative change of a rate misleads)
            by = f"{abs(diff):.2f}".rstrip("0").rstrip(".")
            text += f", {direction} {by} percentage points from {money(prior, pv)} {period_words(prior)}"
            if computed is not None:
                computed.append(f"{by} percentage points")
        elif g is not None and plausible and (f.unit or "") != "%":
            by = f"{abs(g):.1f}%"
            if ask.change and ask.unit and direction != "unchanged":  # "what's the change in GWh": the difference
                by = f"{money(f, abs(diff))} ({abs(g):.1f}%)"
            text += f", {direction} {by} from {money(prior, pv)} {period_words(prior)}" if direction != \
                "unchanged" else f", unchanged from {money(prior, pv)} {period_words(prior)}"
            if computed is not None and direction != "unchanged":
                computed.append(by)  # by code, from the two cells: not printed in the passage
    scope = _scope(f)
    return f"{text[0].upper()}{text[1:]} [{marker}].{(' ' + scope) if scope else ''}"


# the scale of an amount a question asks for: "in USD millions", "(in $ billions)", "in thousands of euros"
_SCALE_ASKED = re.compile(r"\bin\s+(?:(?:usd|us\$|\$|eur|€|gbp|£)\s*)?(thousands|millions|billions)\b", re.I)


def in_scale_asked(f: Fact, question: str) -> Fact:
    """The fact's amount in the scale the question asks for, when that is not the table's own (its raw marked '≈'
    with the figure as written); percentages, counts and per-share values as they are."""
    m = _SCALE_ASKED.search(question or "")
    cur = (f.unit or "").split("/")[0] in ("USD", "EUR", "GBP") and not (f.unit or "").endswith("/share")
    want = SCALE_WORDS[m.group(1).lower()] if m else None
    if want is None or not cur or not f.scale or f.scale == want:
        return f
    v = f.value * f.scale / want
    if abs(v) < 0.01:
        return f  # a scale that would print nothing
    raw = f"{abs(v):,.0f}" if abs(v) >= 100 else f"{abs(v):,.2f}"
    return replace(f, value=float(raw.replace(",", "")) * (-1 if v < 0 else 1), scale=want, raw=f"≈{raw}")


def possessive(name: str) -> str:
    return "" if not name else (f"{name}' " if name.endswith("s") else f"{name}'s ")


def measure_phrase(f: Fact, ask: Ask) -> str:
    """The row label as the sentence's subject: 'total net sales'; a segment's row under its measure reads
    'net revenue of Data Center' (the parent carries the measure the question names)."""
    label = clean(f.label)
    parent = f.label_path.rsplit(" › ", 1)[0] if " › " in f.label_path else ""
    if parent:
        mine, theirs = set(label_terms(label)), set(label_terms(parent))
        if any(t in theirs and t not in mine for t in ask.terms + sorted(ask.expansion)):
            return f"{lower_first(clean(parent))} of {label}"
    return lower_first(label)


def clean(label: str) -> str:
    return re.sub(r"\s+", " ", label.rstrip(":")).strip()


def lower_first(label: str) -> str:
    """'Net sales' → 'net sales'; 'Data Center', 'EBITDA', 'Scope 1 emissions' stay as printed."""
    words = label.split()
    if not words or not words[0][:1].isupper() or words[0].isupper() or len(words[0]) == 1:
        return label
    if len(words) > 1 and all(w[:1].isupper() for w in words[:2]):
        return label  # a name in title case
    return label[0].lower() + label[1:]


def _prior(f: Fact, row: list[Fact]) -> Fact | None:
    if f.fiscal_year is None:
        return None
    cands = [x for x in row if x.fiscal_year == f.fiscal_year - 1 and x.fiscal_period == f.fiscal_period
             and not x.is_change and x.unit == f.unit]
    group = lambda x: re.sub(r"\b(19|20)\d{2}\b|\bfy\s?'?\d{2}\b", "", x.col_header or "", flags=re.I).strip(" ,|")
    same = [x for x in cands if group(x) == group(f)]
    # a row with several column groups ("Net Sales 2018 | 2017 | PP&E 2018 | 2017"): the prior year of the same group
    # (printed beside it: the nearest such column of the same row)
    same.sort(key=lambda x: (x.row_text != f.row_text, abs(x.col - f.col)))
    return same[0] if same else (cands[0] if len(cands) == 1 else None)


def _scope(f: Fact) -> str:
    """What the table says the figure covers: its title and group, and a breakdown column."""
    bits = []
    parent = f.label_path.rsplit(" › ", 1)[0] if " › " in f.label_path else ""
    if parent:
        bits.append(f"under “{parent}”")
    if f.table_title:
        title = re.sub(r"\b([A-Z][a-z]{2,}) ([a-z])\b", r"\1\2", f.table_title[:80])  # "Flow s" (PDF kerning)
        bits.append(f"in the table “{title}”")
    where = ", ".join(bits)
    return f"(As printed {where}, p. {f.page}.)" if where else ""


def computation_sentences(c: Computation, d: DocumentMeta | None, markers: dict[int, int]) -> tuple[str, str]:
    """The lead ('Adobe's operating margin was 34.6% in FY2022 [1].') and the formula with every input cited
    ('Operating margin = operating income 6,098 / revenue 17,606 = 34.6% [1][2].')."""
    owner = possessive(who(d))
    fp = next((f.fiscal_period for f in c.facts if f.fiscal_period and f.fiscal_period != "FY"), None)
    when = (f"in {fp} FY{c.year}" if fp else f"in FY{c.year}") if c.year else ""  # a quarter's margin is the quarter's
    first_year = next((i.facts[0].fiscal_year for k, i in c.inputs.items() if k.startswith("cagr(")), None)
    if first_year and c.year:
        when = f"over FY{first_year}–FY{c.year}"  # a compound growth is of the span
    cites = "".join(f"[{markers[f.chunk_id]}]" for f in _unique_chunks(c.facts) if f.chunk_id in markers)
    lead = f"{owner}{c.metric.name} was {c.formatted()} {when} {cites}".replace("  ", " ").strip() + "."
    lead = lead[0].upper() + lead[1:]
    expr = c.metric.formula
    shown: dict[str, str] = {}
    averages: list[str] = []
    for name in c.metric.inputs:
        inp = c.inputs.get(name)
        if inp is None:  # an optional input the filing does not have
            shown[name] = shown[f"avg({name})"] = f"{name.replace('_', ' ')} 0"
            continue
        shown[name] = f"{name.replace('_', ' ')} {_plain(inp.value, inp.facts[0])}"
        shown[f"avg({name})"] = f"average {shown[name]}"
        first = c.inputs.get(f"cagr({name})")
        if first is not None and c.year and first.facts[0].fiscal_year:  # a compound growth: from the first year
            n = c.year - first.facts[0].fiscal_year
            shown[f"cagr({name})"] = f"({shown[name]} / {name.replace('_', ' ')} " \
                f"{_plain(first.value, first.facts[0])} (FY{first.facts[0].fiscal_year}))^(1/{n}) - 1"
        before = c.inputs.get(f"prev({name})")
        if before is not None:  # a growth: the year before's figure, with its year
            year = before.facts[0].fiscal_year
            shown[f"prev({name})"] = f"{name.replace('_', ' ')} {_plain(before.value, before.facts[0])}" + \
                (f" (FY{year})" if year else "")
        if len(inp.facts) == 2 and f"avg({name})" in expr:
            pair = " + ".join(_plain(f.value * (f.scale or 1.0), f) for f in inp.facts)
            averages.append(f"average {name.replace('_', ' ')} = ({pair}) / 2")
    # one pass, so that a name inside an input already written out is not written out again
    expr = re.sub(r"(?:avg|prev|cagr)\((\w+)\)|\b(\w+)\b", lambda m: shown.get(m.group(0), m.group(0)), expr)
    formula = f"{c.metric.name[:1].upper()}{c.metric.name[1:]} = {expr} = {c.formatted()} {cites}".strip() + \
        ("; " + "; ".join(averages) if averages else "") + "."
    return lead, formula


def _plain(value: float, f: Fact) -> str:
    v = value / (f.scale or 1.0)
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}"


def _unique_chunks(facts: list[Fact]) -> list[Fact]:
    seen, out = set(), []
    for f in facts:
        if f.chunk_id not in seen:
            seen.add(f.chunk_id)
            out.append(f)
    return out


# -- finding facts --------------------------------------------------------------------------------------------------

def resolver(facts_of: Callable[[str], list[Fact]], docs: dict[int, DocumentMeta], retrieved: dict[int, float],
             quarter: str | None = None, asked: set[str] | None = None):
    """resolve(line item, year) → the fact a filing prints for it: the first of the item's labels that a row
    matches, that year's column, the period's own filing first, and the document (then the page) of the inputs
    already read, so that a ratio's inputs come from one set of statements. facts_of(item) gives the item's facts
    the Facts stage fetched (`FactBook.item_facts`)."""
    items = line_items()
    cache: dict[str, list[Fact]] = {}
    chosen: list[Fact] = []

    def resolve(item: str, year: int | None) -> Fact | None:
        li = items[item]
        if item not in cache:
            cache[item] = facts_of(item)
        best = None
        docs_used = {f.document_id for f in chosen if f.fiscal_year == year}
        # a computation's inputs are one issuer's: once one is read, the others come from that issuer's filings
        issuers_used = {docs[f.document_id].company_key for f in chosen if f.document_id in docs}
        pages_used = {f.page for f in chosen if f.fiscal_year == year}
        for f in cache[item]:
            if f.is_change or (year is not None and f.fiscal_year != year) or f.fiscal_year is None:
                continue
            if (quarter is None and f.fiscal_period not in ("FY", None)) or (quarter and f.fiscal_period != quarter):
                continue
            rank = label_rank(li, f.label, f.label_path)
            if rank is None or (f.unit == "%" or (f.unit or "").endswith("/share")) or not li.unit_fits(f):
                continue
            d = docs.get(f.document_id)
            key = (1 if _HYPOTHETICAL.search(f.table_title) or _HYPOTHETICAL.search(f.label_path) else 0,
                   # a balance is read from the balance sheet, not from the cash-flow statement's change in it
                   1 if item in BALANCES and STATEMENT_WORDS["cash flows"].search(f.table_title) else 0,
                   0 if not issuers_used or (d is not None and d.company_key in issuers_used) else 1,
                   0 if not docs_used or f.document_id in docs_used else 1,
                   0 if _statement(f) else 1,
                   0 if d is not None and d.fiscal_year == f.fiscal_year else 1,
                   -len(set(label_terms(f.label)) & (asked or set())),  # "market-based" when the question says so
                   0 if f.page in pages_used else 1,
                   rank, -round(abs(f.scaled), -3),  # the consolidated total is the largest (a segment's is smaller)
                   0 if f.chunk_id in retrieved else 1, f.page)
            if best is None or key < best[0]:
                best = (key, f)
        if best is not None:
            chosen.append(best[1])
        return best[1] if best else None

    return resolve


def _statement(f: Fact) -> bool:
    """A fact of a primary financial statement: its table's title is a statement's, and not a subsidiary's or
    guarantor group's."""
    return bool(statement_of_title(f.table_title)) and not re.search(r"obligor|guarantor|parent company|"
                                                                     r"subsidiar(y|ies) only|issuer", f.table_title, re.I)


def latest_year(resolve, items: list[str], years: range) -> int | None:
    for y in years:
        if all(resolve(i, y) is not None for i in items):
            return y
    return None


def compare_sentence(facts: list[Fact], docs: dict[int, DocumentMeta], computed: list[str]) -> str:
    """The comparison after one sentence per entity: which is larger, by how much (when the units agree)."""
    if len(facts) != 2 or (facts[0].unit or "") != (facts[1].unit or ""):
        return ""
    a, b = facts
    va, vb = a.scaled, b.scaled
    if not va or not vb:
        return ""
    big, small = (a, b) if abs(va) >= abs(vb) else (b, a)
    ratio = abs(big.scaled) / abs(small.scaled)
    name = lambda f: who(docs.get(f.document_id)) or "the first"
    amount = (big.unit or "") not in ("%",) and (big.unit or big.scale >= 1e3) and not (big.unit or "").endswith("/share")
    if amount and (big.unit or "") == (small.unit or ""):
        diff_f = replace(big, value=(abs(big.scaled) - abs(small.scaled)) / big.scale)
        text = money(diff_f)
        computed.append(text.lstrip("$€£").split()[0])
        computed.append(f"{ratio:.1f}×")
        return f"{possessive(name(big))}figure is {text} higher than {possessive(name(small)).strip()} ({ratio:.1f}×)."
    if ratio >= 2:
        text = f"{ratio:.1f}×"
        computed.append(text)
        return f"{possessive(name(big))}figure is about {text} {possessive(name(small)).strip()}."
    diff = growth(big.scaled, small.scaled)
    if diff is None:
        return ""
    computed.append(f"{diff:.1f}%")
    return f"{name(big)}'s figure is {diff:.1f}% higher than {name(small)}'s."


def trend_sentence(series: list[Computation], d: DocumentMeta | None, markers: dict[int, int],
                   computed: list[str]) -> str:
    """'Amcor's quick ratio was 0.69 in FY2023, up from 0.67 in FY2022 (+0.02) [1][2].'"""
    last, prev = series[-1], series[-2]
    diff = last.value - prev.value
    unit = last.metric.unit
    step = f"{abs(diff):.1f} percentage points" if unit == "%" else f"{abs(diff):.2f}"
    rel = growth(last.value, prev.value) if unit not in ("%", "x", "days") else None
    if rel is not None:  # an amount (t CO2e, USD): the difference in its unit, and in percent
        step = f"{replace(last, value=abs(diff)).formatted()} ({abs(rel):.1f}%)"
        computed.append(f"{abs(rel):.1f}%")
    direction = "up" if diff > 0 else "down" if diff < 0 else "unchanged"
    computed.extend([last.formatted(), prev.formatted(), step.split()[0]])
    cites = "".join(f"[{markers[f.chunk_id]}]" for f in _unique_chunks(last.facts + prev.facts)
                    if f.chunk_id in markers)
    text = (f"{possessive(who(d))}{last.metric.name} was {last.formatted()} in FY{last.year}, "
            f"{direction} {'by ' + step + ' ' if direction != 'unchanged' else ''}from {prev.formatted()} in FY{prev.year}")
    if len(series) > 2:
        text += " (" + ", ".join(f"FY{c.year}: {c.formatted()}" for c in series[:-2]) + ")"
        computed.extend(c.formatted() for c in series[:-2])
    return f"{text[0].upper()}{text[1:]} {cites}."


def average_sentence(series: list[Computation], d: DocumentMeta | None, computed: list[str]) -> str:
    """'Best Buy's average net margin over FY2015–FY2017 was 2.8% (2.6%, 2.8%, 3.1%).'"""
    avg = sum(c.value for c in series) / len(series)
    m = series[-1].metric
    shown = format_metric(avg, m.unit)
    computed.extend([shown] + [c.formatted() for c in series])
    text = (f"{possessive(who(d))}average {m.name} over FY{series[0].year}–FY{series[-1].year} was {shown} "
            f"(the mean of {', '.join(c.formatted() for c in series)})")
    return f"{text[0].upper()}{text[1:]}."
