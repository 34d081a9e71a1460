"""Quantities as types: the unit class of a number as printed (currency, %, t CO2e, energy, FTE and headcount, …) and
the class of quantity a question asks for. Units are a closed class, the same in every report, so a rule on them
holds for documents never read; what a measure *means* is left to the embedding model (`rag/answer/fit.py`).

It is also the one place numbers are parsed, for ingestion, verification, the lead and the eval alike: a table cell
(`read_cell`: sign of its parentheses, currency, scale word, unit), a number in running text (`numbers`: value with
its scale, decimals, percent), scale words (`SCALE_WORDS`, `scale_of`), units and currencies (`unit_of`,
`currency_of`), and whether two printed numbers are the same (`same_number`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.domain import MONTH, MONTH_WORD

__all__ = ["CLASSES", "MARKER", "SCALE_WORDS", "scale_name", "Cell", "Num", "answer_type", "asked_class", "class_of_unit",
           "classes_near_numbers", "compatible", "counted_words", "currency_of", "numbers", "parse_number",
           "qualifiers", "quantities_in", "read_cell", "same_number", "scale_of", "unit_of"]

# currency | percent | emissions | energy | water | mass | headcount | per_share | hours | count
CLASSES = ("currency", "percent", "emissions", "energy", "water", "mass", "headcount", "per_share", "hours", "power",
           "duration", "count", "intensity", "temperature")

_UNIT_CLASS = [  # a unit as printed next to a number or in a table's unit line → its class
    # one quantity per another (t CO2e per € million of sales, kWh / employee): a ratio, never the total it divides;
    # "per year" is still an amount (a flow over its period), "per cent" and "per share" are classes of their own
    (re.compile(r"\bintensity\b|\bper (?!cent\b|centage|share\b|common|ordinary|diluted|basic|year\b|annum\b|month\b|"
                r"day\b|week\b)(?:unit of |€|\$|[a-z])|(?<![\w])(?:t|kg|g|tons?|tonnes?|kwh|mwh|gwh|gj|mj|m3|m³|tco2e?)\s?/\s?(?!share\b|"
                r"year\b|yr\b|a\b)[a-z€$]", re.I), "intensity"),
    (re.compile(r"co\s?[2₂]\s?e?|\bghg\b|carbon", re.I), "emissions"),
    (re.compile(r"\b[kmgtp]?wh\b|\b[mgtp]j\b|\bjoules?\b|\bmegajoules?\b|\bgigajoules?\b|"
                r"\b(?:kilo|mega|giga|tera)?watt[- ]?hours?\b", re.I), "energy"),
    (re.compile(r"\bm\s?[³3]\b|\bcubic met|\bmegalit|\bml\b|\blit(er|re)s?\b|\bgallons?\b", re.I), "water"),
    (re.compile(r"per (common |ordinary |diluted |basic )?share|/share|\beps\b", re.I), "per_share"),
    (re.compile(r"[$€£¥]|\b(usd|eur|gbp|chf|jpy|sek|dkk|nok|pln|huf|czk|dollars?|euros?|pounds?)\b|\bteur\b|\bmeur\b|"
                r"\b(eur|usd)\s?(k|m|mn|bn|million|billion|thousand)\b", re.I), "currency"),
    (re.compile(r"%|\bper ?cent\b|\bpercentage\b|\bpp\b|\bpercentage points?\b", re.I), "percent"),
    (re.compile(r"\bfte\b|\bfull[- ]time equivalents?\b|\bemployees\b|\bheadcount\b|\bstaff\b|\bpeople\b|"
                r"\bworkforce\b", re.I), "headcount"),
    (re.compile(r"\b(metric )?(tonnes|tons|kilograms?|kg)\b|\bt\b(?!\s?co)", re.I), "mass"),
    (re.compile(r"\bhours?\b|\bh\b", re.I), "hours"),
    (re.compile(r"(?<![\w])[kmµun]?W\b(?!h)|\bwatts?\b", re.I), "power"),
    (re.compile(r"(?<![\w])(ms|µs|ns|seconds?|minutes?|sec)\b(?!\w)", re.I), "duration"),
    (re.compile(r"°\s?[CF]\b|℃|℉|\bdegrees? (?:celsius|fahrenheit)\b", re.I), "temperature"),
]


def class_of_unit(unit: str | None) -> str | None:
    """The class of a unit as a table or sentence prints it ('t CO2e', 'EUR thousand', 'GWh', '%', 'FTE')."""
    if not unit:
        return None
    for rx, name in _UNIT_CLASS:
        if rx.search(unit):
            return name
    return None


# a number that names rather than measures: "Scope 1", "Category 3", "Note 12", "page 4"
# a number that names: "Scope 3", "Note 12" — and each number of a list of them: "Scope 1, 2 and 3", "categories 1-15"
_LABEL_NUMBER = re.compile(r"\b(scopes?|category|categories|tiers?|levels?|phases?|stages?|sections?|tables?|figures?|"
                           r"fig\.|notes?|items?|pages?|p\.|pp\.|chapters?|articles?|sdgs?|goals?|principles?)"
                           r"\s*(?:\d{1,2}(?:\.\d{1,2})?\s*(?:,|and|&|\+|/|or|to|-|–)\s*)*$", re.I)
# a named item, a word and a small number that names rather than measures: "Scope 1", "category 3.11", "Tier 2"
ITEM_NO = r"\d{1,2}(?:\.\d{1,2})?"
_QUALIFIER = re.compile(rf"\b([A-Za-z]{{3,}})\s*({ITEM_NO})(?:\s*(?:and|&|\+|,|/)\s*({ITEM_NO}))?\b")
# a named item mentioned to exclude it: "not included in Scope 1 or 2", "excluding Scope 3", "other than Tier 1"
NEGATED = re.compile(r"\b(?:not (?:included )?in|excluding|excl\.|except(?: for)?|other than|outside(?: of)?|without)\s+"
                     rf"[A-Za-z]{{3,}}\s*{ITEM_NO}(?:\s*(?:and|&|\+|,|/|or)\s*{ITEM_NO})*", re.I)


def qualifiers(text: str) -> dict[str, set[str]]:
    """The qualifiers of a text by their word: {"scope": {"1", "2"}} for "Scope 1 and 2" (a qualifier named to
    exclude it is not one: "emissions not included in Scope 1 or 2"), {"basis": {"market"}} for "market-based"."""
    out: dict[str, set[str]] = {}
    for m in _QUALIFIER.finditer(NEGATED.sub(" ", text)):
        out.setdefault(m.group(1).lower(), set()).update(x for x in m.group(2, 3) if x)
    for m in _BASIS.finditer(text):  # the basis a figure is measured on: "market-based", "location-based"
        out.setdefault("basis", set()).add(m.group(1).lower())
    return out


# a "<word>-based" qualifier names the method a figure is measured by (Scope 2 market-based or location-based): two
# figures on different bases are different measures
_BASIS = re.compile(r"\b([A-Za-z]{3,})[- ]based\b", re.I)


_NUM = re.compile(r"(?<![\w.])[-+–−]?[$€£]?\s?\(?\d(?:[\d,.']*\d)?\)?")
# before a number that is not a value: a citation mark's bracket ("[3]", "[12, 14]"), "per" of a rate's denominator
# ("per 1,000 employees"), a name's or an exponent's dash ("GPT-4", "COVID-19", "cm2V−1s−1"). (A date's day,
# "December 31, 2021", was tried as well: it cost the held-back part one right lead, so it is not in.)
_NOT_A_VALUE = re.compile(r"(?:\[\s*(?:\d{1,3}\s*[,–-]\s*)*|\bper\s+|[A-Za-z][-–−])$", re.I)
# a length of time printed after a number ("9.7 years", "3 days"); a question's "year" is its period, not a unit
_TIME_AFTER = re.compile(r"\s*(?:days?|weeks?|months?|years?)\b", re.I)


def quantities_in(text: str, window: int = 28) -> list[tuple[str, str | None]]:
    """Each quantity of a sentence as printed, with the class of the unit printed right after it (or a currency sign
    right before it): '1,050 t CO2e' → emissions, '€3.2 million' → currency, '12.5%' → percent, '312 FTE' →
    headcount; None for a bare number. Years, numbers that name ('Scope 1', 'Note 12') and numbers inside a name
    ('1&1', 'A320', 'CO2') are not quantities."""
    out: list[tuple[str, str | None]] = []
    for m in _NUM.finditer(text):
        raw = m.group(0).strip()
        digits = re.sub(r"[^\d.]", "", raw)
        if not digits or re.fullmatch(r"(19|20)\d{2}", digits) or _LABEL_NUMBER.search(text[: m.start()]):
            continue
        nxt, prev = text[m.end(): m.end() + 1], text[max(0, m.start() - 1): m.start()]
        if not text[: m.start()].strip() and re.match(r"\s+[A-Z]", text[m.end():]):
            continue  # a row's or a list's number: "3.11 Use of sold products"
        if raw.startswith("(") and raw.endswith(")") and len(digits) <= 2:
            continue  # a footnote mark: "(11)"
        if re.match(r"[&A-Za-z]", nxt) and not re.match(r"[kKmMbB%]\b|[kKmMbB]n\b|bn|mn|[tT]\b", text[m.end(): m.end() + 3]) \
                or re.match(r"[&A-Za-z]", prev):
            continue
        if re.match(r"[kKmMbB]\b", text[m.end():]) and "." not in digits and \
                not re.search(r"[$€£]", raw):
            continue  # "7b", "(97b)", "3M": a name, as numbers() reads it; "81.1M", "$5b" are amounts
        if _NOT_A_VALUE.search(text[max(0, m.start() - 12): m.start()]):
            continue
        after = text[m.end(): m.end() + window]
        before = text[max(0, m.start() - 5): m.start()]
        after = re.split(r"[,;]|\s[-+(]?\d", after, maxsplit=1)[0]  # up to the next number or clause
        cls = class_of_unit(raw) or class_of_unit(after) or ("duration" if _TIME_AFTER.match(after) else None) or (class_of_unit(before) if re.search(r"[$€£]|\b(usd|eur|gbp|chf)\s*$", before, re.I)
                                                              else None)
        out.append((raw, cls))
    return out


def classes_near_numbers(text: str, window: int = 28) -> list[str | None]:
    """The class of each quantity of a sentence (quantities_in)."""
    return [cls for _, cls in quantities_in(text, window)]


def compatible(asked: str | None, got: str | None) -> str:
    """match, inferred (unknown, or a class measured in the other: tonnes of CO2e are a mass) or mismatch."""
    if asked is None or got is None:
        return "inferred"
    if asked == got:
        return "match"
    if {asked, got} == {"emissions", "mass"} or {asked, got} == {"headcount", "count"}:
        return "inferred"
    if asked == "count" and got == "hours" or {asked, got} == {"energy", "power"}:
        return "inferred"
    return "mismatch"


# what a question asks for, by the form of the question (English question words and the quantity they ask)
_SHARE_Q = re.compile(r"\b(what|which) (percent|percentage|share|proportion|portion|fraction)\b|\bhow much of\b|"
                      r"\b(percent|percentage|share|proportion|rate|margin)\b|%", re.I)
_COUNT_Q = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b", re.I)
_CHART_Q = re.compile(r"^\s*(?:can you |could you |please )?(show|display|plot|visuali[sz]e)( me)?\b|"
                      r"\b(show|display|see)\b.*\b(chart|graph|plot|figure|diagram|visual)|\b(chart|graph|plot|figure|"
                      r"diagram)s? (of|showing|that shows|with)\b|\bis there a (chart|graph|figure|plot)\b|"
                      # the thing asked is named last ("MTU shareholder structure by region chart", "graph please")
                      r"\b(chart|graph|plot|pie|donut|doughnut)s?(?: please)?\W*$|^\W*which (chart|graph|figure|plot)\b",
                      re.I)
_YESNO_Q = re.compile(r"^\s*(is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\b", re.I)
_DESCRIBE_Q = re.compile(r"^\s*(why|how (?!much|many|big|large|high|low|long|often|far|small)|describe|explain|summari[sz]e|discuss|outline)\b|\bwhat (drove|"
                         r"caused|explains|led to|are the (main|key)|is the (main|key|purpose|goal|strategy|approach|"
                         r"role)|does the (report|paper|company|author)s? (say|describe|state|propose|report)|were the "
                         r"(main|key))\b|\b(reasons?|drivers?|strategy|approach|limitations?|contributions?|agenda|"
                         r"purpose|nature|summary|highlights|main points|key points|topics?)\b", re.I)
_QUANTITY_FORM = re.compile(r"\bhow (much|many)\b|\bwhat (percent|percentage|share|amount|value|number|total)\b|"
                            r"\b(ratio|margin|rate)\b", re.I)
_LIST_Q = re.compile(r"^\s*(list|name|which|what are)\b", re.I)


def answer_type(question: str, asks_figure: bool) -> str:
    """The expected answer type: chart, description, yes/no, share, count, quantity, list, or open (the form does not
    say: a figure when one fits the measure, else the sentence closest in meaning)."""
    q = question.strip()
    if _CHART_Q.search(q):
        return "chart"
    if _DESCRIBE_Q.search(q) and not (asks_figure and _QUANTITY_FORM.search(q)):
        return "description"
    if _YESNO_Q.match(q):
        return "yes/no"  # "did X increase?", "was there any change in …": a figure if one fits, else the sentence
    if _COUNT_Q.search(q) and not re.search(r"\bhow many (euros?|dollars?|tonnes?|tons?|hours?|mwh|gwh|kwh)\b", q, re.I):
        return "count"
    if _SHARE_Q.search(q) and asks_figure:
        return "share"
    if asks_figure or re.match(r"\s*how (big|large|high|low|long|often|far|small)\b", q, re.I):
        return "quantity"
    if _LIST_Q.match(q) and not re.match(r"\s*(which|what) (was|is|were|are) the\b", q, re.I):
        return "list"
    return "open"  # a what-question or a terse one: a figure if one fits, else the sentence that answers


# the class of a quantity a question asks, from the unit it names or, failing that, the nearest of these meanings
# (compared by the embedding model with the question's measure)
PROTOTYPES = {
    "emissions": "greenhouse gas emissions, carbon footprint, Scope 1 Scope 2 Scope 3 CO2 equivalent",
    "energy": "energy consumption, electricity and fuel use, renewable energy",
    "water": "water withdrawal, water consumption, water use",
    "mass": "waste generated, hazardous waste, weight of materials",
    "headcount": "number of employees, workforce, headcount, staff, full-time equivalents",
    "currency": "revenue, sales, income, profit, costs, expenses, cash, assets, capital expenditure, amount of money",
    "per_share": "earnings per share, dividend per share",
    "hours": "training hours, hours of training per employee",
    "power": "power draw of a circuit or device in microwatts, milliwatts or watts",
    "duration": "time taken, latency, how long it takes in seconds",
}


# "how many <what is counted> <verb>": the words counted, up to the question's verb
_COUNTED = re.compile(r"\bhow many\s+(.+?)\s+(?:did|does|do|were|was|are|is|has|have|had|will|would|can|could)\b",
                      re.I)


def counted_words(question: str) -> str | None:
    """What a "how many X did …" question counts when X is no unit of a known class ("passenger kilometres", "stores"):
    a sentence's number followed by X is a number of the kind asked."""
    counted = _COUNTED.search(question)
    if not counted or class_of_unit(counted.group(1)):
        return None
    return re.split(r"\s+(?:of|from|in|at|by|for|on|per|with|to)\s+", counted.group(1), maxsplit=1)[0]


