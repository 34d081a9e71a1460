"""How an answer's text is written from the evidence: extractive offline, by the LLM in one shot, or from the
LLM's final reply after its tool calls; the extractive answer stands in (saying why) when the LLM fails."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rag.answer import extractive, prompts
from rag.answer.figure_choice import place_figures
from rag.answer.finalize import insufficient, verify_and_score
from rag.answer.llm import LLMError, chat, parse_reply
from rag.answer.model import Answer, Evidence
from rag.answer.verify import Flag, quote_matches, sentences, unsupported_numbers, verify
from rag.config import Settings, llm_formats_file
from rag.errors import redact
from rag.quantities import MARKER, numbers
from rag.records import INSUFFICIENT, refusal_reason
from rag.retrieve.pipeline import Retrieval

if TYPE_CHECKING:  # openai is imported when a model is called
    from openai.types.chat import ChatCompletionMessageParam


def extractive_answer(r: Retrieval, settings: Settings) -> Answer:
    t0 = time.perf_counter()
    md, evidence, chosen = extractive.compose(r.intent, r.chunks, settings.answer)
    if not md:
        terms = ", ".join(f"'{t}'" for t in r.intent.key_terms)
        return insufficient(r, "no sentence or table row of the retrieved passages " +
                            (f"mentions {terms}" if terms else "matches the question closely enough"))
    a = Answer(question=r.question, answer=md, confidence="medium", evidence=evidence, mode="extractive")
    verify_and_score(a, r, settings.answer, [u.score for u in chosen])
    a.figures = place_figures(r.figures, a, r.intent.company_names + r.intent.company_terms,
                              linked_bonus=settings.retrieval.selection.linked_figure_bonus)
    a.timings_ms["answer"] = round((time.perf_counter() - t0) * 1000, 1)
    return a


Offline = Callable[[], Answer]


def fallback(r: Retrieval, why: str, settings: Settings, offline: Offline | None = None) -> Answer:
    """The offline answer in place of an LLM's, saying why (redacted: the why is an error's text)."""
    a = offline() if offline else extractive_answer(r, settings)
    a.mode, a.message = "llm-fallback", f"{redact(why)}: offline answer instead"
    a.reasons.insert(0, a.message)
    return a


def evidence_block(evidence: list[Evidence]) -> str:
    return "\n".join(prompts.EVIDENCE_ITEM.format(marker=e.marker, source=e.source, text=e.text) for e in evidence)


def with_offline(r: Retrieval, base: Answer | None, evidence: list[Evidence] | None = None
                 ) -> tuple[list[Evidence], list[str]]:
    """The LLM's evidence: the retrieved passages, plus those the offline answer's table facts come from; and the
    figures code computed from them, their markers renumbered to the LLM's evidence."""
    evidence = list(evidence or [Evidence.of(c, i + 1) for i, c in enumerate(r.chunks)])
    by_chunk = {e.chunk_id: e.marker for e in evidence}
    remap: dict[int, int] = {}
    for e in (base.evidence if base else []):
        if e.chunk_id not in by_chunk:
            new = Evidence(len(evidence) + 1, e.document, e.file_name, e.document_id, e.pages, e.chunk_id, "",
                           e.source, e.text)
            evidence.append(new)
            by_chunk[e.chunk_id] = new.marker
        remap[e.marker] = by_chunk[e.chunk_id]
    computed = [MARKER.sub(lambda m: f"[{remap.get(int(m.group(1)), m.group(1))}]", x)
                for x in (base.computed if base else [])]
    return evidence, computed


def llm_answer(r: Retrieval, settings: Settings, on_token: Callable[[str], None] | None = None,
               evidence: list[Evidence] | None = None, client=None, question: str | None = None,
               offline: Offline | None = None) -> Answer:
    """One request: the evidence first (the passages, and the figures code computed from their tables), the
    question after it (the user's question; by default the one the retrieval searched)."""
    t0 = time.perf_counter()
    base = offline() if offline else None
    if base is not None and base.insufficient:
        return base  # the documents do not say (a company, a period, a measure): no model call
    evidence, computed = with_offline(r, base, evidence)
    figures = ("\n\nFigures computed by code from these passages (use them as written; never compute):\n" +
               "\n".join(f"- {c}" for c in computed)) if computed else ""
    messages: list[ChatCompletionMessageParam] = [{"role": "system", "content": prompts.SYSTEM},
                {"role": "user", "content": prompts.USER.format(evidence=evidence_block(evidence) + figures,
                                                                question=question or r.question)}]
    try:
        text = chat(settings.llm, messages, prompts.ANSWER_SCHEMA, on_token, client=client,
                    formats_file=llm_formats_file(settings))
    except LLMError as exc:
        return fallback(r, str(exc), settings, (lambda: base) if base else None)
    return finish_llm(r, parse_reply(text), evidence, t0, settings, computed, (lambda: base) if base else None)


