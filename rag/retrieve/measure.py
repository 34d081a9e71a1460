"""What a question asks, read once when the question is understood (the Understand stage): the measure's words and
the filings' words for them, the periods (years, a quarter, dates, the length of period), the companies, the metric it
names or defines, the unit it prints, the parts it asks a figure for, and the names it uses as its subject. Retrieval's
Facts stage fetches the facts for it; the answer layer judges them (`rag/answer/`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from rag.domain import MONTH, MONTH_NAMES, month_number, periods_in
from rag.issuers import norm
from rag.metrics import Metric, defined_metric, item_metric, metric_of, without_definition
from rag.parts import breakdown_terms, part_forms
from rag.quantities import answer_type, named_class
from rag.records import Candidate, DocumentMeta
from rag.retrieve.query import FINANCE_TERMS, QueryIntent
from rag.words import STOP as _STOP
from rag.words import stem as _stem
from rag.words import terms as _all_terms

# words that say what kind of answer is wanted, not what is measured
_ASK_WORDS = set(_stem(w) for w in """amount value figure number reported report reports disclosed show shows
shown according based statement statements consolidated one two three
respectively compare compared comparison change changes grow growth increase increased decrease decreased
percent percentage round rounded decimal places place units unit usd dollars euro eur term terms
fy fiscal quarter quarterly annual annually year years yoy year-over-year prior previous latest end ending ended
fast quickly rapidly segment segments non gaap unadjusted higher lower more less point points than
size sizes big large small spent spend spending
generate generated come came comes across versus vs reach reached record recorded total overall level levels much many analyst public equities
investment banker assume calculate financial metric following question primarily information provided details
relying response""".split())
_LABEL_STOP = _STOP - {"use", "total"}  # "Total energy use": words a label is made of
ASK_WORDS = _ASK_WORDS


def label_terms(text: str) -> tuple[str, ...]:
    """A label's or a question's words, stemmed (the public name of _terms)."""
    return _terms(text)


@lru_cache(maxsize=65536)
def _terms(text: str) -> tuple[str, ...]:
    """A label's or a question's words, stemmed; "Scope 1" is one word (scope1), not "scope" (cached: the same
    labels are read for every question)."""
    text = re.sub(r"\b(scope|tier|level|category)\s*([1-9])\s*(?:and|\+|&|,)\s*([1-9])\b", r"\1\2 \1\3", text,
                  flags=re.I)
    text = re.sub(r"\b(scope|tier|level|category|phase|stage)\s*([1-9])\b", r"\1\2", text, flags=re.I)
    text = re.sub(r"['’]s\b", "", text)
    return tuple(_all_terms(text, _LABEL_STOP))


# words that make a row a part of a whole (stems): a row that has one the question does not ask for is a part

# the words questions use for what tables label otherwise (stems)
SYNONYMS = {"consum": "use consumption", "consumpt": "use consumed", "revenu": "sales", "sale": "revenue",
            "earn": "income", "profit": "income earnings", "headcount": "employees", "workforc": "employees",
            "staff": "employees", "employ": "employees", "people": "employees", "cost": "expenses",
            "expens": "costs", "spend": "expenditure expenses",
            "oper": "organization"}  # "its own operations": GRI's "within the organization"


def synonym_words(term: str) -> list[str]:
    return [w for key, ws in SYNONYMS.items() if term.startswith(key) for w in ws.split()]


def synonyms(term: str) -> set[str]:
    """The stems of the words tables use for a question's word ('consume' → 'use', 'consumption')."""
    return {t for w in synonym_words(term) for t in _terms(w)}



_CHANGE_Q = re.compile(r"\b(change[sd]?|grow(th|n)?|grew|increase[sd]?|decrease[sd]?|decline[sd]?|"
                       r"year[- ]over[- ]year|yoy|improv\w*|versus|vs\.?|compared?)\b", re.I)

STATEMENT_WORDS = {"cash flows": re.compile(r"cash ?flows?", re.I),
                    "balance sheet": re.compile(r"balance sheet|financial position", re.I),
                    "income statement": re.compile(r"income statement|statements? of (operations|income|earnings)|"
                                                   r"p&l|profit and loss", re.I)}



