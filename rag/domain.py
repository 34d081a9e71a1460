"""Domain helpers shared by ingestion, retrieval and answers: an issuer's key, the years a document may be called
by, and a document's place in time. One definition each; every layer imports them from here."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

SUFFIX = (r"(?:inc\.?|incorporated|corporation|corp\.?|company|co\.|plc|ag|se|s\.a\.|n\.v\.|ltd\.?|limited|"
           r"group|holdings?|llc|gmbh|kgaa)")
_STOP_KEY = re.compile(rf"\b({SUFFIX}|co|corp|ltd|the|and|&)(?=\s|$)", re.I)
_QUARTER_SHARE = {"Q1": 0.25, "Q2": 0.5, "Q3": 0.75, "Q4": 1.0}
ANNUAL_TYPES = ("10-K", "annual report", "sustainability report")
FILING_TYPES = ("10-K", "10-Q", "8-K")


def company_key(name: str | None) -> str | None:
    """The issuer key documents and questions are matched by: lower case, legal suffixes and punctuation gone
    ('The Boeing Company' → 'boeing')."""
    if not name:
        return None
    k = name.lower().replace("’", "'")
    k = re.sub(r"[.,()'\"]", " ", k)
    k = _STOP_KEY.sub(" ", k)
    k = re.sub(r"\s+", " ", k).strip()
    return k or None


def match_known_company(key: str | None, known: dict[str, str]) -> tuple[str, str] | None:
    """An issuer already in the store whose key is a word-prefix of this one (or the reverse):
    'amcor flexibles north america' → 'amcor'. known: key → display name."""
    if not key:
        return None
    if key in known:
        return key, known[key]
    for k, name in known.items():
        if key.startswith(k + " ") or k.startswith(key + " "):
            return k, name
    return None


def years_of(d: Any) -> set[int]:
    """The fiscal years a document (or a chunk of it) may be called by: its year labels (the issuer's own label,
    the year its fiscal year ends, the year its period ends) and its fiscal year."""
    ys = set(getattr(d, "year_labels", None) or [])
    fy = getattr(d, "fiscal_year", None)
    if fy:
        ys.add(fy)
    return ys


def doc_time(d: Any) -> float:
    """A document's place in time in years: fiscal year (a quarter is the share of the year it closes), else
    the published date, else the upload time."""
    fy = getattr(d, "fiscal_year", None)
    if fy:
        return fy + _QUARTER_SHARE.get(getattr(d, "fiscal_period", None) or "", 1.0) - 1.0
    for key in ("published_date", "uploaded_at"):
        v = getattr(d, key, None)
        if v:
            try:
                y, m = int(str(v)[:4]), int(str(v)[5:7])
                return y + (m - 1) / 12
            except ValueError:
                pass
    return 0.0


# A 52/53-week fiscal year that ends on the weekday nearest 31 December can end in the first days of January: it
# belongs to the year it mostly covers (FY2022 ended 1 January 2023).
EARLY_JANUARY_DAYS = 7


def fiscal_year_of_end(end: dt.date) -> int:
    """The fiscal year a year ending on `end` is called by: the year it mostly covers."""
    return end.year - 1 if end.month == 1 and end.day <= EARLY_JANUARY_DAYS else end.year


@dataclass(frozen=True)
class Period:
    """A period named in a text: a fiscal year, with its quarter when one is named."""
    year: int
    quarter: str | None = None  # Q1..Q4

    def __str__(self) -> str:
        return f"FY{self.year}{self.quarter or ''}"


_QNUM = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_YR = r"'?((?:19|20)\d{2}|\d{2})"  # 2023, 23, '23
_QW = r"(first|second|third|fourth|1st|2nd|3rd|4th)"
# Every way a quarter of a fiscal year is written: FY2023Q1, FY23 Q1, Q1 FY23, Q1'23, Q1 2023, 1Q23, 1QFY23,
# "first quarter of fiscal 2023", "fiscal 2023 first quarter", "Q1 of FY2023". (group of the quarter, of the year)
_QUARTER_FORMS: list[tuple[re.Pattern, int, int]] = [
    (re.compile(rf"\b(?:fy|fiscal\s+(?:year\s+)?)\s?{_YR}\s?[-/ ]?\s?q([1-4])\b", re.I), 2, 1),
    (re.compile(rf"\bq([1-4])\s?(?:[-/ ]|\s+of\s+(?:the\s+)?)?\s?(?:fy|fiscal\s+(?:year\s+)?|cy)?\s?{_YR}\b",
                re.I), 1, 2),
    (re.compile(rf"\b([1-4])q\s?[-/ ]?\s?(?:fy|cy)?\s?{_YR}\b", re.I), 1, 2),
    (re.compile(rf"\b{_QW}\s+(?:fiscal\s+)?quarter\s+(?:of\s+|in\s+)?(?:the\s+)?(?:fiscal\s+)?(?:year\s+)?"
                rf"(?:fy\s?)?{_YR}\b", re.I), 1, 2),
    (re.compile(rf"\b(?:fy|fiscal\s+(?:year\s+)?)\s?{_YR}(?:'s)?\s+{_QW}\s+quarter\b", re.I), 2, 1),
]
_YEAR_FORMS = [
    re.compile(r"\b(?:fy|cy|fiscal\s+(?:year\s+)?|calendar\s+(?:year\s+)?)?\s?'?((?:19|20)\d{2})(?![\d-])", re.I),
    re.compile(r"\b(?:fy|fiscal\s+(?:year\s+)?)\s?'?(\d{2})\b", re.I),
]


def _year(y: str) -> int:
    return int(y) if len(y) == 4 else 2000 + int(y)


def periods_in(text: str) -> list[Period]:
    """The periods a text names, each once, in order: quarters of fiscal years in any of the forms analysts and
    issuers write (above), then the years named alone."""
    out: list[tuple[int, Period]] = []
    spans: list[tuple[int, int]] = []
    for pat, qg, yg in _QUARTER_FORMS:
        for m in pat.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in spans):
                continue
            q, y = m.group(qg), m.group(yg)
            if len(y) == 2 and not re.search(r"fy|cy|fiscal|'", m.group(0), re.I) and re.search(r"\d\s+\d", m.group(0)):
                continue  # "Q3 10 stores": a bare two-digit number after a space is not a year
            n = int(q) if q.isdigit() else _QNUM[q.lower()]
            year = _year(y)
            if 1990 <= year <= 2100:
                spans.append(m.span())
                out.append((m.start(), Period(year, f"Q{n}")))
    for pat in _YEAR_FORMS:
        for m in pat.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in spans):
                continue
            year = _year(m.group(1))
            if 1990 <= year <= 2100:
                spans.append(m.span())
                out.append((m.start(), Period(year)))
    return list(dict.fromkeys(p for _, p in sorted(out, key=lambda x: x[0])))


# Tokens that only name a period: never a term the documents must contain.
PERIOD_TOKEN = re.compile(r"(?:fy|cy|fiscal|q[1-4]|[1-4]q|h[12]|[1-2]h|ytd|ttm|ltm)?'?\d{0,4}"
                          r"(?:q[1-4]|h[12]|e|a)?", re.I)


def is_period_token(term: str) -> bool:
    """'FY2023Q1', '1Q23', 'Q1'23', 'H1', 'FY23', '2023E' name a period, not a thing."""
    t = term.strip().replace("’", "'")
    if re.fullmatch(r"(?:(?:year|fiscal|mid|half|start|end)[- ]?(?:year[- ]?)?(?:end[- ]?)?|(?:h[12]|q[1-4])[- ]?)(?:19|20)\d{2}|"
                    r"(?:19|20)\d{2}[- ](?:year[- ]?end|end|q[1-4]|h[12])", t, re.I):
        return True  # "end-2023", "year-end 2023", "mid-2022": a point in time, not a term the documents must hold
    return bool(re.search(r"\d|^(?:q[1-4]|h[12]|ytd|ttm|ltm)$", t, re.I)) and bool(PERIOD_TOKEN.fullmatch(t)) \
        or bool(periods_in(t)) and not re.search(r"[a-z]{3,}", re.sub(r"(?i)fiscal|quarter|year|first|second|third|"
                                                                      r"fourth|of|the", "", t), re.I)


