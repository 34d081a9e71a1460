"""answer(): retrieval → extractive or LLM answer → citation verification → confidence → figures placed."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from rag.answer import extractive, prompts
from rag.answer.labels import document_label, pages_label, source_label
from rag.answer.llm import LLMError, chat, parse_reply
from rag.answer.model import Answer, Evidence
from rag.answer.verify import sentences, verify
from rag.config import Settings
from rag.retrieve.pipeline import Retrieval
from rag.retrieve.rerank import years_of
from rag.retrieve.search import SearchFilters


def answer(store, embedder, question: str, settings: Settings | None = None, filters: SearchFilters | None = None,
           history: list[str] | None = None, on_token: Callable[[str], None] | None = None,
           use_llm: bool | None = None, documents: list[dict] | None = None) -> Answer:
    """use_llm: None = when one is configured. on_token receives the LLM's streamed text."""
    settings = settings or Settings()
    t0 = time.perf_counter()
    llm_on = bool(settings.llm.base_url) if use_llm is None else use_llm
    if llm_on and not (filters and any(v not in (None, [], ()) for v in vars(filters).values())):
        from rag.answer.structured import is_structured, sql_answer

        if is_structured(question):  # about the collection itself: text → checked SQL
            return sql_answer(store, question, None, settings)
    failure = None
    if llm_on and settings.llm.tools:
        from rag.answer.multistep import tool_answer

        try:
            out = tool_answer(store, embedder, question, settings, filters, history, on_token, documents)
        except LLMError as exc:
            out, failure = None, exc  # no second attempt: the extractive answer, with the reason
        if out is not None:
            out.timings_ms["total"] = round((time.perf_counter() - t0) * 1000, 1)
            return out
    from rag.answer.multistep import plan_retrieval

    r, steps = plan_retrieval(store, embedder, question, settings, filters, history, documents)
    t_ret = round((time.perf_counter() - t0) * 1000, 1)
    if r.refused or not r.chunks:
        a = insufficient(r)
    elif failure is not None:
        a = fallback(r, str(failure))
    elif llm_on:
        a = llm_answer(r, settings, on_token)
    else:
        a = extractive_answer(r)
    a.steps = steps + a.steps
    a.trace = r.trace.to_list()
    a.retrieval = r
    a.timings_ms = {"retrieval": t_ret, **a.timings_ms, "total": round((time.perf_counter() - t0) * 1000, 1)}
    return a


def insufficient(r: Retrieval, why: str | None = None) -> Answer:
    near = r.nearest or r.candidates[:3] or r.chunks[:3]
    where = "; ".join(dict.fromkeys(f"{document_label(c)} {pages_label(c['page_start'], c['page_end'])}"
                                    for c in near[:3]))
    msg = why or r.message or "the retrieved passages do not answer the question"
    msg = re.sub(r"^insufficient data:\s*", "", msg, flags=re.I)
    text = f"Insufficient data: {msg}." + (f" Nearest pages: {where}." if where else "")
    return Answer(question=r.question, answer=text, confidence="insufficient_data",
                  reasons=[msg], message=r.message)


def extractive_answer(r: Retrieval) -> Answer:
    t0 = time.perf_counter()
    md, evidence, chosen = extractive.compose(r.intent, r.chunks)
    if not md:
        terms = ", ".join(f"'{t}'" for t in r.intent.key_terms)
        return insufficient(r, "no sentence or table row of the retrieved passages " +
                            (f"mentions {terms}" if terms else "matches the question closely enough"))
    a = Answer(question=r.question, answer=md, confidence="medium", evidence=evidence, mode="extractive")
    _verify_and_score(a, r, [u["score"] for u in chosen])
    a.figures = place_figures(r.figures, a)
    a.timings_ms["answer"] = round((time.perf_counter() - t0) * 1000, 1)
    return a


def fallback(r: Retrieval, why: str) -> Answer:
    """The extractive answer in place of an LLM's, saying why."""
    a = extractive_answer(r)
    a.mode, a.message = "llm-fallback", f"{why}: extractive answer instead"
    a.reasons.insert(0, a.message)
    return a