# the instructions around a question (FinanceBench style): not what is measured
_INSTRUCTIONS = [re.compile(p, re.I) for p in (
    r"\b(give|provide) (a|an|the) (response|solution|answer)\b[^.?:]*[.?:]?",
    r"\b(answer|respond) (the following question )?(by|using|in|based)\b[^.?:]*[.?:]?",
    r"\bassume (that )?you are\b[^.?:]*[.?:]?", r"\byou are an? [\w ]+?(?:[.:,]|$)",
    r"\b(by )?(primarily )?(relying|based|using|focusing) (only )?(on|upon)? ?(the )?(details|information|data)?[^.?]*"
    r"(statement|sheet|shown|provided|filing)s?\b[.?]?",
    r"\(?\bin units of [^)?.]*\)?", r"\(?\b(answer|expressed|reported)? ?in (usd|eur|\$) ?(millions|billions|thousands)\b\)?",
    r"\(?\bround(ed)? (your answer )?to (one|two|three|\d+) decimal places?\)?", r"\bplease\b",
    r"\bif [^.?]*(is not|isn't) (a )?(useful|relevant)[^.?]*[.?]?", r"\bwe need to calculate a financial metric\b[^.?:]*[.?:]?",
    r"\bthe following question\b:?", r"\b(of|from) the (income|cash flow|cash flows) statement\b",
    r"\((?:formerly|previously|now|also) (?:known as|called|named)\b[^)]*\)",  # a name note: who, not what
    r"\b(income|cash ?flows?) statement\b|\bbalance sheets?\b|\bstatements? of (financial position|cash flows|"
    r"operations|income)\b")]


END_DATE = re.compile(rf"\b({MONTH})\s+(?:(\d{{1,2}}),?\s+)?((?:19|20)\d{{2}})\b", re.I)
# the words that name a period rather than the measure: "the three months ended June 2, 2023", "the December
# 2022 quarter", "the second quarter of fiscal 2023", "as of January 28, 2023"
_PERIOD_PHRASE = re.compile(
    rf"\b(?:(?:three|six|nine|twelve|3|6|9|12|13|26|39|52|53)[- ](?:months?|weeks?)|(?:fiscal )?(?:quarter|year|period)"
    rf"s?)\s+(?:ended|ending|through)(?:\s+on)?\b|\bas of\b|\b{MONTH}\s+(?:\d{{1,2}},?\s+)?(?:19|20)\d{{2}}\b|"
    rf"\b(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter\b|\bfirst half\b|\bhalf[- ]year\b",
    re.I)


def period_ends(question: str) -> list[tuple[int, int, int | None]]:
    """The period ends a question names by date: (year, month, day or None) — "three months ended June 2, 2023",
    "the December 2022 quarter", "as of January 28, 2023"."""
    out = []
    for m in END_DATE.finditer(question):
        month = month_number(m.group(1))
        if month:
            out.append((int(m.group(3)), month, int(m.group(2)) if m.group(2) else None))
    return list(dict.fromkeys(out))


def span_of(question: str) -> str | None:
    """The length of period a question asks: a quarter ("three months", "quarter", "Q2"), a half, nine months."""
    if re.search(r"\b(nine|9)[- ]months?\b|\b39 weeks\b|\b9m\b|\bfirst nine\b", question, re.I):
        return "9M"
    if re.search(r"\b(six|6)[- ]months?\b|\b26 weeks\b|\bfirst half\b|\bh1\b|\bhalf[- ]year\b", question, re.I):
        return "H1"
    if re.search(r"\b(three|3)[- ]months?\b|\b13 weeks\b|\bquarter\b|\bq[1-4]\b|\b[1-4]q\b", question, re.I):
        return "Q"
    return None



_PHYSICAL = ("kt CO2e", "Mt CO2e", "t CO2e", "TWh", "GWh", "MWh", "kWh", "TJ", "GJ", "MJ", "m3", "ML", "liters", "gallons",
             "t")


def asked_unit(question: str) -> str | None:
    """The physical unit a question names ("in MWh", "(t CO2e)"), if any: what the answer should be in."""
    from rag.quantities import unit_of
    u = unit_of(question)
    return u if u in _PHYSICAL else None



# a sentence that talks about the task rather than what is asked: the question, the answer, the analyst, rounding,
# the statements to use ("Calculate what was asked by utilizing the line items clearly shown in the statement of
# income.", "Approach the question asked by assuming the standpoint of an investment banking analyst …")
_ABOUT_THE_TASK = re.compile(r"\b(?:questions?|answers?|asked|respon(?:d|se)|analysts?|round(?:ed|ing)?|decimals?|"
                             r"units? of|approach|assum(?:e|ing)|as if|you|your|we|us|our|please|here's|here is|help|"
                             r"utiliz\w*|basing|relying|statements?|sheets?|line items?)\b", re.I)