# SEC and other forms a question may name: never a term the documents must contain.
FORM_NAMES = re.compile(r"(?:form\s+)?(?:10-?k(?:t|405)?|10-?q|8-?k|20-?f|40-?f|6-?k|11-?k|s-?[1-4]|f-?[1-4]|def\s?14a|"
                   r"13-?[dfg]|sc\s?13[dg]|n-?csr|424b\d?|proxy(?:\s+statement)?)", re.I)


def is_form_name(term: str) -> bool:
    """'10-K', '8-K', 'DEF 14A', 'S-1', 'Form 20-F' name a kind of filing."""
    return bool(FORM_NAMES.fullmatch(term.strip()))


def spelled_out_in(acronym: str, text: str) -> bool:
    """Whether a text spells an acronym out: words whose initials spell it ("AGM" → "Annual General Meeting"), small
    joining words allowed between them. The words must be capitalised, or the acronym follow them in parentheses;
    in lower case only an acronym of four letters or more counts ("compound annual growth rate"), as short ones
    are spelled by chance."""
    letters = [c for c in acronym.lower() if c.isalpha()]
    if not 2 <= len(letters) <= 6:
        return False
    glue = r"[\s\-]+(?:(?:of|and|the|for|on|in|to|&)[\s\-]+)?"
    lower = r"\b" + glue.join(rf"{c}[a-z]*" for c in letters) + r"\b"
    titled = r"\b" + glue.join(rf"{c.upper()}[a-z]*" for c in letters) + r"\b"
    defined = lower + rf"\s*\(\s*{re.escape(acronym)}\s*\)"
    return bool(re.search(titled, text) or re.search(defined, text, re.I)
                or len(letters) >= 4 and re.search(lower, text, re.I))