def _check_citations(reply: dict[str, Any], evidence: list[Evidence]) -> list[Flag]:
    """Markers the LLM cited that were never retrieved; quotes it gave are kept on their evidence."""
    by_marker = {e.marker: e for e in evidence}
    unsupported: list[Flag] = []
    for c in reply["citations"]:
        e = by_marker.get(c["marker"])
        if e is None:
            unsupported.append({"sentence": c["quote"], "reason": f"citation [{c['marker']}] was not retrieved",
                                "action": "dropped"})
    if reply.get("malformed"):
        unsupported.append({"sentence": "", "reason": "the reply was not valid JSON; its text was used",
                            "action": "flagged"})
    return unsupported


def _cited(reply: dict[str, Any], evidence: list[Evidence], unsupported: list[Flag]) -> list[Evidence]:
    """The passages the reply's citation list names. A quote found in another passage than the one its marker
    names identifies that passage (small models miscount markers); the correction is listed."""
    by_marker = {e.marker: e for e in evidence}
    out: list[Evidence] = []
    for c in reply["citations"]:
        e = by_marker.get(c["marker"])
        q = c.get("quote") or ""
        if q and e is not None and quote_matches(q, e.text):
            e.quote = e.quote or q
        elif q:
            right = next((x for x in evidence if quote_matches(q, x.text)), None)
            if right is not None:
                unsupported.append({"sentence": q, "reason": f"citation [{c['marker']}] corrected to [{right.marker}]: "
                                                             "the quote is in that passage", "action": "flagged"})
                right.quote = right.quote or q
                e = right
            elif e is not None:
                unsupported.append({"sentence": q, "reason": f"quote for [{e.marker}] is not in that passage",
                                    "action": "flagged"})
        if e is not None and e not in out:
            out.append(e)
    return out