# a sentence that defines what is asked: kept beside the question ("Define unadjusted EBITDA as …", "X is calculated
# as …"); "We need to calculate a financial metric by using …" speaks of the task
_DEFINES = re.compile(r"\bdefine[sd]?\b|\bdefined as\b|\bcalculated (?:as|by|using)\b|=", re.I)
# a lead-in that names the part of the filing to read or speaks of the answer, before the asking clause: "According to
# the details outlined in the P&L statement, what is …" — not a condition ("If we exclude M&A, which segment …") or
# a source the measure is attributed to ("According to the logistics providers, how much GHG …"): those are asked
_SOURCE_LEAD_IN = re.compile(r"\b(?:statements?|sheets?|line items?|p&l|details|information|questions?|answer\w*)\b",
                             re.I)
# where the asking clause begins, after a lead-in: "Here's the question: what is …", "According to …, what is …"
_ASK_START = re.compile(r"(?::|,)\s+(?=(?:what|which|how|who|when|where|why)\b)", re.I)


def asking_part(question: str) -> str:
    """The sentences of a question that ask (end in "?") and those that define what is asked, without the sentences
    around them that speak about the task (which statement to use, how to round, whom to play); an asking sentence
    from its question word on, after a lead-in ("According to the P&L statement, what is …"). A question of one
    sentence, or of questions only, is kept whole."""
    parts = [p for p in re.split(r"(?<=[a-z0-9)\]%]{2}[.!?])\s+(?=[A-Z(])", question.strip()) if p]
    asking = [p for p in parts if p.rstrip().endswith("?")]
    if not asking:
        return question
    out = []
    for p in parts:
        if p in asking:
            starts = list(_ASK_START.finditer(p))  # the last lead-in before the question word
            m = starts[-1] if starts else None
            out.append(p[m.end():] if m is not None and _SOURCE_LEAD_IN.search(p[: m.start()]) else p)
        elif _DEFINES.search(p) or not _ABOUT_THE_TASK.search(p):
            out.append(p)
    return " ".join(out)


def strip_instructions(question: str) -> str:
    """The question without the instructions around it (the sentences about the task: `asking_part`; 'Give a
    response … by relying on the cash flow statement', 'in USD millions', 'round to one decimal place')."""
    q = asking_part(question)
    for rx in _INSTRUCTIONS:
        q = rx.sub(" ", q)
    return re.sub(r"\s+", " ", q).strip()


