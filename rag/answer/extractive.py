"""Offline answering: the sentences and table rows of the retrieved chunks that answer the question, in
document order, each with its citation; "Insufficient data: …" when the evidence is weak."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from rag.answer.labels import document_label
from rag.answer.model import Evidence
from rag.config import AnswerSettings
from rag.domain import years_of
from rag.records import Candidate
from rag.retrieve.query import QueryIntent
from rag.words import terms as _terms

_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'•▪●◦‣–-])|\s+(?=[•▪●◦‣]\s)")  # a bullet starts a sentence
_PERIOD_CELL = re.compile(r"(fy\s*'?)?(19|20)\d{2}|fy\s*'?\d{2}|\w+\.? \d{1,2},? (19|20)\d{2}|q[1-4].*|"
                          r"(three|six|nine|twelve) months.*", re.I)
_CAUSAL = re.compile(r"\b(due to|driven by|primarily|because|result of|reflect\w*|offset|increase\w*|decrease\w*)\b",
                     re.I)


@dataclass
class Unit:
    """A sentence or a table row of a chunk; a row keeps its table's header row for its periods."""
    text: str
    kind: str  # sentence | row
    header: str | None = None
    score: float = 0.0
    chunk: Candidate | None = field(default=None, repr=False)
    pos: int = 0  # the unit's position in its chunk

    @property
    def key(self) -> str:
        return re.sub(r"\W+", " ", self.text.lower()).strip()

    @property
    def c(self) -> Candidate:
        assert self.chunk is not None
        return self.chunk


def _is_period_header(s: str, cells: list[str]) -> bool:
    filled = [c for c in cells[1:] if c]
    periods = sum(bool(_PERIOD_CELL.fullmatch(c)) for c in filled)
    return periods >= max(1, len(filled) - 1) and not re.search(r"\d,\d{3}|\$", s)


def _continued(lines: list[str]) -> list[str]:
    """Prose lines with a sentence broken across them joined again ("… pretraining cor-" + "pus contains 16.4B
    tokens" at a column break): a line that starts in lower case continues one that ends without a full stop.
    Table rows are never joined."""
    out: list[str] = []
    for line in lines:
        prev = out[-1].rstrip() if out else ""
        if prev and line[:1].islower() and " | " not in line and " | " not in prev and \
                not re.search(r"[.!?:;]$", prev):
            out[-1] = prev[:-1] + line if re.search(r"[a-z]-$", prev) else f"{prev} {line}"
        else:
            out.append(line)
    return out


def units_of(chunk: Candidate, cfg: AnswerSettings | None = None) -> list[Unit]:
    """Sentences and table rows of a chunk; a table row keeps the table's header row for its periods."""
    cfg = cfg or AnswerSettings()
    out: list[Unit] = []
    header = None
    for line in _continued(chunk.content.splitlines()):
        s = line.strip()
        if not s:
            continue
        if " | " in s:
            cells = [c.strip() for c in s.split("|")]
            if _is_period_header(s, cells):
                header = s
                continue
            if any(ch.isdigit() for ch in " ".join(cells[1:])):
                out.append(Unit(s, "row", header))
            continue
        words = [w for w in s.split() if not w[:1].isdigit()]
        if not re.search(r"[.!?:;]$", s) and len(s.split()) <= cfg.title_line_words and \
                sum(w[:1].isupper() for w in words) >= len(words) - 1:
            continue  # a title line ("Acme Widgets Corporation and Subsidiaries"), not a statement
        for sent in _SENT.split(s):
            if len(sent.split()) >= cfg.min_sentence_words and not sent.rstrip().endswith(":"):  # "…the following table:" says nothing
                out.append(Unit(sent.strip(), "sentence"))
    return out


def render_row(u: Unit) -> str:
    cells = [c.strip() for c in u.text.split("|")]
    label, values = cells[0], cells[1:]
    head = [c.strip() for c in (u.header or "").split("|")][1:] if u.header else []
    if head and len(head) == len(values):
        pairs = "; ".join(f"{h}: {v}" for h, v in zip(head, values) if v)
        return f"{label.rstrip(':')} — {pairs}"
    return f"{label.rstrip(':')}: " + " | ".join(v for v in values if v)


@dataclass
class _Terms:
    """The question's terms: its own (weighted by rarity), the filings' words for them, and company names."""
    question: set[str]
    names: set[str]
    expansion: set[str]
    years: set[str]

    @classmethod
    def of(cls, intent: QueryIntent) -> _Terms:
        # a company's own name says little inside its documents: it counts a quarter (it still tells, in a
        # comparison, which company a sentence is about)
        name_terms = {t for n in intent.company_names + intent.companies + intent.company_terms for t in _terms(n)}
        q_terms = set(_terms(intent.rewritten)) - name_terms
        return cls(q_terms, set(_terms(intent.rewritten)) & name_terms, set(_terms(intent.text_query)) - q_terms,
                   {str(y) for y in intent.years})


