"""Answerability: "Insufficient data: …" when the documents do not give the asked measure for the asked entity and
period — a company that is not in the library, a period no document covers, a measure no fact or sentence
reports, a breakdown the tables do not give. Never the nearest number about something else."""

from __future__ import annotations

import re

from rag.domain import periods_in
from rag.issuers import norm
from rag.parts import PART_NOUNS, breakdown_terms, part_forms
from rag.records import DocumentMeta
from rag.retrieve.facts import FactBook
from rag.retrieve.measure import Ask
from rag.retrieve.measure import label_terms as lead_terms
from rag.words import terms as _terms


def uncovered_period(ask: Ask, docs: list[DocumentMeta], book: FactBook) -> str | None:
    """A period the asked issuer's documents do not cover (the Facts stage found no document, table column or
    chosen passage of that year: `rag/retrieve/facts.uncovered_years`), said with the years the library has."""
    if not book.uncovered:
        return None
    y = book.uncovered[0]
    mine = [d for d in docs if d.company_key in ask.companies]
    years = sorted({yy for d in mine for yy in ([d.fiscal_year] if d.fiscal_year else [])})
    span = f"FY{years[0]}–FY{years[-1]}" if len(years) > 1 else (f"FY{years[0]}" if years else "no year")
    who = sorted({d.company for d in mine if d.company})
    what = f"{ask.quarter} FY{y}" if ask.quarter else f"FY{y}"
    return f"no document of {', '.join(who) or 'that issuer'} covers {what} (the library has {span})"


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