@dataclass
class Ask:
    """What a question asks, read once (`asked`): the measure's words, the periods it names, the metric it names or
    defines, the unit and unit class it prints, the parts it asks a figure for, and the answer type it expects."""
    terms: list[str]  # the measure's words, stemmed
    expansion: set[str]  # the filings' words for its finance terms
    years: list[int]
    quarter: str | None
    companies: list[str]
    metric: Metric | None
    change: bool
    statement: str | None
    question: str = ""
    history: bool = False
    words: list[str] = field(default_factory=list)  # the question's own words for the measure (unstemmed)
    jargon: list[frozenset[str]] = field(default_factory=list)  # its terms filings write otherwise (capex, PP&E)
    weights: dict[str, float] = field(default_factory=dict)  # each measure word's weight (rarer among the rows: more)
    ends: list[tuple[int, int, int | None]] = field(default_factory=list)  # period ends named by date
    span: str | None = None  # the length of period asked: Q, H1, 9M (None: a year, or not said)
    unit: str | None = None  # the unit the question names ("(MWh)", "in t CO2e"): a preference, not a label word
    parts: list[str] = field(default_factory=list)  # named parts asked ("in Germany", "Commercial Airplanes")
    dated: bool = False  # the years asked are the calendar years of dates, not fiscal years the question names
    dated_as: frozenset = frozenset()  # the (fiscal year, period) the filings file those dates under
    named: list[str] = field(default_factory=list)  # names no document is about, that an answer's figure must name
    unit_class: str | None = None  # the class of the unit the question names (rag/quantities.py), None: not named
    figure: bool = False  # a figure is wanted (how much / how many, a metric, a measure in a period)
    answer_type: str = "open"  # quantity, count, share, list, yes/no, description, chart or open

    @property
    def target_ends(self) -> list[tuple[int, int, int | None]]:
        """The dated periods whose figure leads: for a change between two, the later."""
        return sorted(self.ends)[-1:] if self.change and len(self.ends) == 2 else self.ends

    @property
    def jargon_terms(self) -> set[str]:
        return {t for g in self.jargon for t in g}

    @classmethod
    def of(cls, intent: QueryIntent) -> Ask:
        q = intent.question
        names = {t for n in intent.company_names + intent.companies + intent.company_terms for t in _terms(n)}
        unit = asked_unit(q)
        plain = _PERIOD_PHRASE.sub(" ", strip_instructions(intent.rewritten))
        own = [t for t in dict.fromkeys(_terms(plain)) if t not in names
               and t not in _ASK_WORDS
               and not re.fullmatch(r"(fy|q[1-4])?'?\d{2,4}", t)]
        expansion = {t for t in set(_terms(intent.text_query)) - set(_terms(intent.rewritten)) - names - _ASK_WORDS
                     if not re.fullmatch(r"(fy|q[1-4])?'?\d{2,4}", t)}
        periods = periods_in(q)
        named = periods_in(END_DATE.sub(" ", q))  # "the December 2022 quarter (second quarter of fiscal 2023)"
        if named and period_ends(q):
            periods = named  # the fiscal period named beside a date is the one its columns are filed under
        dated = bool(period_ends(q)) and not named
        years = sorted({p.year for p in periods}) or [y for y in intent.years if not intent.forward]
        quarter = next((p.quarter for p in periods if p.quarter), None)
        statement = next((k for k, rx in STATEMENT_WORDS.items() if rx.search(q)), None)
        words = [w for w in re.findall(r"[A-Za-z][\w&\-]*", plain) if (_terms(w) or [""])[0] in own]
        extra = intent.text_query[len(intent.rewritten):] if intent.text_query.startswith(intent.rewritten) else ""
        words += [w for w in re.findall(r"[A-Za-z][\w&\-]*", extra) if (_terms(w) or [""])[0] in expansion]
        groups = [frozenset(_terms(m.group(0))) & set(own) for pat, _ in FINANCE_TERMS for m in pat.finditer(plain)]
        jargon = [g for g in groups if g]
        ends = period_ends(strip_instructions(q))
        parts = breakdown_terms(q, {norm(w) for n in intent.company_names + intent.companies + intent.company_terms
                                    for w in n.split()})
        parts = [f for p in parts for f in part_forms(p)]
        metric = defined_metric(q) or metric_of(q) or item_metric(q)  # the question's own definition first
        ask = cls(own, expansion, years, quarter, list(intent.companies), metric,
                  bool(_CHANGE_Q.search(without_definition(q))),
                  statement, q, intent.history, list(dict.fromkeys(words)), jargon, ends=ends,
                  span=span_of(q) or ("Q" if quarter else None), unit=unit, parts=parts, dated=dated,
                  unit_class=named_class(strip_instructions(q)))
        ask.figure = asks_figure(intent, ask)
        ask.answer_type = answer_type(strip_instructions(intent.rewritten), ask.figure)
        return ask

    @property
    def fact_years(self) -> list[int] | None:
        """The fiscal years whose facts may answer: those asked, the one before each (a comparative, a change) and,
        for a span of dated periods, the one after."""
        if not self.years:
            return None
        return sorted(set(self.years) | {y - 1 for y in self.years} |
                      {y + 1 for y in self.years if self.dated and self.span})

    def to_dict(self) -> dict:
        """What the trace shows of it (`search --trace`, the Debug page)."""
        return {"measure": " ".join(self.words), "terms": self.terms, "years": self.years, "quarter": self.quarter,
                "span": self.span, "companies": self.companies, "metric": self.metric.name if self.metric else None,
                "change": self.change, "unit": self.unit, "unit_class": self.unit_class, "parts": self.parts,
                "answer_type": self.answer_type, "statement": self.statement}

    @property
    def query(self) -> str:
        """The words to search the facts' labels with (Postgres stems them its own way)."""
        syn = [w for t in self.terms for w in synonym_words(t)]
        return " ".join(dict.fromkeys(self.words + syn))


_NARRATIVE = re.compile(r"\b(agenda|nature|purpose|reasons?|impact|strategy|strategies|risks?|description|summary|role|"
                        r"policy|policies|approach|outlook|focus|highlights?|business|industry|products?|customers?|"
                        r"events?|acquisitions?|plans?|goals?|targets?|initiatives?|drivers?|factors?)\b", re.I)


def asks_figure(it, ask: Ask) -> bool:
    """The question wants a figure: how much / how many, a metric, or what a measure was in a period."""
    q = strip_instructions(it.question)
    return bool(it.wants_number or it.asks_quantity or ask.metric or (
        ask.years and not it.explain and (re.match(r"\s*what (is|was|were)\b", q, re.I) or _TERSE.match(q))))