# -- months and dates: one vocabulary and one parser for every layer ------------------------------------------------
MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december")
# the months a reporting period usually ends in: the calendar quarters' ends, and January (a 52/53-week year's)
PERIOD_END_MONTHS = ("december", "january", "june", "september", "march")
MONTH_WORD = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"  # a month's name, whole or cut ("Sept")
MONTH = MONTH_WORD + r"\.?"  # and its period ("Sept.")
# "December 31, 2022" with its year apart (groups 1 and 2), for patterns that find a date after a phrase ("ended")
DATE_WRITTEN = r"((?:" + "|".join(MONTH_NAMES) + r")\s+\d{1,2},?\s+(\d{4}))"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR4 = r"((?:19|20)\d{2})"
_DATE_FORMS = (  # each with the groups of its day, month and year
    (re.compile(rf"\b({MONTH})\s+{_DAY},?\s+{_YEAR4}\b", re.I), (2, 1, 3)),  # July 1, 2022
    (re.compile(rf"\b{_DAY}\s+(?:of\s+)?({MONTH}),?\s+{_YEAR4}\b", re.I), (1, 2, 3)),  # 1st July 2022, 1 of July, 2022
    (re.compile(r"\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b"), (3, 2, 1)),  # 2022-07-01
)
_DATE_NUMERIC = (re.compile(r"\b(\d{1,2})[./]\s?(\d{1,2})[./]\s?((?:19|20)\d{2})\b"), (1, 2, 3))  # 31.12.2023


def month_number(word: str) -> int | None:
    """1-12 for a month's name, whole or cut ("Sept.", "dec"); None for any other word ("market")."""
    w = word.lower().rstrip(".")
    if len(w) < 3:
        return None
    for i, name in enumerate(MONTH_NAMES, 1):
        if name.startswith(w) or (w == "sept" and i == 9):
            return i
    return None


def dates_in(text: str, numeric: bool = True) -> list[dt.date]:
    """Every calendar date written in the text, in reading order, each once: "July 1, 2022", "1st July 2022",
    "2022-07-01" and, with `numeric`, the day-first "31.12.2023" or "31/12/2023" (a question's "1/2/2022" is
    ambiguous: its reader leaves numeric dates out). A date that does not exist (31 June) is no date."""
    found: list[tuple[int, dt.date]] = []
    for pat, (di, mi, yi) in _DATE_FORMS + ((_DATE_NUMERIC,) if numeric else ()):
        for m in pat.finditer(text):
            mon = m.group(mi)
            month = int(mon) if mon.isdigit() else month_number(mon)
            try:
                found.append((m.start(), dt.date(int(m.group(yi)), month or 0, int(m.group(di)))))
            except ValueError:
                continue
    return list(dict.fromkeys(d for _, d in sorted(found, key=lambda x: x[0])))