def _evidence_from(r: Retrieval) -> list[Evidence]:
    return [Evidence(marker=i + 1, document=document_label(c), file_name=c["file_name"], document_id=c["document_id"],
                     pages=list(range(c["page_start"], c["page_end"] + 1)), chunk_id=c["chunk_id"], quote="",
                     source=source_label(c), text=c["content"]) for i, c in enumerate(r.chunks)]


def evidence_block(evidence: list[Evidence]) -> str:
    return "\n".join(prompts.EVIDENCE_ITEM.format(marker=e.marker, source=e.source, text=e.text) for e in evidence)


def llm_answer(r: Retrieval, settings: Settings, on_token=None, evidence: list[Evidence] | None = None,
               client=None) -> Answer:
    t0 = time.perf_counter()
    evidence = evidence or _evidence_from(r)
    messages = [{"role": "system", "content": prompts.SYSTEM},
                {"role": "user", "content": prompts.USER.format(evidence=evidence_block(evidence),
                                                                question=r.question)}]
    try:
        text = chat(settings.llm, messages, prompts.ANSWER_SCHEMA, on_token, client=client)
    except LLMError as exc:
        return fallback(r, str(exc))
    reply = parse_reply(text)
    return finish_llm(r, reply, evidence, t0)


def finish_llm(r: Retrieval, reply: dict, evidence: list[Evidence], t0: float) -> Answer:
    by_marker = {e.marker: e for e in evidence}
    unsupported: list[dict] = []
    for c in reply["citations"]:
        e = by_marker.get(c["marker"])
        if e is None:
            unsupported.append({"sentence": c["quote"], "reason": f"citation [{c['marker']}] was not retrieved",
                                "action": "dropped"})
        elif c["quote"] and not e.quote:
            e.quote = c["quote"]
    text = reply["answer"].strip()
    if reply.get("malformed"):
        unsupported.append({"sentence": "", "reason": "the reply was not valid JSON; its text was used",
                            "action": "flagged"})
    if text.lower().startswith("insufficient data") or reply.get("insufficient"):
        a = insufficient(r, re.sub(r"^insufficient data:?\s*", "", text, flags=re.I).rstrip(".") or None)
        a.mode = "llm"
        return a
    v = verify(text, {e.marker: {"text": e.text, "quote": e.quote} for e in evidence})
    bad = {u["sentence"] for u in v.unsupported}
    kept = []
    for s in sentences(text):
        if s in bad:
            reason = next(u for u in v.unsupported if u["sentence"] == s)
            unsupported.append({**reason, "action": "dropped"})
        elif not re.search(r"\[\d{1,2}\]", s) and len(s.split()) > 3:
            # grounded means cited: a statement without a marker (an instruction obeyed from a document,
            # a fact from the model's memory) is not part of the answer
            unsupported.append({"sentence": s, "reason": "no citation", "action": "dropped"})
        else:
            kept.append(s)
    for e in evidence:
        if e.quote and not v.quotes_verified.get(e.marker):
            unsupported.append({"sentence": e.quote, "reason": f"quote for [{e.marker}] is not in that passage",
                                "action": "flagged"})
    used = {int(m) for s in kept for m in re.findall(r"\[(\d{1,2})\]", s)}
    ev = [e for e in evidence if e.marker in used]
    for e in ev:
        e.verified = v.quotes_verified.get(e.marker, False) or not e.quote
        if not e.quote:
            e.quote = _best_line(e.text, " ".join(kept))
            e.verified = True
    if not kept or not ev:
        a = fallback(r, "the LLM's answer had no verifiable sentence")
        a.unsupported = unsupported + a.unsupported
        return a
    answer_md = " ".join(kept)
    if reply.get("inferred"):
        answer_md += f"\n\n*Inferred (not stated in the evidence):* {reply['inferred'].strip()}"
    a = Answer(question=r.question, answer=answer_md, confidence="medium", evidence=ev, unsupported=unsupported,
               mode="llm")
    _verify_and_score(a, r, [], dropped=len([u for u in unsupported if u.get("action") == "dropped"]))
    a.figures = place_figures(r.figures, a)
    a.timings_ms["answer"] = round((time.perf_counter() - t0) * 1000, 1)
    return a