# "Adobe Digital Experience segment revenue, fiscal 2021?": a measure and a period, no question word
_TERSE = re.compile(r"(?!\s*(?:what|how|why|which|who|whom|where|when|does|did|do|is|are|was|were|has|have|can|could|"
                    r"should|would|will|describe|explain|list|summari[sz]e|compare|show|tell|give|provide|discuss)\b)"
                    r"\s*[\w&'’.\- ]{3,80}(?:,|\bin\b|\bfor\b)?\s*(?:fiscal|fy|q[1-4]|\d{4})", re.I)


def demands_figure(it, ask: Ask) -> bool:
    """A figure and nothing else answers: how much / how many, a metric, a figure-word question — not 'which …',
    not 'why …' (those are answered in words, and a passage can answer them)."""
    q = strip_instructions(it.question)
    if it.explain or re.match(r"\s*(which|who|whom|where|why|describe|explain|list)\b", q, re.I):
        return False
    if it.asks_quantity or ask.metric or it.wants_number:
        return True
    # "What was X's <measure> in <period>?" wants a figure, unless the measure is a thing described in words
    return bool(ask.years and re.match(r"\s*what (is|was|were)\b", q, re.I) and not _NARRATIVE.search(q))


def asked(intent: QueryIntent) -> Ask:
    """The question's Ask: read once and kept on the intent (the Understand stage reads it); each caller gets its
    own copy to annotate."""
    if intent.measure is None:
        intent.measure = Ask.of(intent)
    return replace(intent.measure, named=list(intent.measure.named))


def scope_documents(ask: Ask, chunks: list[Candidate], docs: list[DocumentMeta]) -> list[int]:
    """The documents whose facts may answer: the asked issuers' (of the asked years, and the next year's filing
    with its comparative column), else the documents retrieval found."""
    if ask.companies:
        mine = [d for d in docs if d.company_key in ask.companies]
        if ask.years:
            want = set(ask.years) | {y + 1 for y in ask.years}
            dated = [d for d in mine if d.years & want]
            mine = dated or mine
        return [d.document_id for d in mine]
    return list(dict.fromkeys(c.document_id for c in chunks))


# capitalised words that are not names of companies: question words, months, finance and reporting terms
NOT_NAMES = set("""what which who whom whose how why when where is are was were does do did has have had can could
will would should may might please compare show list give tell find calculate assume answer based using according
in on of for the a an and or by from to at with as between versus vs than over during per across into
fy fiscal q1 q2 q3 q4 h1 h2 ytd ttm ltm yoy gaap non-gaap ifrs ebit ebitda eps capex opex fcf roa roe roic dpo
cogs sg&a r&d d&a pp&e ppne ppe esg ghg co2 co2e scope kpi kpis ceo cfo coo board us usa u.s. uk eu europe europeans
americas asia emea apac latam china germany france japan india canada mexico brazil austria sweden croatia serbia
slovenia bosnia herzegovina montenegro
form item note part section table figure chart exhibit annual quarterly report reports filing filings statement
statements balance sheet cash flow flows income operations consolidated total net gross operating adjusted
sustainability nonfinancial non-financial report usd eur gbp dollars euro euros million millions billion billions
data center gaming embedded client segment segments products services""".split()) | set(MONTH_NAMES)
_FRAMED = [  # a name used as the subject of a question
    r"(?P<n>{N})['’]s\b", r"\b(?:for|of|at|by|did|does|do|has|is|was|were)\s+(?P<n>{N})\b(?!['’])",
]
_NAME = r"(?:[A-Z][\w&.\-]*[A-Za-z0-9]|[A-Z])(?:\s+(?:&\s+)?[A-Z][\w&.\-]*[A-Za-z0-9])*"


@dataclass
class Unknown:
    name: str
    mentioned: bool  # some document mentions it (as a partner, a competitor …)


def named_entities(question: str) -> list[str]:
    """Capitalised names a question uses as its subject ("Microsoft's revenue", "revenue for Johnson & Johnson")."""
    out: list[str] = []
    for pat in _FRAMED:
        for m in re.finditer(pat.format(N=_NAME), question):
            name = m.group("n").strip()
            words = [w for w in re.split(r"\s+", name) if w.lower().strip("'’s") not in NOT_NAMES]
            if not words or len(name) < 2:
                continue
            if all(w.lower() in NOT_NAMES or re.fullmatch(r"(FY|Q[1-4])?'?\d{2,4}", w) for w in name.split()):
                continue
            out.append(" ".join(words))
    return list(dict.fromkeys(out))