def _attach(sentence: str, cited: list[Evidence], computed: list[str]) -> str | None:
    """A sentence without an [n] marker, cited through the reply's evidence list instead: the marker of the cited
    passage that holds every number of the sentence (or a figure computed by code), else of the one whose quote
    it repeats. None when no cited passage supports it."""
    nums = numbers(sentence)
    for e in cited:
        if nums and not unsupported_numbers(sentence, [e.text] + computed):
            return f"{sentence.rstrip()} [{e.marker}]"
    if not nums:
        words = set(re.findall(r"[a-z]{4,}", sentence.lower()))
        for e in cited:
            quote = set(re.findall(r"[a-z]{4,}", (e.quote or "").lower()))
            if quote and len(words & quote) >= max(2, len(quote) // 2) and quote_matches(e.quote, e.text):
                return f"{sentence.rstrip()} [{e.marker}]"
    return None


def _kept_sentences(text: str, evidence: list[Evidence], unsupported: list[Flag], uncited_words: int,
                    computed: list[str], cited: list[Evidence]) -> list[str]:
    """The LLM's sentences that pass verification; the others are listed as dropped or flagged."""
    kept = []
    for s in sentences(text):
        if not MARKER.search(s) and (len(s.split()) > uncited_words or numbers(s)):
            # grounded means cited: inline, or through the reply's evidence list (by its values or its quote);
            # otherwise (an instruction obeyed from a document, a fact from the model's memory) it is not part of
            # the answer
            # (not any passage that prints its values: a reply that obeyed a document's injected instructions and
            # cited nothing would then keep its short uncited sentences beside one whose value some passage prints)
            attached = _attach(s, cited, computed)
            if attached is None:
                unsupported.append({"sentence": s, "reason": "no citation", "action": "dropped"})
                continue
            s = attached
        v = verify(s, {e.marker: {"text": e.text + "\n" + "\n".join(computed), "quote": ""} for e in evidence})
        if v.unsupported:
            unsupported.append({**v.unsupported[0], "action": "dropped"})
            continue
        kept.append(s)
    return kept


# the placeholders of the reply format the prompt shows ("<inferences, or empty>"): a small model copies them
_PLACEHOLDERS = re.compile("|".join(re.escape(p) for p in re.findall(r"<[^<>]+>", prompts.USER)) +
                           r"|^\s*(empty|none|n/?a)\s*\.?\s*$", re.I)


def without_template(text: str) -> str:
    """A reply field without the prompt's template text."""
    return re.sub(r"\s{2,}", " ", _PLACEHOLDERS.sub(" ", text or "")).strip()


def _states(sentence: str, value: str) -> bool:
    """The sentence gives this value (in any of its printed forms: 1,577 = 1577 = $1.6 billion in millions; an
    outflow printed "(1,577)" is spent as 1,577)."""
    plain = re.sub(r"^[(\-−–]+|\)+$", "", value.strip())
    said = numbers(sentence)
    return bool(numbers(plain)) and len(unsupported_numbers(sentence, [plain])) < len(said)


def _not_the_candidate(kept: list[str], base: Answer | None) -> str | None:
    """Why the LLM's first sentence cannot lead: code found the figure for the asked measure, entity and period,
    and that sentence does not give it (it gives another row's figure, or none). Code picks the numbers; the model
    only phrases them."""
    if base is None or not base.candidate or not kept:
        return None
    missing = [v for v in base.candidate if not _states(kept[0], v)]
    if not missing:
        return None
    return ("its first sentence does not give the figure code found for the asked measure, entity and period (" +
            ", ".join(missing) + ")")


def finish_llm(r: Retrieval, reply: dict[str, Any], evidence: list[Evidence], t0: float,
               settings: Settings, computed: list[str] | None = None, offline: Offline | None = None) -> Answer:
    """The LLM's reply → a verified answer: unsupported sentences dropped, only the evidence it cites kept, and its
    lead checked against the figure code picked (the offline answer's candidate)."""
    computed = computed or []
    unsupported = _check_citations(reply, evidence)
    text = without_template(reply["answer"])
    why = refusal_reason(text)
    if why is not None or reply.get("insufficient"):
        a = insufficient(r, (text.rstrip(".") if why is None else why) or None)
        a.mode = "llm"
        return a
    cited = _cited(reply, evidence, unsupported)
    kept = _kept_sentences(text, evidence, unsupported, settings.answer.uncited_words, computed, cited)
    used = {int(m) for s in kept for m in MARKER.findall(s)}
    ev = [e for e in evidence if e.marker in used]
    for e in ev:
        if not e.quote:
            e.quote = _best_line(e.text, " ".join(kept))
    if not kept or not ev:
        a = fallback(r, "the LLM's answer had no verifiable sentence", settings, offline)
        a.unsupported = unsupported + a.unsupported
        return a
    base = offline() if offline else None
    wrong = _not_the_candidate(kept, base)
    if wrong:
        unsupported.append({"sentence": kept[0], "reason": wrong, "action": "dropped"})
        a = fallback(r, f"the LLM's answer was not used: {wrong}", settings, (lambda: base) if base else None)
        a.unsupported = unsupported + a.unsupported
        return a
    answer_md = " ".join(kept)
    inferred = without_template(reply.get("inferred") or "")
    if inferred:
        answer_md += f"\n\n*Inferred (not stated in the evidence):* {inferred}"
    a = Answer(question=r.question, answer=answer_md, confidence="medium", evidence=ev, unsupported=unsupported,
               mode="llm", computed=_used(computed, answer_md))
    for e in ev:
        e.verified = quote_matches(e.quote, e.text) if e.quote else False
    verify_and_score(a, r, settings.answer, [], dropped=len([u for u in unsupported if u.get("action") == "dropped"]),
                     extra_text="\n".join(computed))
    _as_sure_as_code(a, base)
    a.figures = place_figures(r.figures, a, r.intent.company_names + r.intent.company_terms,
                              linked_bonus=settings.retrieval.selection.linked_figure_bonus)
    a.timings_ms["answer"] = round((time.perf_counter() - t0) * 1000, 1)
    return a


_LEVELS = (INSUFFICIENT, "low", "medium", "high")


def _as_sure_as_code(a: Answer, base: Answer | None) -> None:
    """An LLM answer is never surer than the offline answer's checks. Its numbers are verified as printed in a
    passage; that they are the figure for the asked measure, entity and period is what the offline answer's
    calibrated confidence (rag/answer/confidence.py) measures. So: the offline answer's confidence when the model's
    lead gives the figure code found (the same figure, the same checks), else the lower of the two."""
    if base is None:
        a.confidence = min(a.confidence, "low", key=_LEVELS.index)
        a.reasons.insert(0, "no offline answer to check the model's figures against: at most low")
        return
    if base.candidate:
        a.confidence, a.signals = base.confidence, dict(base.signals)
        a.reasons = [f"the model's first sentence gives the figure code found ({', '.join(base.candidate)}): the "
                     f"offline answer's confidence"] + base.reasons
        return
    cap = "low" if base.insufficient else base.confidence  # the model answered where the offline answer refused
    if _LEVELS.index(cap) < _LEVELS.index(a.confidence):
        a.confidence = cap
        a.reasons.insert(0, f"no figure picked by code for the model's answer: at most the offline answer's "
                            f"confidence ({cap})")


def _used(computed: list[str], text: str) -> list[str]:
    """The computed figures an answer uses: those whose result (after the last '=') it states."""
    said = numbers(text)
    out = []
    for c in computed:
        result = numbers(c.rsplit("=", 1)[-1])
        if result and any(not unsupported_numbers(n.raw, [c.rsplit("=", 1)[-1]]) for n in said):
            out.append(c)
    return out


def _best_line(text: str, answer: str) -> str:
    words = set(re.findall(r"\w{3,}", answer.lower()))
    lines = [l for l in text.splitlines() if l.strip()]
    return max(lines, key=lambda l: len(words & set(re.findall(r"\w{3,}", l.lower()))), default="")[:300]
