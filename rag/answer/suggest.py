"""Questions to offer: examples built from what is in the store (the demo page), and follow-ups to an answer."""

from __future__ import annotations

from rag.answer.labels import short_company
from rag.answer.model import Answer
from rag.records import DocumentMeta
from rag.retrieve.query import QueryIntent


def _pos(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def example_questions(docs: list[DocumentMeta], n: int = 6) -> list[str]:
    """One or two questions per kind of document in the store, newest first."""
    out: list[str] = []
    by_kind: dict[str, list[DocumentMeta]] = {}
    for d in sorted(docs, key=lambda d: -(d.fiscal_year or 0)):
        by_kind.setdefault(d.doc_type or "other", []).append(d)
    for d in by_kind.get("10-K", [])[:2] + by_kind.get("annual report", [])[:1]:
        who, y = short_company(d.company) or "the company", d.fiscal_year
        out.append(f"What was {_pos(who)} total revenue in FY{y}?" if y else f"What was {_pos(who)} total revenue?")
        out.append(f"What drove {_pos(who)} operating income change in FY{y}?" if y else
                   f"What are {_pos(who)} main risks?")
    for d in by_kind.get("10-Q", [])[:1] + by_kind.get("earnings release", [])[:1]:
        who = short_company(d.company) or "the company"
        out.append(f"What were {_pos(who)} net sales in {d.fiscal_period or ''} {d.fiscal_year or ''}?"
                   .replace("  ", " ").replace(" ?", "?"))
    for d in by_kind.get("sustainability report", [])[:2]:
        who, y = short_company(d.company) or "the company", d.fiscal_year
        out.append(f"What were {_pos(who)} Scope 1 emissions in {y}?" if y else f"What were {_pos(who)} Scope 1 emissions?")
    for d in by_kind.get("research paper", [])[:2]:
        title = (d.title or d.file_name or "the paper").split(":")[0][:60]
        out.append(f"What are the main results of {title}?")
    companies = list(dict.fromkeys(short_company(d.company) for d in docs
                                   if d.company and d.doc_type != "research paper"))
    if len(companies) >= 2:
        out.append(f"Compare {companies[0]} and {companies[1]}")
    return list(dict.fromkeys(out))[:n]


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
