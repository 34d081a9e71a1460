"""Quantities as types: the unit class of a number as printed (currency, %, t CO2e, energy, FTE and headcount, …) and
the class of quantity a question asks for. Units are a closed class, the same in every report, so a rule on them
holds for documents never read; what a measure *means* is left to the embedding model (`rag/answer/fit.py`).

Numbers themselves are parsed by `rag.answer.verify.numbers` (value, scale, decimals, percent) and table units by
`rag.ingest.facts.unit_of` / `currency_of`; this module maps both onto the classes below."""

from __future__ import annotations

import re

__all__ = ["CLASSES", "asked_class", "class_of_unit", "classes_near_numbers", "compatible", "quantities_in",
           "answer_type"]

# currency | percent | emissions | energy | water | mass | headcount | per_share | hours | count
CLASSES = ("currency", "percent", "emissions", "energy", "water", "mass", "headcount", "per_share", "hours", "power",
           "duration", "count", "intensity")

_UNIT_CLASS = [  # a unit as printed next to a number or in a table's unit line → its class
    # one quantity per another (t CO2e per € million of sales, kWh / employee): a ratio, never the total it divides;
    # "per year" is still an amount (a flow over its period), "per cent" and "per share" are classes of their own
    (re.compile(r"\bintensity\b|\bper (?!cent\b|centage|share\b|common|ordinary|diluted|basic|year\b|annum\b|month\b|"
                r"day\b|week\b)(?:unit of |€|\$|[a-z])|(?<![\w])(?:t|kg|g|tons?|tonnes?|kwh|mwh|gwh|gj|mj|m3|m³|tco2e?)\s?/\s?(?!share\b|"
                r"year\b|yr\b|a\b)[a-z€$]", re.I), "intensity"),
    (re.compile(r"co\s?[2₂]\s?e?|\bghg\b|carbon", re.I), "emissions"),
    (re.compile(r"\b[kmgtp]?wh\b|\b[gtp]j\b|\bjoules?\b|\bmegajoules?\b|\bgigajoules?\b|"
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
_NUM = re.compile(r"(?<![\w.])[-+–]?[$€£]?\s?\(?\d(?:[\d,.']*\d)?\)?")


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
        after = text[m.end(): m.end() + window]
        before = text[max(0, m.start() - 5): m.start()]
        after = re.split(r"[,;]|\s[-+(]?\d", after, maxsplit=1)[0]  # up to the next number or clause
        cls = class_of_unit(raw) or class_of_unit(after) or (class_of_unit(before) if re.search(r"[$€£]|\b(usd|eur|gbp|chf)\s*$", before, re.I)
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
                      r"diagram)s? (of|showing|that shows|with)\b|\bis there a (chart|graph|figure|plot)\b", re.I)
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


def printed_class(question: str) -> str | None:
    """The class of a unit the question prints ("in EUR", "in MWh"); "Scope" and "share(s)" are not units."""
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
