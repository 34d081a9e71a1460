"""The one finishing step of every answer, extractive or LLM: citation verification, the confidence policy
and the refusal ("Insufficient data: …") with the nearest pages."""

from __future__ import annotations

from dataclasses import dataclass

from rag.answer.labels import document_label, pages_label
from rag.answer.model import Answer
from rag.answer.verify import verify
from rag.config import AnswerSettings
from rag.domain import years_of
from rag.records import refusal_reason
from rag.retrieve.pipeline import Retrieval


def _on_topic(c, terms: set[str]) -> bool:
    """A passage near enough to show with a refusal: it holds at least half of the question's own words (not the
    company's name, years or question words), so "Nearest pages" never points at pages about something else."""
    from rag.words import terms as _terms

    if not terms:
        return False
    have = set(_terms(c.content or ""))
    return len(terms & have) >= max(1, (len(terms) + 1) // 2)


def insufficient(r: Retrieval, why: str | None = None, nearest: bool = True) -> Answer:
    """The refusal, said once and plainly, with the nearest pages — only pages about the asked company (none when
    the company is not in the library) that are about what was asked."""
    from rag.words import terms as _terms

    near = r.nearest or r.candidates[:3] or r.chunks[:3]
    if r.intent.companies:
        near = [c for c in near if c.company_key in r.intent.companies]
    names = {w for k in r.intent.companies for w in _terms(k.replace("-", " "))}
    terms = {t for t in _terms(r.question) if t not in names and not t.isdigit()}
    near = [c for c in near if _on_topic(c, terms)]
    where = "; ".join(dict.fromkeys(f"{document_label(c)} {pages_label(c.page_start, c.page_end)}" for c in near[:3]))
    msg = why or r.message or "the retrieved passages do not answer the question"
    why = refusal_reason(msg)
    a = Answer.refusal(r.question, msg if why is None else why,
                       ["no passage or table of the documents answers it (the answer says what is missing)"])
    a.answer += f" Nearest pages: {where}." if where and nearest else ""
    return a


@dataclass
class Checks:
    """What the confidence policy reads: the evidence's relevance and the verification's results."""
    relevance: float  # the best cited passage's
    threshold: float  # the retrieval's
    numbers_total: int
    numbers_verified: int
    quotes_ok: bool
    passages: int
    documents: int
    years_asked: bool
    years_ok: bool
    dropped: int  # unsupported sentences dropped (LLM)
    asks_quantity: bool
    best_unit: float  # the best extractive unit's score (1.0 for an LLM answer)


def confidence_policy(ch: Checks, cfg: AnswerSettings) -> tuple[str, list[str]]:
    """high / medium / low, with the reasons. Any failed check → low; then relevance and unit score decide."""
    reasons = [f"best cited passage relevance {ch.relevance:.2f} (threshold {ch.threshold:.2f})"]
    if ch.numbers_total:
        reasons.append(f"{ch.numbers_verified} of {ch.numbers_total} numbers found in the cited evidence")
    reasons.append("every quote found in its passage" if ch.quotes_ok else "some quotes not found in their passages")
    reasons.append(f"{ch.passages} passage(s) from {ch.documents} document(s)")
    if ch.years_asked:
        reasons.append("the cited documents are of the year asked" if ch.years_ok else
                       "no cited document is of the year asked")
    if ch.dropped:
        reasons.append(f"{ch.dropped} unsupported sentence(s) dropped")
    no_number = ch.asks_quantity and not ch.numbers_total
    if no_number:
        reasons.append("the question asks for a number and the answer gives none")
    all_ok = ch.quotes_ok and ch.numbers_verified == ch.numbers_total and ch.years_ok and not ch.dropped \
        and not no_number
    if all_ok and ch.relevance >= cfg.high_relevance and ch.best_unit >= cfg.high_unit_score:
        return "high", reasons
    if all_ok and ch.relevance >= cfg.medium_relevance:
        return "medium", reasons
    return "low", reasons


def verify_and_score(a: Answer, r: Retrieval, cfg: AnswerSettings, unit_scores: list[float],
                     dropped: int = 0, extra_text: str = "") -> None:
    """Verify every quote and number against the cited evidence (extra_text: figures computed by code from it),
    then set the confidence and its reasons."""
    v = verify(a.answer, {e.marker: {"text": e.text + ("\n" + extra_text if extra_text else ""), "quote": e.quote}
                          for e in a.evidence})
    for e in a.evidence:
        e.verified = e.verified or v.quotes_verified.get(e.marker, False)
    a.numbers_total, a.numbers_verified = v.numbers_total, v.numbers_verified
    if a.mode == "extractive":
        a.unsupported += [{**u, "action": "flagged"} for u in v.unsupported]
    cited = {e.chunk_id for e in a.evidence}
    cited_chunks = [c for c in r.chunks if c.chunk_id in cited]
    years_ok = True
    if r.intent.years:
        years_ok = bool({y for c in cited_chunks for y in years_of(c)} & set(r.intent.years))
    a.confidence, reasons = confidence_policy(Checks(
        relevance=max((c.relevance for c in cited_chunks), default=0.0), threshold=r.threshold or 0.0,
        numbers_total=a.numbers_total, numbers_verified=a.numbers_verified,
        quotes_ok=all(e.verified for e in a.evidence), passages=len(cited_chunks),
        documents=len({c.document_id for c in cited_chunks}), years_asked=bool(r.intent.years), years_ok=years_ok,
        dropped=dropped, asks_quantity=r.intent.asks_quantity, best_unit=max(unit_scores, default=1.0)), cfg)
    a.reasons = reasons + a.reasons