def _best_line(text: str, answer: str) -> str:
    words = set(re.findall(r"\w{3,}", answer.lower()))
    lines = [l for l in text.splitlines() if l.strip()]
    return max(lines, key=lambda l: len(words & set(re.findall(r"\w{3,}", l.lower()))), default="")[:300]


def _verify_and_score(a: Answer, r: Retrieval, unit_scores: list[float], dropped: int = 0) -> None:
    v = verify(a.answer, {e.marker: {"text": e.text, "quote": e.quote} for e in a.evidence})
    for e in a.evidence:
        e.verified = v.quotes_verified.get(e.marker, False)
    a.numbers_total, a.numbers_verified = v.numbers_total, v.numbers_verified
    if a.mode == "extractive":
        a.unsupported += [{**u, "action": "flagged"} for u in v.unsupported]
    reasons: list[str] = []
    cited = {e.chunk_id for e in a.evidence}
    cited_chunks = [c for c in r.chunks if c["chunk_id"] in cited]
    rel = max((c["relevance"] for c in cited_chunks), default=0.0)
    reasons.append(f"best cited passage relevance {rel:.2f} (threshold {_threshold(r):.2f})")
    if a.numbers_total:
        reasons.append(f"{a.numbers_verified} of {a.numbers_total} numbers found in the cited evidence")
    quotes_ok = all(e.verified for e in a.evidence)
    reasons.append("every quote found in its passage" if quotes_ok else "some quotes not found in their passages")
    docs = {c["document_id"] for c in cited_chunks}
    reasons.append(f"{len(cited_chunks)} passage(s) from {len(docs)} document(s)")
    years_ok = True
    if r.intent.years:
        labels = {y for c in cited_chunks for y in years_of(c)}
        years_ok = bool(labels & set(r.intent.years))
        reasons.append("the cited documents are of the year asked" if years_ok else
                       "no cited document is of the year asked")
    if dropped:
        reasons.append(f"{dropped} unsupported sentence(s) dropped")
    wants_number = bool(re.match(r"\s*(how (much|many)|what (is|was|were) the (total|amount|number))", r.question, re.I))
    if wants_number and not a.numbers_total:
        reasons.append("the question asks for a number and the answer gives none")
    best_unit = max(unit_scores, default=1.0)
    all_ok = quotes_ok and a.numbers_verified == a.numbers_total and years_ok and not dropped and \
        not (wants_number and not a.numbers_total)
    if all_ok and rel >= 0.55 and best_unit >= 0.9:
        a.confidence = "high"
    elif all_ok and rel >= 0.40:
        a.confidence = "medium"
    else:
        a.confidence = "low"
    a.reasons = reasons + a.reasons


def _threshold(r: Retrieval) -> float:
    st = next((s for s in r.trace.stages if s["stage"] == "threshold"), None)
    return float((st or {}).get("notes", {}).get("threshold", 0.0))


def place_figures(figures: list[dict], a: Answer) -> list[dict]:
    """Each figure goes after the paragraph that cites its chunk, else after the paragraph of its document."""
    paras = a.paragraphs
    marker_para = {}
    for i, p in enumerate(paras):
        for m in re.findall(r"\[(\d{1,2})\]", p):
            marker_para.setdefault(int(m), i)
    chunk_para = {e.chunk_id: marker_para[e.marker] for e in a.evidence if e.marker in marker_para}
    doc_para = {e.document_id: marker_para[e.marker] for e in a.evidence if e.marker in marker_para}
    out = []
    for f in figures:
        para = chunk_para.get(f.get("chunk_id"), doc_para.get(f.get("document_id")))
        if para is None:
            continue  # a figure of a document the answer does not cite is not shown
        label = next((e.document for e in a.evidence if e.document_id == f.get("document_id")), f["file_name"])
        out.append({"figure_id": f["figure_id"], "document": label, "file_name": f["file_name"],
                    "document_id": f.get("document_id"), "page": f["page"], "caption": f.get("caption"),
                    "chunk_id": f.get("chunk_id"), "after_paragraph": para, "why_shown": f.get("why_shown", "")})
    return out
