"""Offline answering: the sentences and table rows of the retrieved chunks that answer the question, in
document order, each with its citation; "Insufficient data: …" when the evidence is weak."""

from __future__ import annotations

import math
import re

from rag.answer.labels import document_label, source_label
from rag.answer.model import Evidence
from rag.retrieve.query import QueryIntent
from rag.retrieve.rerank import years_of

_STOP = set("""a an the of in on for to and or by with from at as is are was were be been being what which who whom
how much many does did do has have had this that these those it its their there than then into over under per
about between during any all each was were will would can could should may might give answer question using use
based primarily information shown provided details relying response please state explain why if not company like
fy fiscal year years usd millions billions million billion total amount""".split())
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


def _terms(text: str) -> list[str]:
    out = []
    for w in re.findall(r"[a-z][a-z0-9&'\-]*", text.lower()):
        w = w.strip("'-")
        if len(w) < 3 or w in _STOP:
            continue
        out.append(_stem(w))
    return out


def _stem(w: str) -> str:
    for suf in ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "es", "ed", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


def units_of(chunk: dict) -> list[dict]:
    """Sentences and table rows of a chunk; a table row keeps the table's header row for its periods."""
    out: list[dict] = []
    header = None
    for line in chunk["content"].splitlines():
        s = line.strip()
        if not s:
            continue
        if " | " in s:
            cells = [c.strip() for c in s.split("|")]
            period = r"(fy\s*'?)?(19|20)\d{2}|fy\s*'?\d{2}|\w+\.? \d{1,2},? (19|20)\d{2}|q[1-4].*|(three|six|nine|twelve) months.*"
            if sum(bool(re.fullmatch(period, c, re.I)) for c in cells[1:] if c) >= max(1, len([c for c in cells[1:] if c]) - 1) \
                    and not re.search(r"\d,\d{3}|\$", s):
                header = s
                continue
            if any(ch.isdigit() for ch in " ".join(cells[1:])):
                out.append({"text": s, "kind": "row", "header": header})
            continue
        words = [w for w in s.split() if not w[:1].isdigit()]
        if not re.search(r"[.!?:;]$", s) and len(s.split()) <= 10 and \
                sum(w[:1].isupper() for w in words) >= len(words) - 1:
            continue  # a title line ("Acme Widgets Corporation and Subsidiaries"), not a statement
        for sent in _SENT.split(s):
            if len(sent.split()) >= 5 and not sent.rstrip().endswith(":"):  # "…the following table:" says nothing
                out.append({"text": sent.strip(), "kind": "sentence", "header": None})
    return out


def _render_row(u: dict) -> str:
    cells = [c.strip() for c in u["text"].split("|")]
    label, values = cells[0], cells[1:]
    head = [c.strip() for c in (u["header"] or "").split("|")][1:] if u["header"] else []
    if head and len(head) == len(values):
        pairs = "; ".join(f"{h}: {v}" for h, v in zip(head, values) if v)
        return f"{label.rstrip(':')} — {pairs}"
    return f"{label.rstrip(':')}: " + " | ".join(v for v in values if v)


def score_units(intent: QueryIntent, chunks: list[dict]) -> list[dict]:
    # a company's own name says little inside its documents: it counts a quarter (it still tells, in a
    # comparison, which company a sentence is about)
    name_terms = {t for n in intent.company_names + intent.companies for t in _terms(n)}
    q_terms = set(_terms(intent.rewritten)) - name_terms
    n_terms = set(_terms(intent.rewritten)) & name_terms
    x_terms = set(_terms(intent.text_query)) - q_terms  # the filings' words for the analyst's terms
    years = {str(y) for y in intent.years}
    scored = []
    top_final = max((c.get("final", 0.0) for c in chunks), default=1.0) or 1.0
    units = [(rank, c, pos, u, set(_terms(u["text"]))) for rank, c in enumerate(chunks)
             for pos, u in enumerate(units_of(c))]
    # a term in many of the retrieved units says little ("net", "company"): weight by inverse frequency
    df: dict[str, int] = {}
    for *_, words in units:
        for w in words:
            df[w] = df.get(w, 0) + 1
    n = max(1, len(units))
    idf = {w: math.log(1 + n / d) for w, d in df.items()}
    norm = math.sqrt(sum(idf.get(w, math.log(1 + n)) for w in q_terms) or 1.0)
    for rank, c, pos, u, words in units:
        if True:
            hit = sum(idf[w] for w in q_terms & words) + 0.5 * sum(idf[w] for w in x_terms & words) \
                + 0.25 * sum(idf[w] for w in n_terms & words)
            if not hit:
                continue
            s = hit / norm
            text_years = set(re.findall(r"\b(?:19|20)\d{2}\b", u["text"] + " " + (u["header"] or "")))
            if years and text_years & years:
                s += 0.3
            has_number = bool(re.search(r"\d", re.sub(r"\b(19|20)\d{2}\b", "", u["text"])))
            if intent.wants_number:
                if has_number:
                    s += 0.3 if u["kind"] == "row" else 0.15
                else:
                    s *= 0.6  # "how much" wants a figure
            if intent.explain and u["kind"] == "sentence" and re.search(
                    r"\b(due to|driven by|primarily|because|result of|reflect\w*|offset|increase\w*|decrease\w*)\b",
                    u["text"], re.I):
                s += 0.3
            doc_years = {str(y) for y in years_of(c)}
            if years and not (doc_years & years) and not (text_years & years):
                s *= 0.5  # another period's document, and the unit does not name the period asked
            s *= 0.6 + 0.4 * (c.get("final", 0.0) / top_final)  # the chunk's own rank
            s *= 1.0 - 0.02 * min(pos, 10)
            scored.append({**u, "score": s, "chunk": c, "rank": rank, "pos": pos})
    scored.sort(key=lambda u: -u["score"])
    return scored


