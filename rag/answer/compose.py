"""How an answer's text is written from the evidence: extractive offline, by the LLM in one shot, or from the
LLM's final reply after its tool calls; the extractive answer stands in (saying why) when the LLM fails."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from rag.answer import extractive, prompts
from rag.answer.finalize import insufficient, place_figures, verify_and_score
from rag.answer.llm import LLMError, chat, parse_reply
from rag.answer.model import Answer, Evidence
from rag.answer.verify import quote_in, sentences, verify
from rag.config import Settings
from rag.retrieve.pipeline import Retrieval

_MARKER = re.compile(r"\[(\d{1,2})\]")


def extractive_answer(r: Retrieval, settings: Settings) -> Answer:
    t0 = time.perf_counter()
    md, evidence, chosen = extractive.compose(r.intent, r.chunks, settings.answer)
    if not md:
        terms = ", ".join(f"'{t}'" for t in r.intent.key_terms)
        return insufficient(r, "no sentence or table row of the retrieved passages " +
                            (f"mentions {terms}" if terms else "matches the question closely enough"))
    a = Answer(question=r.question, answer=md, confidence="medium", evidence=evidence, mode="extractive")
    verify_and_score(a, r, settings.answer, [u.score for u in chosen])
    a.figures = place_figures(r.figures, a)
    a.timings_ms["answer"] = round((time.perf_counter() - t0) * 1000, 1)
    return a


def fallback(r: Retrieval, why: str, settings: Settings) -> Answer:
    """The extractive answer in place of an LLM's, saying why."""
    a = extractive_answer(r, settings)
    a.mode, a.message = "llm-fallback", f"{why}: extractive answer instead"
    a.reasons.insert(0, a.message)
    return a


def evidence_block(evidence: list[Evidence]) -> str:
    return "\n".join(prompts.EVIDENCE_ITEM.format(marker=e.marker, source=e.source, text=e.text) for e in evidence)


def llm_answer(r: Retrieval, settings: Settings, on_token: Callable[[str], None] | None = None,
               evidence: list[Evidence] | None = None, client=None, question: str | None = None) -> Answer:
    """One request: the evidence first, the question after it (the user's question; by default the one the
    retrieval searched)."""
    t0 = time.perf_counter()
    evidence = evidence or [Evidence.of(c, i + 1) for i, c in enumerate(r.chunks)]
    messages = [{"role": "system", "content": prompts.SYSTEM},
                {"role": "user", "content": prompts.USER.format(evidence=evidence_block(evidence),
                                                                question=question or r.question)}]
    try:
        text = chat(settings.llm, messages, prompts.ANSWER_SCHEMA, on_token, client=client)
    except LLMError as exc:
        return fallback(r, str(exc), settings)
    return finish_llm(r, parse_reply(text), evidence, t0, settings)


def _check_citations(reply: dict[str, Any], evidence: list[Evidence]) -> list[dict]:
    """Markers the LLM cited that were never retrieved; quotes it gave are kept on their evidence."""
    by_marker = {e.marker: e for e in evidence}
    unsupported = []
    for c in reply["citations"]:
        e = by_marker.get(c["marker"])
        if e is None:
            unsupported.append({"sentence": c["quote"], "reason": f"citation [{c['marker']}] was not retrieved",
                                "action": "dropped"})
        elif c["quote"] and not e.quote:
            e.quote = c["quote"]
    if reply.get("malformed"):
        unsupported.append({"sentence": "", "reason": "the reply was not valid JSON; its text was used",
                            "action": "flagged"})
    return unsupported


def _kept_sentences(text: str, evidence: list[Evidence], unsupported: list[dict], uncited_words: int) -> list[str]:
    """The LLM's sentences that pass verification; the others are listed as dropped or flagged."""
    v = verify(text, {e.marker: {"text": e.text, "quote": e.quote} for e in evidence})
    bad: dict[str, dict] = {}
    for u in v.unsupported:
        bad.setdefault(u["sentence"], u)
    kept = []
    for s in sentences(text):
        if s in bad:
            unsupported.append({**bad[s], "action": "dropped"})
        elif not _MARKER.search(s) and len(s.split()) > uncited_words:
            # grounded means cited: a statement without a marker (an instruction obeyed from a document,
            # a fact from the model's memory) is not part of the answer
            unsupported.append({"sentence": s, "reason": "no citation", "action": "dropped"})
        else:
            kept.append(s)
    for e in evidence:
        if e.quote and not quote_in(e.quote, e.text):
            unsupported.append({"sentence": e.quote, "reason": f"quote for [{e.marker}] is not in that passage",
                                "action": "flagged"})
    return kept


def finish_llm(r: Retrieval, reply: dict[str, Any], evidence: list[Evidence], t0: float,
               settings: Settings) -> Answer:
    """The LLM's reply → a verified answer: unsupported sentences dropped, only the evidence it cites kept."""
    unsupported = _check_citations(reply, evidence)
    text = reply["answer"].strip()
    if text.lower().startswith("insufficient data") or reply.get("insufficient"):
        a = insufficient(r, re.sub(r"^insufficient data:?\s*", "", text, flags=re.I).rstrip(".") or None)
        a.mode = "llm"
        return a
    kept = _kept_sentences(text, evidence, unsupported, settings.answer.uncited_words)
    used = {int(m) for s in kept for m in _MARKER.findall(s)}
    ev = [e for e in evidence if e.marker in used]
    for e in ev:
        if not e.quote:
            e.quote = _best_line(e.text, " ".join(kept))
    if not kept or not ev:
        a = fallback(r, "the LLM's answer had no verifiable sentence", settings)
        a.unsupported = unsupported + a.unsupported
        return a
    answer_md = " ".join(kept)
    if reply.get("inferred"):
        answer_md += f"\n\n*Inferred (not stated in the evidence):* {reply['inferred'].strip()}"
    a = Answer(question=r.question, answer=answer_md, confidence="medium", evidence=ev, unsupported=unsupported,
               mode="llm")
    verify_and_score(a, r, settings.answer, [], dropped=len([u for u in unsupported if u.get("action") == "dropped"]))
    a.figures = place_figures(r.figures, a)
    a.timings_ms["answer"] = round((time.perf_counter() - t0) * 1000, 1)
    return a


def _best_line(text: str, answer: str) -> str:
    words = set(re.findall(r"\w{3,}", answer.lower()))
    lines = [l for l in text.splitlines() if l.strip()]
    return max(lines, key=lambda l: len(words & set(re.findall(r"\w{3,}", l.lower()))), default="")[:300]