def _unit_score(u: Unit, words: set[str], t: _Terms, idf: dict[str, float], norm: float, intent: QueryIntent,
                cfg: AnswerSettings, top_final: float) -> float:
    """How well a unit answers: its matching terms by rarity, then the period, figures and causal words asked for."""
    c = u.c
    hit = sum(idf[w] for w in t.question & words) + cfg.expansion_term_weight * sum(idf[w] for w in t.expansion & words) \
        + cfg.company_term_weight * sum(idf[w] for w in t.names & words)
    if not hit:
        return 0.0
    s = hit / norm
    text_years = set(re.findall(r"\b(?:19|20)\d{2}\b", u.text + " " + (u.header or "")))
    if t.years and text_years & t.years:
        s += cfg.year_bonus
    has_number = bool(re.search(r"\d", re.sub(r"\b(19|20)\d{2}\b", "", u.text)))
    if intent.wants_number:
        if has_number:
            s += cfg.row_number_bonus if u.kind == "row" else cfg.sentence_number_bonus
        else:
            s *= cfg.no_number_factor  # "how much" wants a figure
    if intent.explain and u.kind == "sentence" and _CAUSAL.search(u.text):
        s += cfg.explain_bonus
    doc_years = {str(y) for y in years_of(c)}
    if t.years and not (doc_years & t.years) and not (text_years & t.years):
        s *= cfg.other_period_factor  # another period's document, and the unit does not name the period asked
    s *= cfg.rank_base + (1 - cfg.rank_base) * (c.final / top_final)  # the chunk's own rank
    s *= 1.0 - cfg.position_step * min(u.pos, cfg.position_cap)
    return s


def score_units(intent: QueryIntent, chunks: list[Candidate], cfg: AnswerSettings | None = None) -> list[Unit]:
    cfg = cfg or AnswerSettings()
    t = _Terms.of(intent)
    top_final = max((c.final for c in chunks), default=1.0) or 1.0
    units: list[tuple[Unit, set[str]]] = []
    for c in chunks:
        for pos, u in enumerate(units_of(c, cfg)):
            u.chunk, u.pos = c, pos
            units.append((u, set(_terms(u.text))))
    # a term in many of the retrieved units says little ("net", "company"): weight by inverse frequency
    df: dict[str, int] = {}
    for _, words in units:
        for w in words:
            df[w] = df.get(w, 0) + 1
    n = max(1, len(units))
    idf = {w: math.log(1 + n / d) for w, d in df.items()}
    # an abbreviation no passage writes ("D&A", "FCF") is scored by the filings' words for it, not held against them
    unwritten = {w for a in intent.abbreviations for w in _terms(a)} - set(df)
    norm = math.sqrt(sum(idf.get(w, math.log(1 + n)) for w in t.question - unwritten) or 1.0)
    scored = []
    for u, words in units:
        u.score = _unit_score(u, words, t, idf, norm, intent, cfg, top_final)
        if u.score:  # no term of the question: not a candidate answer
            scored.append(u)
    scored.sort(key=lambda u: -u.score)
    return scored


def _choose(intent: QueryIntent, scored: list[Unit], cfg: AnswerSettings) -> list[Unit]:
    """Each named company's (or period's) best unit first, then the best units above the floors."""
    best = scored[0].score
    chosen: list[Unit] = []
    per: dict[int, int] = {}
    seen_text: set[str] = set()

    def take(u: Unit) -> None:
        chosen.append(u)
        per[u.c.chunk_id] = per.get(u.c.chunk_id, 0) + 1
        seen_text.add(u.key)

    for e in intent.entities:  # a comparison: the best unit of each named company (or year), wherever it ranked
        u = next((u for u in scored if e.covers(u.c) and u.score >= cfg.entity_floor_share * cfg.floor), None)
        if u is not None and not any(u is x for x in chosen):
            take(u)
    for u in scored:
        if any(u is x for x in chosen):
            continue
        if len(chosen) >= cfg.max_units or u.score < max(cfg.floor, cfg.relative * best):
            break
        if per.get(u.c.chunk_id, 0) >= cfg.per_chunk or u.key in seen_text:
            continue
        take(u)
    return chosen


def compose(intent: QueryIntent, chunks: list[Candidate], cfg: AnswerSettings | None = None
            ) -> tuple[str, list[Evidence], list[Unit]]:
    """Answer markdown, evidence list and the chosen units. Empty answer when nothing clears the floor."""
    cfg = cfg or AnswerSettings()
    scored = score_units(intent, chunks, cfg)
    if not scored or scored[0].score < cfg.floor:
        return "", [], scored[:3]
    chosen = _choose(intent, scored, cfg)
    # document order: by document, then page, then position in the chunk; the best unit's document leads
    first_doc = chosen[0].c.document_id
    chosen.sort(key=lambda u: (u.c.document_id != first_doc, u.c.file_name, u.c.page_start, u.c.chunk_index, u.pos))
    evidence: list[Evidence] = []
    paragraphs: list[list[str]] = []
    last_doc = None
    for u in chosen:
        c = u.c
        marker = len(evidence) + 1
        evidence.append(Evidence.of(c, marker, quote=u.text))
        text = render_row(u) if u.kind == "row" else u.text
        if c.document_id != last_doc:
            paragraphs.append([f"**{document_label(c)}**:"])
            last_doc = c.document_id
        paragraphs[-1].append(f"{text.rstrip('.')} [{marker}]." if u.kind == "sentence" else f"{text} [{marker}]")
    md = "\n\n".join(" ".join(p) if len(p) <= 2 else p[0] + "\n" + "\n".join(f"- {x}" for x in p[1:])
                      for p in paragraphs)
    return md, evidence, chosen