def printed_class(question: str) -> str | None:
    """The class of a unit the question prints ("in EUR", "in MWh"); "Scope" and "share(s)" are not units. In "how
    many X did …" the unit is X, the thing counted: "how many passenger kilometres did employees travel" asks
    kilometres, not people, so a unit printed elsewhere counts only when it says so ("in MWh")."""
    counted = _COUNTED.search(question)
    if counted:
        rest = question[counted.end():]
        return class_of_unit(counted.group(1)) or class_of_unit(
            " ".join(m.group(0) for m in re.finditer(r"\b(?:in|as)\s+[^,;?]{1,30}", rest)))
    return class_of_unit(re.sub(r"\b(scope|share|shares)\b", " ", question, flags=re.I))


def named_class(question: str) -> str | None:
    """The class of a unit the question names itself ('in MWh', 'in EUR', 'what percentage', 'how many'), else None."""
    return asked_class(question)


def asked_class(question: str, measure_vec=None, prototype_vecs: dict | None = None) -> str | None:
    """The class of quantity asked: a unit the question names ('in MWh', 'in EUR'), a share asked ('what
    percentage'), else the prototype meaning nearest to the measure (when its vectors are given), else None."""
    named = printed_class(question)
    if named in ("emissions", "energy", "water", "per_share", "currency", "intensity"):
        return named
    if re.search(r"\b(what|which) (percent|percentage|share|proportion)\b|\bin (percent|%)|\bpercentage of\b|"
                 r"\bas a (percent|percentage)\b|\b(margin|rate)\b", question, re.I):
        return "percent"
    if named:
        return named
    if _COUNT_Q.search(question):
        return "count"  # "how many stores", "the number of sites": a count, not an amount or a share
    if measure_vec is None or not prototype_vecs:
        return None
    sims = {k: float(v @ measure_vec) for k, v in prototype_vecs.items()}
    best = max(sims, key=sims.get)
    ranked = sorted(sims.values(), reverse=True)
    # only a clear nearest meaning says what is asked; a measure between two says nothing
    return best if ranked[0] >= 0.35 and ranked[0] - ranked[1] >= 0.05 else None


