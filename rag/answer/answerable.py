"""Answerability: "Insufficient data: …" when the documents do not give the asked measure for the asked entity and
period — a company that is not in the library, a period no document covers, a measure no fact or sentence
reports, a breakdown the tables do not give. Never the nearest number about something else."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.answer.extractive import _terms
from rag.answer.lead import Ask
from rag.answer.lead import _terms as lead_terms
from rag.answer.parts import PART_NOUNS, breakdown_terms, part_forms  # noqa: F401 (part_forms re-exported)
from rag.domain import ANNUAL_TYPES, periods_in
from rag.issuers import norm
from rag.records import DocumentMeta
from rag.retrieve.query import QueryIntent

# capitalised words that are not names of companies: question words, months, finance and reporting terms
_NOT_NAMES = set("""what which who whom whose how why when where is are was were does do did has have had can could
will would should may might please compare show list give tell find calculate assume answer based using according
in on of for the a an and or by from to at with as between versus vs than over during per across into
fy fiscal q1 q2 q3 q4 h1 h2 ytd ttm ltm yoy gaap non-gaap ifrs ebit ebitda eps capex opex fcf roa roe roic dpo
cogs sg&a r&d d&a pp&e ppne ppe esg ghg co2 co2e scope kpi kpis ceo cfo coo board us usa u.s. uk eu europe europeans
americas asia emea apac latam china germany france japan india canada mexico brazil austria sweden croatia serbia
slovenia bosnia herzegovina montenegro
january february march april may june july august september october november december
form item note part section table figure chart exhibit annual quarterly report reports filing filings statement
statements balance sheet cash flow flows income operations consolidated total net gross operating adjusted
sustainability nonfinancial non-financial report usd eur gbp dollars euro euros million millions billion billions
data center gaming embedded client segment segments products services""".split())
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
            words = [w for w in re.split(r"\s+", name) if w.lower().strip("'’s") not in _NOT_NAMES]
            if not words or len(name) < 2:
                continue
            if all(w.lower() in _NOT_NAMES or re.fullmatch(r"(FY|Q[1-4])?'?\d{2,4}", w) for w in name.split()):
                continue
            out.append(" ".join(words))
    return list(dict.fromkeys(out))


def unknown_entities(store, intent: QueryIntent, issuers, docs: list[DocumentMeta]) -> list[Unknown]:
    """The names a question uses as its subject that no document is about: not an issuer's name, not in a
    document's title or company; 'mentioned' when some passage still names it."""
    if intent.companies:
        return []
    known_text = " ".join(norm(f"{d.title or ''} {d.company or ''} {d.file_name}") for d in docs)
    out = []
    for name in named_entities(intent.question):
        if issuers.find(name) or issuers.names_term(name):
            continue
        if norm(name) and f"{norm(name)}" in known_text:
            continue
        terms = [t for t in re.findall(r"[A-Za-z][\w&\-]+", name) if t.lower() not in _NOT_NAMES]
        if not terms:
            continue
        missing = store.terms_missing(terms, None)
        out.append(Unknown(name, mentioned=len(missing) < len(terms)))
    return out


def uncovered_period(store, ask: Ask, intent: QueryIntent, docs: list[DocumentMeta], passages=()) -> str | None:
    """A period the asked issuer's documents do not cover: no document of that year (or quarter), no table column
    for it, and no retrieved passage of the issuer that prints the year (a 2022 figure in the text of a 2023 report,
    "(2022: 1,293.5 t)", covers 2022). Forward-looking questions (plans for next year) are answered from this
    year's report."""
    if intent.forward or not ask.years or not ask.companies:
        return None
    mine = [d for d in docs if d.company_key in ask.companies]
    if not mine:
        return None
    for y in ask.years:
        if ask.quarter:
            has_doc = any(y in d.years and (d.fiscal_period == ask.quarter or
                                              (ask.quarter == "Q4" and d.doc_type in ANNUAL_TYPES)) for d in mine)
        else:
            has_doc = any(y in d.years for d in mine)
        if has_doc or (not ask.quarter and any(c.company_key in ask.companies and _prints_period(c.content or "", y)
                                               for c in passages)):
            continue
        own_year = {d.document_id: d.fiscal_year for d in mine}
        # the measure asked, in that year's column of some table (a later filing's comparative columns count)
        facts = store.match_facts(ask.query, document_ids=[d.document_id for d in mine], fiscal_years=[y],
                                  match_count=50)
        # a reported period's column, not a schedule of future years (debt maturities, commitments)
        facts = [f for f in facts if y <= (own_year.get(f.document_id) or 0) and f.fiscal_period == (ask.quarter or "FY")]
        if facts:
            continue
        years = sorted({yy for d in mine for yy in ([d.fiscal_year] if d.fiscal_year else [])})
        span = f"FY{years[0]}–FY{years[-1]}" if len(years) > 1 else (f"FY{years[0]}" if years else "no year")
        who = sorted({d.company for d in mine if d.company})
        what = f"{ask.quarter} FY{y}" if ask.quarter else f"FY{y}"
        return f"no document of {', '.join(who) or 'that issuer'} covers {what} (the library has {span})"
    return None


def _prints_period(text: str, year: int) -> bool:
    """A passage gives a figure for the year: "(2022: 1,293.5 t)", "in 2022", "for fiscal 2022", "as of December
    31, 2022" — not a year inside a name ("the 2017 Tax Act")."""
    return bool(re.search(rf"\(\s*(?:fy\s?)?{year}\s*:\s*[-−–(]?[$€£]?\s?\d|\b(?:in|for|during|fiscal(?: year)?|fy|"
                          rf"year|as of|as at|at|compared (?:to|with))\s+(?:[A-Z][a-z]+\.?\s+\d{{1,2}},\s+)?{year}\b",
                          text, re.I))


def measure_words(ask: Ask, question: str) -> str:
    """The asked measure in the question's own words, for the message."""
    stems = set(ask.terms)
    parts = part_stems(question, breakdown_terms(question, set()))
    words = [w for w in re.findall(r"[A-Za-z][\w&\-]*", question) if _terms(w) and _terms(w)[0] in stems
             and _terms(w)[0] not in parts]
    return " ".join(dict.fromkeys(words)) or "the asked figure"


def part_stems(question: str, parts: list[str]) -> set[str]:
    """The words that name the parts asked ("Japanese", "Japan") and the kind of part ("plant", "product"): not
    the measure's words."""
    if not parts:
        return set()
    stems = {t for p in parts for f in part_forms(p) for t in lead_terms(f)}
    return stems | set(lead_terms(" ".join(PART_NOUNS.findall(question))))


def not_reported(ask: Ask, question: str, who: str) -> str:
    when = f" for FY{ask.years[-1]}" if ask.years else ""
    return f"the documents{' of ' + who if who else ''} do not report {measure_words(ask, question)}{when}"


def periods_named(question: str) -> list[str]:
    return [str(p) for p in periods_in(question)]


def covers(text: str, term: str) -> bool:
    t = norm(text)
    return any(norm(f) in t for f in part_forms(term))