def compose(intent: QueryIntent, chunks: list[dict], max_units: int = 4, per_chunk: int = 2,
            floor: float = 0.45, relative: float = 0.6) -> tuple[str, list[Evidence], list[dict]]:
    """Answer markdown, evidence list and the chosen units. Empty answer when nothing clears the floor."""
    scored = score_units(intent, chunks)
    if not scored or scored[0]["score"] < floor:
        return "", [], scored[:3]
    best = scored[0]["score"]
    chosen, per = [], {}
    seen_text = set()
    # a comparison: the best unit of each named company (or year) first, wherever it ranked
    if len(intent.companies) > 1:
        wanted = [lambda u, k=k: u["chunk"].get("company_key") == k for k in intent.companies]
    elif intent.compare and len(intent.years) > 1:
        wanted = [lambda u, y=y: y in years_of(u["chunk"])
                  for y in intent.years]
    else:
        wanted = []
    for pred in wanted:
        u = next((u for u in scored if pred(u) and u["score"] >= 0.5 * floor), None)
        if u is not None and u not in chosen:
            chosen.append(u)
            per[u["chunk"]["chunk_id"]] = per.get(u["chunk"]["chunk_id"], 0) + 1
            seen_text.add(re.sub(r"\W+", " ", u["text"].lower()).strip())
    for u in scored:
        if u in chosen:
            continue
        if len(chosen) >= max_units or u["score"] < max(floor, relative * best):
            break
        cid = u["chunk"]["chunk_id"]
        key = re.sub(r"\W+", " ", u["text"].lower()).strip()
        if per.get(cid, 0) >= per_chunk or key in seen_text:
            continue
        per[cid] = per.get(cid, 0) + 1
        seen_text.add(key)
        chosen.append(u)
    # document order: by document, then page, then position in the chunk
    first_doc = chosen[0]["chunk"]["document_id"]  # the best unit's document leads
    chosen.sort(key=lambda u: (u["chunk"]["document_id"] != first_doc,
                               u["chunk"]["file_name"], u["chunk"]["page_start"], u["chunk"]["chunk_index"], u["pos"]))
    evidence: list[Evidence] = []
    paragraphs: list[list[str]] = []
    last_doc = None
    for u in chosen:
        c = u["chunk"]
        marker = len(evidence) + 1
        evidence.append(Evidence(marker=marker, document=document_label(c), file_name=c["file_name"],
                                 document_id=c["document_id"], pages=list(range(c["page_start"], c["page_end"] + 1)),
                                 chunk_id=c["chunk_id"], quote=u["text"], source=source_label(c), text=c["content"]))
        text = _render_row(u) if u["kind"] == "row" else u["text"]
        if c["document_id"] != last_doc:
            paragraphs.append([f"**{document_label(c)}**:"])
            last_doc = c["document_id"]
        paragraphs[-1].append(f"{text.rstrip('.')} [{marker}]." if u["kind"] == "sentence" else f"{text} [{marker}]")
    md = "\n\n".join(" ".join(p) if len(p) <= 2 else p[0] + "\n" + "\n".join(f"- {x}" for x in p[1:])
                     for p in paragraphs)
    return md, evidence, chosen