# -- numbers as printed: table cells (ingestion) and running text (verification, the lead, the eval) ----------------
DASH = "-–—−"
DASHES = r"\-–—−"  # for character classes
_VALUE = re.compile(
    rf"^(?P<sign>[+{DASHES}])?\s*(?P<cur>[$€£])?\s*(?P<open>\()?\s*(?P<sign2>[{DASHES}])?\s*(?P<cur2>[$€£])?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:\.\d{3})+,\d+|\d+(?:[.,]\d+)?)\s*(?P<close>\))?\s*"
    r"(?P<unit>%|pp|p\.p\.|x|bps|[A-Za-z₂€$][\w₂ ./€$]{0,24})?\s*(?P<close2>\))?\s*(?P<foot>\*{1,3}|\(\d\))?$")
_UNIT_WORDS = {
    "%": "%", "pp": "pp", "p.p.": "pp", "bps": "bps", "x": "x",
    "million": "", "millions": "", "mn": "", "m": "", "billion": "", "bn": "", "thousand": "", "k": "",
}
# scale words after a number or in a table's unit line, for table cells and running text alike
SCALE_WORDS = {"thousand": 1e3, "thousands": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6, "mn": 1e6, "mio": 1e6,
               "m": 1e6, "mm": 1e6, "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12}
_SCALE_NAMES = {1e3: "thousand", 1e6: "million", 1e9: "billion"}


def scale_name(factor: float | None, plural: bool = False) -> str:
    """A scale factor as a reader says it — 1e6 → "million" ("millions" for a table's unit line); "" for none."""
    name = _SCALE_NAMES.get(factor or 1.0, "")
    return name + "s" if name and plural else name


# physical and ESG units, as printed → as stored
_UNITS = [
    (re.compile(r"\bk\s?t\s?co\s?2\s?e?\b|\bkilotonnes? co2", re.I), "kt CO2e"),
    (re.compile(r"\bm\s?t\s?co\s?2\s?e?\b|\bmillion (metric )?tonnes? co2", re.I), "Mt CO2e"),
    (re.compile(r"\b(metric )?(t|tonnes?|tons?)\s?(of )?co\s?2\s?e?(q)?\b|\btco\s?2\s?e?\b", re.I), "t CO2e"),
    # energy, by its symbol or spelled out ("megawatt hours" is energy, never a count of hours)
    (re.compile(r"\btwh\b|\bterawatt[- ]?hours?\b", re.I), "TWh"),
    (re.compile(r"\bgwh\b|\bgigawatt[- ]?hours?\b", re.I), "GWh"),
    (re.compile(r"\bmwh\b|\bmegawatt[- ]?hours?\b", re.I), "MWh"),
    (re.compile(r"\bkwh\b|\bkilowatt[- ]?hours?\b", re.I), "kWh"),
    (re.compile(r"\btj\b|\bterajoules?\b", re.I), "TJ"), (re.compile(r"\bgj\b|\bgigajoules?\b", re.I), "GJ"),
    (re.compile(r"\bmj\b|\bmegajoules?\b", re.I), "MJ"),
    (re.compile(r"\bm\s?[³3]\b|\bcubic met", re.I), "m3"), (re.compile(r"\bmegalit|\bml\b", re.I), "ML"),
    (re.compile(r"\blit(er|re)s?\b", re.I), "liters"), (re.compile(r"\bgallons?\b", re.I), "gallons"),
    (re.compile(r"\b(metric )?(tonnes|tons)\b|\bin t\b|^t$", re.I), "t"),
    (re.compile(r"\bheadcount\b|\bemployees\b|\bfte\b", re.I), "employees"),
    (re.compile(r"\bhours\b", re.I), "hours"),
]
_CURRENCY = [(re.compile(r"\$|\busd\b|\bdollars?\b", re.I), "USD"),
             (re.compile(r"€|\b[tk]?eur\b|\beuros?\b", re.I), "EUR"),
             (re.compile(r"£|\bgbp\b|\bpounds? sterling\b", re.I), "GBP"),
             (re.compile(r"\bchf\b|\bswiss francs?\b", re.I), "CHF")]
_SCALE = re.compile(r"(?:\bin\s+|\(|\b)(?:[$€£]|usd|eur|gbp|chf|dollars|euros?)?\s*(thousands|millions|billions|thousand|"
                    r"million|billion|mn|mio\.?|bn|m)\b(?!\s+(?:liters|litres|tonnes|tons|hours|gj|mwh|people))", re.I)


@dataclass
class Cell:
    value: float
    raw: str
    unit: str | None  # from the cell itself ("%", "GJ", "EUR") or None
    scale: float | None  # from the cell itself ("€11,433.7 million") or None


def parse_number(num: str) -> float:
    """'1,234.5' → 1234.5; '0,20' and '1.234,5' (decimal comma) → 0.2, 1234.5."""
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+,\d+", num):
        return float(num.replace(".", "").replace(",", "."))
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", num):
        return float(num.replace(",", ""))
    if re.fullmatch(r"\d+,\d{1,2}", num) or re.fullmatch(r"\d+,\d{4,}", num):
        return float(num.replace(",", "."))  # European decimal comma ("0,20", "70,9")
    return float(num.replace(",", ""))


def read_cell(text: str) -> Cell | None:
    """A table cell's value: '$32,765' → 32765, '(547)' → -547, '–5.3 %' → -5.3 %, '2,296,953 GJ' → GJ.
    Dashes, 'n/a' and words are not values."""
    t = text.strip().replace("\u202f", " ").replace("\xa0", " ")
    m = _VALUE.match(t)
    if not m:
        return None
    try:
        v = parse_number(m.group("num"))
    except ValueError:
        return None
    unit_txt = (m.group("unit") or "").strip()
    negative = bool(m.group("open") and (m.group("close") or m.group("close2"))) or \
        bool(m.group("sign") and m.group("sign") in DASH) or bool(m.group("sign2"))
    unit, scale = None, None
    if unit_txt:
        low = unit_txt.lower()
        first = low.split()[0]
        if low in _UNIT_WORDS and _UNIT_WORDS[low]:
            unit = _UNIT_WORDS[low]
        elif first in SCALE_WORDS:
            scale = SCALE_WORDS[first]
            rest = unit_txt[len(first):].strip()
            unit = unit_of(rest) if rest else None
        else:
            unit = unit_of(unit_txt)
            if unit is None and not re.fullmatch(r"[a-z]{1,2}", low):
                return None  # a word after a number: "10 years", "A320" — not a table value
    cur = m.group("cur") or m.group("cur2")
    if cur:
        unit = currency_of(cur)
    return Cell(-v if negative else v, t, unit, scale)


def unit_of(text: str) -> str | None:
    """A physical or ESG unit named in a text ('t CO2e', 'GJ', 'employees'), else None."""
    for rx, name in _UNITS:
        if rx.search(text):
            return name
    return None


def currency_of(text: str) -> str | None:
    for rx, name in _CURRENCY:
        if rx.search(text):
            return name
    return None


# a currency written with its scale as one unit: "K€", "T€", "TEUR", "kEUR", "Mio. EUR", "Mrd. EUR" before it, or
# "EUR k", "€k", "$k" after it (a thousand is "k" in English and "T" — Tausend — in German-language reports)
_SCALED_CURRENCY = re.compile(r"(?<![\w.])(k|t|mio\.?|mrd\.?|mn|bn)\s?(?:€|eur\b|\$|usd\b|£|gbp\b|chf\b)"
                              r"|(?:€|\beur|\$|\busd|£|\bgbp|\bchf)\s?(k)\b", re.I)
_AFFIX_SCALE = {"k": 1e3, "t": 1e3, "mio": 1e6, "mn": 1e6, "mrd": 1e9, "bn": 1e9}


def scale_of(text: str) -> float | None:
    """The scale a text gives its numbers: "in millions", "$ in thousands", "€ million", "K€", "EUR k"."""
    m = _SCALE.search(text)
    if not m:
        c = _SCALED_CURRENCY.search(text)
        return _AFFIX_SCALE[(c.group(1) or c.group(2)).lower().rstrip(".")] if c else None
    w = m.group(1).lower().rstrip(".")
    if w == "m" and not re.search(r"[$€£]\s?m\b|\b(usd|eur|gbp)\s?m\b|\bin m\b|\(m\)", text, re.I):
        return None
    return SCALE_WORDS.get(w)


# -- numbers in running text -----------------------------------------------------------------------------------------
# 1,577 | 1577 | (1,577) | $1.6 billion | 12.5% | -3.2
_NUMBER = re.compile(r"(?<![\w.])(\(?-?\$?[ \t]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|\(?-?\$?[ \t]?\d+(?:\.\d+)?)\)?"
                     r"([ \t]?%|[ \t]?(?:thousand|millions?|billions?|trillion|mn|bn|tn|mm|[kmb])\b)?", re.I)
MARKER = re.compile(r"\[(\d{1,2})\]")  # a citation marker, "[3]": the one pattern every module reads markers with
# Numbers that are names, not quantities: pages, form types, periods, items, notes, citation markers.
_NOT_QUANTITY = re.compile(r"\b((?:19|20)\d{2}-\d{2}-\d{2}\b|pp?\.\s*\d+(\s*[–-]\s*\d+)?|\d+-[kq]\b|q[1-4]\b|fy\s*'?\d{2,4}|item\s+\d+[a-z]?|"
                           r"note\s+\d+|part\s+[ivx]+|scope\s+[123]|figure\s+\d+|table\s+\d+|[1-4]q\b|"
                           rf"{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
                           rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_WORD})",
                           re.I)


