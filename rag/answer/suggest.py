"""Questions to offer: examples built from what is in the store (the demo page), and follow-ups to an answer."""

from __future__ import annotations

import re

from rag.answer.labels import short_company, shorten
from rag.answer.model import Answer
from rag.records import DocumentMeta
from rag.retrieve.query import QueryIntent


def _pos(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


BANK = re.compile(r"\b(bank|banc|bancorp|bancshares|banking|savings|credit union)\b", re.I)
KIND_ORDER = ("10-K", "annual report", "10-Q", "earnings release", "8-K", "sustainability report", "research paper",
              "other")


def _when(d: DocumentMeta) -> str:
    if not d.fiscal_year:
        return ""
    if d.fiscal_period and d.fiscal_period.startswith("Q"):
        return f" in {d.fiscal_period} FY{d.fiscal_year}"
    return f" in FY{d.fiscal_year}"


def _paper_name(d: DocumentMeta) -> tuple[str, bool]:
    """How an analyst names a paper, and whether the name is its title's: the title's own short name ("PaperMage"
    of "PaperMage: A Unified Toolkit…"), which the paper's text repeats, so the search finds it; else its first
    author ("Krishna et al."); else "the paper on" the title's first words, cut at a word."""
    title = (d.title or "").split(":")[0].strip()
    if title and len(title) <= 40:
        return title, True
    if d.authors:
        first = d.authors[0].strip()
        surname = first.split(",")[0].strip() if "," in first else (first.split() or ["the authors"])[-1]
        return (f"{surname} et al." if len(d.authors) > 1 else surname), False
    if not title:
        return "the paper", True
    return f"the paper on {shorten(title, 40).rstrip('…')}", True


def questions_for(d: DocumentMeta) -> list[str]:
    """Questions this document can answer, by its kind, with its issuer's name (or the paper's name)."""
    who = short_company(d.company)
    kind = d.doc_type or "other"
    if kind == "research paper":
        t, titled = _paper_name(d)
        if titled:
            return [f"What is {t} about?", f"What are the main findings of {t}?"]
        verb = "do" if t.endswith("et al.") else "does"
        return [f"What are the main findings of {t}?", f"What data {verb} {t} use?"]
    if kind == "sustainability report":
        w = who or "the company"
        return [f"What were {_pos(w)} Scope 1 emissions{_when(d)}?", f"What are {_pos(w)} climate targets?"]
    if not who:  # a document without an issuer: its title's short name ("Paper Plain"), or its first words
        name = shorten((d.title or "").split(":")[0].strip(), 40).rstrip("…").strip()
        return [f"What is {name} about?"] if name else []
    bank = bool(BANK.search(d.company or ""))
    measure = "net interest income" if bank else "total revenue"
    if kind == "8-K":
        day = f" dated {str(d.published_date)[:10]}" if d.published_date else ""
        return [f"What did {_pos(who)} 8-K{day} announce?"]
    if kind in ("10-Q", "earnings release"):
        return [f"What was {_pos(who)} {measure}{_when(d)}?", f"What drove {_pos(who)} results{_when(d)}?"]
    return [f"What was {_pos(who)} {measure}{_when(d)}?", f"What are {_pos(who)} main risks?"]


def example_questions(docs: list[DocumentMeta], n: int = 6) -> list[str]:
    """Questions built from the library: every kind of document in it gets one before any gets a second (newest
    document first within a kind), then a comparison when two issuers are in it."""
    by_kind: dict[str, list[DocumentMeta]] = {}
    for d in sorted(docs, key=lambda d: (-(d.fiscal_year or 0), d.document_id)):
        by_kind.setdefault(d.doc_type if d.doc_type in KIND_ORDER else "other", []).append(d)
    rounds = [[q for d in by_kind.get(k, [])[:2] for q in questions_for(d)] for k in KIND_ORDER]
    out: list[str] = []
    for i in range(max((len(r) for r in rounds), default=0)):
        out += [r[i] for r in rounds if i < len(r)]
    companies = list(dict.fromkeys(short_company(d.company) for d in docs
                                   if d.company and d.doc_type in ("10-K", "annual report", "10-Q")))
    compare = [f"Compare {companies[0]} and {companies[1]}"] if len(companies) >= 2 else []
    kinds = sum(1 for r in rounds if r)
    picked = list(dict.fromkeys(out))[:max(n - len(compare), kinds)]
    return picked + compare


def follow_ups(a: Answer, intent: QueryIntent, docs: list[DocumentMeta], n: int = 3) -> list[str]:
    """Two or three natural next questions: another period, a comparison, the chart, the drivers."""
    out: list[str] = []
    cited = {e.document_id for e in a.evidence}
    cited_docs = [d for d in docs if d.document_id in cited]
    companies = {d.company_key for d in cited_docs if d.company_key}
    years = sorted({d.fiscal_year for d in cited_docs if d.fiscal_year})
    if years:
        prev = years[0] - 1
        if any(d.company_key in companies and d.fiscal_year == prev for d in docs):
            out.append(f"And in {prev}?")
    others = [d for d in docs if d.company_key and d.company_key not in companies
              and d.doc_type == (cited_docs[0].doc_type if cited_docs else None)]
    if others and cited_docs:
        out.append(f"Compare this with {short_company(others[0].company)}")
    if not a.figures and any(d.figures for d in cited_docs):
        out.append("Is there a chart of this?")
    if not intent.explain and not a.insufficient:
        out.append("What drove this?")
    if a.insufficient:
        out.append("Which documents are in the library?")
    # always two or three: the generic next steps an analyst takes
    for q in ("How did this change from the previous year?", "What drove this?", "Is there a chart of this?"):
        if len(out) >= 2:
            break
        if q not in out and not (intent.compare and "previous year" in q):
            out.append(q)
    return out[:n]