@dataclass(frozen=True)
class Num:
    value: float  # with its scale: "$1.6 billion" → 1.6e9
    percent: bool
    raw: str
    decimals: int = 0  # digits after the point as written: the precision of a rounded number
    scale: float = 1.0


def numbers(text: str) -> list[Num]:
    """Numbers of a text with their scale: '$1.6 billion' → 1.6e9, '1,577' → 1577, '12.5%' → 12.5 (percent).
    Years (1900–2100 without decimals or scale), pages, form names, periods and citation markers are not numbers."""
    out: list[Num] = []
    clean = _NOT_QUANTITY.sub(" ", MARKER.sub(" ", text))
    clean = re.sub(r"(\d)[ \t]*(?:percentage points?|pp\b|percent|per cent)\b", r"\1%", clean, flags=re.I)
    for m in _NUMBER.finditer(clean):
        raw, suffix = m.group(1), (m.group(2) or "").strip().lower()
        if suffix in ("k", "m", "b") and "$" not in raw and not ("." in raw and m.group(2) in ("M", "B")):
            continue  # a name ("3M", "5G") or a length ("2.5 m"); "16.4B tokens", "81.1M papers" are amounts
        if not suffix and m.end() < len(clean) and clean[m.end()].isalpha():
            continue  # "A320", "10x" are names or units we do not compare
        digits = raw.replace("$", "").replace(",", "").replace("(", "").replace(" ", "")
        try:
            v = abs(float(digits))
        except ValueError:
            continue
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        if not suffix and "." not in digits and "," not in raw and 1900 <= v <= 2100:
            continue  # a year
        if suffix == "%":
            out.append(Num(v, True, m.group(0), decimals))
            continue
        scale = SCALE_WORDS.get(suffix, 1.0)
        out.append(Num(v * scale, False, m.group(0), decimals, scale))
    return out


def same_number(a: Num, b: Num) -> bool:
    """a (as written in the answer) is b (from the evidence) in another format or scale: 1,577 ~ 1577 ~
    $1.6 billion when the table is in millions; rounding is allowed to the precision a was written with."""
    if a.percent != b.percent:
        return False
    tol = 0.5 * (10 ** -a.decimals) * a.scale
    for unit in (1.0, 1e3, 1e6, 1e9):  # the evidence may state the number in a table's unit ("in millions")
        x = b.value * unit
        if abs(a.value - x) <= max(tol, 1e-9 * max(abs(x), 1.0)):
            return True
        if a.scale == 1.0:
            break  # an unscaled number in the answer is compared as written
    return False
